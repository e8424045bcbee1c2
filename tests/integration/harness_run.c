/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The integration tests' harness: whole attach-mode and launch-mode runs. See harness.h. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "harness.h"

#define ARGV_MAX 48

struct argv_buf {
	const char *v[ARGV_MAX];
	size_t n;
};

static void argv_add(struct argv_buf *a, const char *arg)
{
	cr_assert_lt(a->n, ARGV_MAX - 1, "harness: too many arguments");
	a->v[a->n++] = arg;
	a->v[a->n] = NULL;
}

static void argv_add_all(struct argv_buf *a, const char *const *args)
{
	for (; args && *args; args++)
		argv_add(a, *args);
}

/* Fails with faultline's stderr in the message. */
static void fail_with_stderr(const struct h_session *s, const char *what)
{
	char *err = h_read_file(s->err_path);

	cr_assert_fail("%s; faultline's stderr:\n%.2000s", what, err);
	free(err);
}

static void attach_start(struct h_run *r, const char *workload, const char *const *wl_args,
			 const char *const *fl_args, bool whole)
{
	struct argv_buf a = { .n = 0 };
	char pid[16];
	int err;

	memset(r, 0, sizeof(*r));
	h_spawn_workload_ok(&r->wl, workload, wl_args);
	err = h_wait_line(&r->wl, "ready", H_LINE_MS);
	cr_assert_eq(err, 0, "workload %s never printed \"ready\": %s", workload, strerror(-err));

	h_session_init_ok(&r->fl);
	snprintf(pid, sizeof(pid), "%d", r->wl.pid);
	argv_add(&a, "-q");
	if (whole)
		argv_add(&a, "-v");
	argv_add(&a, "-p");
	argv_add(&a, pid);
	argv_add(&a, "--folded");
	argv_add(&a, r->fl.folded_path);
	argv_add_all(&a, fl_args);
	h_session_start_ok(&r->fl, a.v);
	h_wait_ready_ok(&r->fl);
	if (whole)
		h_wait_tables_ok(&r->fl);
	/* The window of the comparison opens here: probes live, workload still waiting. */
	h_read_status_ok(r->wl.pid, &r->before);
}

void h_attach_start_ok(struct h_run *r, const char *workload, const char *const *wl_args,
		       const char *const *fl_args)
{
	attach_start(r, workload, wl_args, fl_args, false);
}

void h_attach_start_whole_ok(struct h_run *r, const char *workload, const char *const *wl_args,
			     const char *const *fl_args)
{
	attach_start(r, workload, wl_args, fl_args, true);
}

void h_attach_work_ok(struct h_run *r)
{
	int err;

	h_kill_ok(r->wl.pid, SIGUSR1);
	err = h_wait_line(&r->wl, "done", H_WORK_MS);
	cr_assert_eq(err, 0, "workload never printed \"done\": %s", strerror(-err));
	/* ... and closes here, while the workload sits waiting for SIGUSR2. */
	h_read_status_ok(r->wl.pid, &r->after);
}

void h_attach_stop_ok(struct h_run *r, int sig)
{
	int err;

	h_kill_ok(r->fl.proc.pid, sig);
	if (h_wait_exit(&r->fl.proc, H_EXIT_MS))
		fail_with_stderr(&r->fl, "faultline did not exit within 10 s of the signal");
	if (h_exit_code(&r->fl.proc) != 0) {
		char what[96];

		snprintf(what, sizeof(what), "faultline ended by %s exited with status %d, not 0",
			 strsignal(sig), h_exit_code(&r->fl.proc));
		fail_with_stderr(&r->fl, what);
	}
	h_kill_ok(r->wl.pid, SIGUSR2);
	err = h_wait_exit(&r->wl, H_EXIT_MS);
	cr_assert_eq(err, 0, "workload did not exit after SIGUSR2");
	cr_assert_eq(h_exit_code(&r->wl), 0, "workload exited with status %d",
		     h_exit_code(&r->wl));
	h_folded_load_ok(r->fl.folded_path, &r->folded);
}

void h_attach_run_ok(struct h_run *r, const char *workload, const char *const *wl_args,
		     const char *const *fl_args)
{
	h_attach_start_ok(r, workload, wl_args, fl_args);
	h_attach_work_ok(r);
	h_attach_stop_ok(r, SIGINT);
}

void h_attach_run_whole_ok(struct h_run *r, const char *workload, const char *const *wl_args,
			   const char *const *fl_args)
{
	h_attach_start_whole_ok(r, workload, wl_args, fl_args);
	h_attach_work_ok(r);
	h_attach_stop_ok(r, SIGINT);
}

/* Waits until @s's stdout (its launched command's) has the line "done", or faultline exited:
 * 0, or -ETIMEDOUT after @timeout_ms. */
static int wait_done(struct h_session *s, int timeout_ms)
{
	struct timespec t;
	int64_t deadline;

	clock_gettime(CLOCK_MONOTONIC, &t);
	deadline = (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000 + timeout_ms;
	for (;;) {
		if (h_file_has_line(s->out_path, "done") || !h_wait_exit(&s->proc, 0))
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000 >= deadline)
			return -ETIMEDOUT;
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000L }, NULL);
	}
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void h_launch_run_for_ok(struct h_run *r, const char *workload, const char *const *wl_args,
			 const char *const *fl_args, int work_ms)
{
	struct argv_buf a = { .n = 0 };
	char path[PATH_MAX], what[128];
	double done;

	memset(r, 0, sizeof(*r));
	r->wl.pid = -1;
	r->wl.out_fd = -1;
	snprintf(path, sizeof(path), "%s/%s", getenv("WORKLOADS"), workload);
	h_session_init_ok(&r->fl);
	argv_add(&a, "-q");
	argv_add(&a, "--folded");
	argv_add(&a, r->fl.folded_path);
	argv_add_all(&a, fl_args);
	argv_add(&a, "--");
	argv_add(&a, path);
	argv_add(&a, "--now");
	argv_add(&a, "--exit");
	argv_add_all(&a, wl_args);
	h_session_start_ok(&r->fl, a.v);

	/* Three bounds, each on its own part: a busy machine stretches the command's work, and
	 * that must not eat into what faultline's end is allowed. */
	h_wait_ready_ok(&r->fl);
	if (wait_done(&r->fl, work_ms)) {
		snprintf(what, sizeof(what), "the command did not say \"done\" within %.0f s",
			 work_ms / 1000.0);
		fail_with_stderr(&r->fl, what);
	}
	done = now_s();
	/* The session must end by itself when the command exits. */
	if (h_wait_exit(&r->fl.proc, H_EXIT_MS))
		fail_with_stderr(&r->fl, "faultline did not end within 10 s of its command's end");
	r->end_s = now_s() - done;
	if (h_exit_code(&r->fl.proc) != 0)
		fail_with_stderr(&r->fl, "faultline in launch mode exited with a non-zero status");
	cr_assert(h_file_has_line(r->fl.out_path, "done"),
		  "the launched workload never printed \"done\" (its stdout is faultline's)");
	h_folded_load_ok(r->fl.folded_path, &r->folded);
}

void h_launch_run_ok(struct h_run *r, const char *workload, const char *const *wl_args,
		     const char *const *fl_args)
{
	h_launch_run_for_ok(r, workload, wl_args, fl_args, H_WORK_MS);
}
