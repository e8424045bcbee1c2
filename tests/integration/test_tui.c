/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The interactive view, driven through a pseudo-terminal as a user would: it draws the tree,
 * keys switch the metric and the thread frames of the view, 'q' ends the session with the
 * final report on the plain terminal, and the exit status is 0. The final report and the files
 * keep the command line's metric and thread frames whatever the view showed (issue 25).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(tui, .init = setup, .fini = h_cleanup, .timeout = 90);

/* What the terminal received so far. */
struct screen {
	int fd;
	char buf[1 << 20];
	size_t len;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads until @text appears after offset @from, or @ms pass. Returns its offset or -1. */
static long wait_for(struct screen *s, size_t from, const char *text, int ms)
{
	int64_t end = now_ms() + ms;

	for (;;) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		char *hit;
		ssize_t n;

		s->buf[s->len] = '\0';
		hit = from < s->len ? strstr(s->buf + from, text) : NULL;
		if (hit)
			return hit - s->buf;
		if (now_ms() >= end || poll(&p, 1, 50) < 0)
			return -1;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(s->fd, s->buf + s->len, sizeof(s->buf) - 1 - s->len);
		if (n <= 0)
			return -1; /* the other side closed */
		s->len += (size_t)n;
	}
}

static void keys(const struct screen *s, const char *k)
{
	cr_assert_eq(write(s->fd, k, strlen(k)), (ssize_t)strlen(k));
}

/* Reads the rest once faultline exited: its end of the terminal is closed, so a read ends in
 * EOF or EIO after the last bytes (bounded by @ms should anything still hold it open). */
static void read_to_end(struct screen *s, int ms)
{
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	ssize_t n = 1;

	while (n > 0 && s->len < sizeof(s->buf) - 1 && poll(&p, 1, ms) == 1) {
		n = read(s->fd, s->buf + s->len, sizeof(s->buf) - 1 - s->len);
		if (n > 0)
			s->len += (size_t)n;
	}
	s->buf[s->len] = '\0';
}

/* faultline -p @pid -i 0.3 @args... on a 40x120 pseudo-terminal; its pid. */
static pid_t start_view(struct screen *s, pid_t pid, const char *const *args)
{
	struct winsize ws = { .ws_row = 40, .ws_col = 120 };
	const char *argv[32] = { "faultline", "-p", NULL, "-i", "0.3" };
	char pidbuf[16];
	size_t n = 5;
	pid_t fl;

	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	argv[2] = pidbuf;
	for (; args && *args && n < 31; args++)
		argv[n++] = *args;
	fl = forkpty(&s->fd, NULL, NULL, &ws);
	cr_assert_geq(fl, 0, "forkpty: %s", strerror(errno));
	if (fl == 0) {
		setenv("TERM", "xterm", 1);
		execv(getenv("FAULTLINE"), (char *const *)argv);
		_exit(127);
	}
	h_track(fl);
	return fl;
}

