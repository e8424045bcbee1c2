/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The interactive view, driven through a pseudo-terminal as a user would: it draws the tree,
 * keys switch the metric and the thread frames, 'q' ends the session with the final report on
 * the plain terminal, in the metric chosen, and the exit status is 0.
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

Test(tui, keys_then_final_report)
{
	static struct screen s;
	struct winsize ws = { .ws_row = 40, .ws_col = 120 };
	struct h_proc wl;
	char pidbuf[16];
	long at, title;
	pid_t fl;
	int status;

	h_spawn_workload_ok(&wl, "threads", NULL);
	cr_assert_eq(h_wait_line(&wl, "ready", H_LINE_MS), 0);
	snprintf(pidbuf, sizeof(pidbuf), "%d", wl.pid);
	fl = forkpty(&s.fd, NULL, NULL, &ws);
	cr_assert_geq(fl, 0, "forkpty: %s", strerror(errno));
	if (fl == 0) {
		setenv("TERM", "xterm", 1);
		execl(getenv("FAULTLINE"), "faultline", "-p", pidbuf, "-i", "0.3", (char *)NULL);
		_exit(127);
	}
	h_track(fl);
	cr_assert_geq(wait_for(&s, 0, "sort total", H_READY_MS), 0,
		      "no interactive view:\n%.2000s", s.buf);
	h_kill_ok(wl.pid, SIGUSR1);
	cr_assert_eq(h_wait_line(&wl, "done", H_WORK_MS), 0);
	cr_expect_geq(wait_for(&s, 0, "touch_c", 5000), 0, "the tree never showed touch_c");
	title = (long)s.len;
	/* curses sends only what changed on screen: look for the new words, not whole lines */
	keys(&s, "m");
	cr_expect_geq(wait_for(&s, (size_t)title, "anon", 5000), 0, "'m' did not switch");
	title = (long)s.len;
	keys(&s, "t");
	cr_expect_geq(wait_for(&s, (size_t)title, "toucher-", 5000), 0, "'t' did not switch");
	keys(&s, "jjsq");
	at = wait_for(&s, (size_t)title, "final report", 10000);
	cr_assert_geq(at, 0, "no final report after 'q'");
	cr_expect_geq(wait_for(&s, (size_t)at, "metric anon", 2000), 0,
		      "the final report is not in the metric chosen");
	cr_expect_geq(wait_for(&s, (size_t)at, "toucher-c", 2000), 0,
		      "the final report has no thread frames");
	cr_assert_eq(waitpid(fl, &status, 0), fl);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	h_kill_ok(wl.pid, SIGUSR2);
	close(s.fd);
}
