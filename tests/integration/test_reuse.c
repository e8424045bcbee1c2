/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A target is a process, not a number: when a target exits and its pid is given to a new
 * process at once (the test sets /proc/sys/kernel/ns_last_pid), the new process is not charged
 * to it, with -p and with -f; and a child -f follows that gets the pid of an exited child of
 * the same target is a process of its own, with its own rows.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "formats/jsonread.h"
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(reuse, .init = setup, .fini = h_cleanup, .timeout = 90);

#define NEW_MIB 64 /* what the process that gets the pid touches (threads' touch_a) */

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Waits until faultline's stderr holds @needle (or @other, when not NULL): true, or false
 * after @ms. */
static bool wait_stderr2(const struct h_session *s, const char *needle, const char *other, int ms)
{
	for (int waited = 0;; waited += 10) {
		char *err = h_read_file(s->err_path);
		bool found = strstr(err, needle) || (other && strstr(err, other));

		free(err);
		if (found || waited >= ms)
			return found;
		sleep_ms(10);
	}
}

static bool wait_stderr(const struct h_session *s, const char *needle, int ms)
{
	return wait_stderr2(s, needle, NULL, ms);
}

/* Reaps workload @w at once (it is exiting): its pid is free when this returns. */
static void reap_now_ok(struct h_proc *w)
{
	pid_t got;

	do
		got = waitpid(w->pid, &w->status, 0);
	while (got < 0 && errno == EINTR);
	cr_assert_eq(got, w->pid, "waitpid %d: %s", (int)w->pid, strerror(errno));
	w->reaped = true;
}

/*
 * Starts `threads --now --exit NEW_MIB` as process @want, which just exited: the next pid the
 * kernel gives out is set to @want, then the fork follows at once. Waits for it to end.
 * Skips the test when another process of the machine took the pid first.
 */
static void reuse_pid_ok(pid_t want)
{
	char path[PATH_MAX], mib[16], last[32];
	char *argv[] = { path, "--now", "--exit", mib, NULL };
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC), status, n;
	pid_t pid;

	cr_assert_geq(fd, 0, "/proc/sys/kernel/ns_last_pid: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/threads", getenv("WORKLOADS"));
	snprintf(mib, sizeof(mib), "%d", NEW_MIB);
	n = snprintf(last, sizeof(last), "%d", (int)want - 1);
	cr_assert_eq(write(fd, last, (size_t)n), n, "ns_last_pid: %s", strerror(errno));
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		execv(path, argv);
		_exit(127);
	}
	close(fd);
	h_track(pid);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "threads failed: %d", status);
	if (pid != want)
		cr_skip_test("pid %d went to another process first (got %d)", (int)want, (int)pid);
	cr_log_info("pid %d reused by threads (%d MiB in touch_a)", (int)want, NEW_MIB);
}

/* `faultline -q -v -i 0.2 --metric anon --folded F [-f] [--json J] -p PID`, ready (anon: the
 * lazy binding of mmap in a new child faults file pages in under the functions checked). */
static void start_faultline_ok(struct h_session *fl, pid_t target, bool follow, const char *json)
{
	const char *args[14] = { "-q", "-v", "-i", "0.2", "--metric", "anon", "--folded" };
	char pid[16];
	size_t n = 7;

	h_session_init_ok(fl);
	args[n++] = fl->folded_path;
	if (follow)
		args[n++] = "-f";
	if (json) {
		args[n++] = "--json";
		args[n++] = json;
	}
	snprintf(pid, sizeof(pid), "%d", (int)target);
	args[n++] = "-p";
	args[n++] = pid;
	args[n] = NULL;
	h_session_start_ok(fl, args);
	h_wait_ready_ok(fl);
}

static void stop_faultline_ok(struct h_session *fl, struct h_folded *f)
{
	if (!fl->proc.reaped)
		kill(fl->proc.pid, SIGINT);
	cr_assert_eq(h_wait_exit(&fl->proc, H_EXIT_MS), 0, "faultline did not exit");
	cr_assert_eq(h_exit_code(&fl->proc), 0, "faultline exited with %d; stderr:\n%s",
		     h_exit_code(&fl->proc), h_read_file(fl->err_path));
	h_folded_load_ok(fl->folded_path, f);
}

/* exiter (4 MiB in touch_before_exit, then gone 50 ms later) is the target; its pid goes to
 * threads, which touches NEW_MIB MiB. */
static void exiter_reused(bool follow)
{
	const char *wl[] = { "4", "50", NULL };
	struct h_session fl;
	struct h_folded f;
	struct h_proc w;

	h_spawn_workload_ok(&w, "exiter", wl);
	cr_assert_eq(h_wait_line(&w, "ready", H_LINE_MS), 0, "exiter never got ready");
	start_faultline_ok(&fl, w.pid, follow, NULL);
	h_kill_ok(w.pid, SIGUSR1);
	cr_assert_eq(h_wait_line(&w, "done", H_WORK_MS), 0, "exiter never printed \"done\"");
	reap_now_ok(&w);
	reuse_pid_ok(w.pid);
	stop_faultline_ok(&fl, &f);
	cr_expect_eq(h_folded_frame(&f, "touch_a"), 0,
		     "the process that got pid %d was charged to the target", (int)w.pid);
	h_within_ok("touch_before_exit", h_folded_frame(&f, "touch_before_exit"),
		    (int64_t)(4 * H_MIB), &f);
	cr_expect_lt(h_folded_total(&f), 5 * H_MIB, "more than the target's own growth");
	h_folded_free(&f);
}

Test(reuse, p_target_pid_reused)
{
	exiter_reused(false);
}