Test(tui, keys_change_the_view_not_the_report_or_files)
{
	static struct screen s;
	struct h_session fs;
	struct h_folded f;
	struct h_proc wl;
	long at, title;
	pid_t fl;
	int status;

	h_session_init_ok(&fs);
	h_spawn_workload_ok(&wl, "threads", NULL);
	cr_assert_eq(h_wait_line(&wl, "ready", H_LINE_MS), 0);
	fl = start_view(&s, wl.pid, (const char *const[]){ "--folded", fs.folded_path, NULL });
	cr_assert_geq(wait_for(&s, 0, "sort total", H_READY_MS), 0,
		      "no interactive view:\n%.2000s", s.buf);
	h_kill_ok(wl.pid, SIGUSR1);
	cr_assert_eq(h_wait_line(&wl, "done", H_WORK_MS), 0);
	cr_expect_geq(wait_for(&s, 0, "touch_c", 5000), 0, "the tree never showed touch_c");
	title = (long)s.len;
	/* curses sends only what changed on screen: look for the new words, not whole lines */
	keys(&s, "m");
	cr_expect_geq(wait_for(&s, (size_t)title, "anon", 5000), 0, "'m' did not switch");
	/* resident, anon, file, shmem, swap, faults: a count, where the files hold bytes */
	keys(&s, "mmmm");
	cr_expect_geq(wait_for(&s, (size_t)title, "faults", 5000), 0, "'m' did not reach faults");
	cr_expect_geq(wait_for(&s, (size_t)title, "report and files: resident", 5000), 0,
		      "the view does not say what the report and files keep");
	title = (long)s.len;
	keys(&s, "t");
	cr_expect_geq(wait_for(&s, (size_t)title, "toucher-", 5000), 0, "'t' did not switch");
	keys(&s, "jjsq");
	at = wait_for(&s, (size_t)title, "final report", 10000);
	cr_assert_geq(at, 0, "no final report after 'q'");
	cr_expect_geq(wait_for(&s, (size_t)at, "metric resident", 2000), 0,
		      "the final report is not in the command line's metric");
	cr_assert_eq(waitpid(fl, &status, 0), fl);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	read_to_end(&s, 2000);
	cr_expect_null(strstr(s.buf + at, "toucher-c"),
		       "the final report has the view's thread frames:\n%.3000s", s.buf + at);
	h_folded_load_ok(fs.folded_path, &f);
	cr_expect_str_eq(f.layout, "# faultline folded metric=resident by=stack threads=no",
			 "the folded file does not say it holds the command line's layout");
	/* bytes of resident growth, not the view's fault count (24 MiB is 6144 faults) */
	cr_expect_geq(h_folded_frame(&f, "touch_c"), 24 * H_MIB * 98 / 100,
		      "the folded file is not by the command line's metric (resident bytes)");
	cr_expect_eq(h_folded_thread(&f, "toucher-c"), 0,
		     "the folded file has the view's thread frames");
	h_folded_free(&f);
	h_kill_ok(wl.pid, SIGUSR2);
	close(s.fd);
}

/* With -T --alloc the thread table and the allocation sites sit below figures that fill the
 * view's share of the screen: tab shows each alone. */
Test(tui, tab_shows_the_thread_table_and_the_allocation_sites)
{
	static struct screen s;
	struct h_proc wl;
	long from;
	pid_t fl;
	int status;

	h_spawn_workload_ok(&wl, "allocs", NULL);
	cr_assert_eq(h_wait_line(&wl, "ready", H_LINE_MS), 0);
	fl = start_view(&s, wl.pid, (const char *const[]){ "-T", "--alloc", NULL });
	cr_assert_geq(wait_for(&s, 0, "sort total", H_READY_MS), 0,
		      "no interactive view:\n%.2000s", s.buf);
	cr_expect_geq(wait_for(&s, 0, "tab tables", 2000), 0, "the help line has no tab");
	h_kill_ok(wl.pid, SIGUSR1);
	cr_assert_eq(h_wait_line(&wl, "done", H_WORK_MS), 0);
	from = (long)s.len;
	keys(&s, "\t");
	cr_expect_geq(wait_for(&s, (size_t)from, "threads by resident", 5000), 0,
		      "tab did not show the thread table:\n%.3000s", s.buf + from);
	from = (long)s.len;
	keys(&s, "\t");
	cr_expect_geq(wait_for(&s, (size_t)from, "allocation sites", 5000), 0,
		      "tab did not show the allocation sites:\n%.3000s", s.buf + from);
	/* "CALLER > ALLOCATOR", as the sites name them and the tree does not */
	cr_expect_geq(wait_for(&s, (size_t)from, "> leak_path > malloc", 5000), 0,
		      "the sites never showed leak_path's malloc");
	keys(&s, "q");
	cr_assert_eq(waitpid(fl, &status, 0), fl);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	h_kill_ok(wl.pid, SIGUSR2);
	close(s.fd);
}