Test(reuse, f_target_pid_reused)
{
	exiter_reused(true);
}

/* forker's child (8 MiB in child_grow), followed with -f, exits; its pid goes to threads. */
Test(reuse, f_child_pid_reused)
{
	const char *wl[] = { "8", "0", "0", NULL };
	char needle[64];
	struct h_session fl;
	struct h_folded f;
	struct h_proc w;
	pid_t child;

	h_spawn_workload_ok(&w, "forker", wl);
	cr_assert_eq(h_wait_line(&w, "ready", H_LINE_MS), 0, "forker never got ready");
	start_faultline_ok(&fl, w.pid, true, NULL);
	h_kill_ok(w.pid, SIGUSR1);
	cr_assert_eq(h_wait_line(&w, "child ready", H_LINE_MS), 0, "no \"child ready\"");
	child = h_find_child(w.pid, H_LINE_MS);
	cr_assert_gt(child, 0, "forker's child not found");
	h_track(child);
	snprintf(needle, sizeof(needle), "following new process %d", (int)child);
	cr_assert(wait_stderr(&fl, needle, H_LINE_MS), "faultline never found the child");
	h_kill_ok(child, SIGUSR1);
	cr_assert_eq(h_wait_line(&w, "child done", H_WORK_MS), 0, "no \"child done\"");
	h_kill_ok(child, SIGUSR2);
	/* forker reaps it, then says "done": the pid is free */
	cr_assert_eq(h_wait_line(&w, "done", H_WORK_MS), 0, "forker never printed \"done\"");
	reuse_pid_ok(child);
	stop_faultline_ok(&fl, &f);
	h_kill_ok(w.pid, SIGUSR2);
	cr_expect_eq(h_folded_frame(&f, "touch_a"), 0,
		     "the process that got pid %d was charged to the child", (int)child);
	h_within_ok("child_grow", h_folded_frame(&f, "child_grow"), (int64_t)(8 * H_MIB), &f);
	cr_expect_lt(h_folded_total(&f), 9 * H_MIB, "more than the processes' own growth");
	h_folded_free(&f);
}

/* The anon growth of the processes of @pid in the JSON document at @path, in their order. */
static size_t anon_of_pid(const char *path, pid_t pid, uint64_t *anon, size_t max)
{
	char *text = h_read_file(path);
	const struct jv *procs;
	struct jv doc;
	size_t n = 0;
	uint64_t p;

	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON: %.300s", text);
	procs = jv_get(&doc, "processes");
	for (size_t i = 0; procs && i < procs->n; i++) {
		if (!jv_u64(jv_get(&procs->items[i], "pid"), &p) || p != (uint64_t)pid || n >= max)
			continue;
		cr_assert(jv_u64(jv_path(&procs->items[i], "attributed.growth.anon"), &anon[n]));
		n++;
	}
	jv_free(&doc);
	free(text);
	return n;
}

/*
 * reforker's first child (8 MiB) exits and faultline retires it; its second child gets the
 * same pid and touches 24 MiB: two processes, each with its own growth and stacks.
 */
Test(reuse, f_child_pid_given_to_a_sibling)
{
	char dir[64], json[96], needle[64], gone[64];
	const char *rest;
	struct h_session fl;
	struct h_folded f;
	struct h_proc w;
	uint64_t anon[4];
	int first, second;
	size_t n;

	h_temp_dir_ok(dir);
	snprintf(json, sizeof(json), "%s/reuse.json", dir);
	h_spawn_workload_ok(&w, "reforker", NULL);
	cr_assert_eq(h_wait_line(&w, "ready", H_LINE_MS), 0, "reforker never got ready");
	start_faultline_ok(&fl, w.pid, true, json);
	h_kill_ok(w.pid, SIGUSR1);
	cr_assert_eq(h_wait_prefix(&w, "first ", &rest, H_WORK_MS), 0, "no \"first PID\"");
	first = atoi(rest);
	cr_assert_gt(first, 0, "reforker: %s", w.out);
	/* retired: seen exit, or found gone already */
	snprintf(needle, sizeof(needle), "process %d (reforker) exited", first);
	snprintf(gone, sizeof(gone), "process %d (reforker), already exited", first);
	cr_assert(wait_stderr2(&fl, needle, gone, H_LINE_MS), "faultline never retired child %d",
		  first);
	h_kill_ok(w.pid, SIGUSR1);
	cr_assert_eq(h_wait_prefix(&w, "second ", &rest, H_WORK_MS), 0, "no \"second PID\"");
	second = atoi(rest);
	cr_assert_eq(h_wait_line(&w, "done", H_WORK_MS), 0, "reforker never printed \"done\"");
	if (second != first)
		cr_skip_test("pid %d went to another process first (got %d)", first, second);
	stop_faultline_ok(&fl, &f);
	h_kill_ok(w.pid, SIGUSR2);
	h_within_ok("first_child", h_folded_frame(&f, "first_child"), (int64_t)(8 * H_MIB), &f);
	h_within_ok("second_child", h_folded_frame(&f, "second_child"), (int64_t)(24 * H_MIB), &f);
	n = anon_of_pid(json, first, anon, 4);
	cr_assert_eq(n, 2, "%zu processes of pid %d in the report, 2 expected", n, first);
	cr_expect(h_within((double)anon[0], 8.0 * H_MIB), "first child's anon %" PRIu64 " B",
		  anon[0]);
	cr_expect(h_within((double)anon[1], 24.0 * H_MIB), "second child's anon %" PRIu64 " B",
		  anon[1]);
	h_folded_free(&f);
}
