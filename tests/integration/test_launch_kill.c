/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * faultline killed (SIGKILL: the OOM killer, a crash) while it launches a command must leave
 * nothing in the command that only a living faultline could undo: a command that was started
 * runs to its own end, and one that was not says why. Hundreds of launches of `env sh -c 'ls /
 * >/dev/null; exit 42'` (two execs, each with a dynamic loader mapping libraries), faultline
 * killed at random moments: half from its fork of the command on (with --alloc, whose probes
 * it attaches before the command may exec: some 10-30 ms here), half from the command's first exec
 * on (the loader's work, which faultline watches at each system call). The test is the
 * command's subreaper, so it reaps the command faultline left behind; every tenth kill, the
 * BPF links the dead faultline held (the allocator's uprobes among them) must go too.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

TestSuite(launch_kill, .init = h_require_root, .fini = h_cleanup, .timeout = 600);

#define LAUNCHES 200
#define FORK_WINDOW_US 40000 /* kills timed from the fork: --alloc's probes, then the exec */
#define EXEC_WINDOW_US 8000  /* ... from the first exec: the loader, then the command's work */
#define RAN 42		     /* the command's own exit status */
#define NOT_STARTED 127

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* The first line of /proc/@pid/@name into @buf ("" when it cannot be read). */
static void proc_line(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f && !fgets(buf, (int)len, f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* Waits, up to @timeout_us, until @pid's comm is no longer @comm (it exec'd or is gone). */
static void wait_comm_change(pid_t pid, const char *comm, int64_t timeout_us)
{
	int64_t deadline = now_us() + timeout_us;
	char now[32];

	do
		proc_line(pid, "comm", now, sizeof(now));
	while (now[0] && !strcmp(now, comm) && now_us() < deadline);
}

/* The child of @parent, found as soon as it is forked (h_find_child() polls at 10 ms: the
 * command's setup before its exec takes a few ms), or -1 after @timeout_us. */
static pid_t child_of(pid_t parent, int64_t timeout_us)
{
	int64_t deadline = now_us() + timeout_us;
	char path[64], stat[512], *p;
	struct dirent *e;
	pid_t found = -1;
	FILE *f;
	DIR *d;

	while (found < 0 && now_us() < deadline && (d = opendir("/proc"))) {
		while (found < 0 && (e = readdir(d))) {
			pid_t pid = (pid_t)atoi(e->d_name);
			int ppid = 0;

			if (pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/stat", pid);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(stat, sizeof(stat), f) && (p = strrchr(stat, ')')) &&
			    sscanf(p, ") %*c %d", &ppid) == 1 && ppid == parent)
				found = pid;
			fclose(f);
		}
		closedir(d);
	}
	return found;
}

/* The process state letter of @pid (R, S, T, t, Z...), or 0 when it is gone. */
static char state_of(pid_t pid)
{
	char stat[512], *p;

	proc_line(pid, "stat", stat, sizeof(stat));
	p = strrchr(stat, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

#define MAX_LINKS 256

/* Waits until bpftool lists none of the @n links @ids of a killed faultline (the kernel lets
 * them go as it closes the dead process's files). */
static void links_gone_ok(int i, const uint32_t *ids, int n)
{
	static uint32_t now[4096];
	int64_t deadline = now_us() + H_EXIT_MS * 1000LL;
	int left;

	do {
		int m = h_bpftool_ids("link", now, sizeof(now) / sizeof(now[0]));

		cr_assert_geq(m, 0, "bpftool -j link show failed");
		left = 0;
		for (int k = 0; k < n; k++)
			for (int j = 0; j < m; j++)
				left += ids[k] == now[j];
		if (left)
			usleep(10000);
	} while (left && now_us() < deadline);
	cr_assert_eq(left, 0,
		     "launch %d: %d of the %d links of the killed faultline are still there", i,
		     left, n);
}

struct tally {
	int ran, not_started, before_kill;
	int links_checked; /* kills after which the links faultline held were seen to go */
};

/* One launch, faultline killed @delay_us after the fork (@from_exec: after the first exec). */
static void launch_and_kill(struct h_session *s, unsigned seed, int i, bool from_exec,
			    int64_t delay_us, struct tally *t)
{
	/* --alloc before the fork's kills: its probes, planned and attached between the fork and
	 * the exec, make that window milliseconds wide */
	const char *args[] = { "-q", from_exec ? "-q" : "--alloc", "--", "env", "sh",
			       "-c", "ls / >/dev/null; exit 42",   NULL };
	struct h_proc cmd = { .out_fd = -1 };
	static uint32_t links[MAX_LINKS];
	int64_t deadline;
	int code, nlinks;
	pid_t got;
	char *err;

	memset(&s->proc, 0, sizeof(s->proc));
	s->proc.out_fd = -1;
	h_session_start_ok(s, args);
	cmd.pid = child_of(s->proc.pid, 20000000);
	if (cmd.pid <= 0) {
		bool exited = !h_wait_exit(&s->proc, 0);

		err = h_read_file(s->err_path);
		/* on a busy machine the whole launch may end before the first look for its
		 * command: faultline then reaped it and said how it ended */
		if (exited && strstr(err, "exited with status 42")) {
			free(err);
			t->before_kill++;
			return;
		}
		cr_assert_fail(
			"launch %d (seed %u): faultline (%s) forked no command; stderr:\n%.1500s",
			i, seed, exited ? "exited" : "alive", err);
	}
	if (from_exec)
		wait_comm_change(cmd.pid, "faultline", 20000000);
	deadline = now_us() + delay_us;
	while (now_us() < deadline)
		usleep(100);
	/* every tenth launch: the links it held (the allocator's uprobes among them) must go */
	nlinks = i % 10 ? 0 : h_fdinfo_ids(s->proc.pid, "link_id", links, MAX_LINKS);
	kill(s->proc.pid, SIGKILL);
	cr_assert_eq(h_wait_exit(&s->proc, H_EXIT_MS), 0, "launch %d: faultline outlived SIGKILL",
		     i);
	if (nlinks > 0) {
		links_gone_ok(i, links, nlinks);
		t->links_checked++;
	}
	/* a command left stopped would never end: say so rather than wait for the timeout */
	deadline = now_us() + H_WORK_MS * 1000LL;
	while ((got = waitpid(cmd.pid, &cmd.status, WNOHANG)) == 0) {
		char st = state_of(cmd.pid);

		cr_assert(st != 'T' && st != 't',
			  "launch %d (seed %u, killed %lld us after the %s): the command is left "
			  "stopped (state %c)",
			  i, seed, (long long)delay_us, from_exec ? "exec" : "fork", st);
		cr_assert(now_us() < deadline, "launch %d: the command (state %c) did not end", i,
			  st);
		usleep(1000);
	}
	if (got < 0) { /* faultline reaped it before it was killed: nothing to check */
		cr_assert_eq(errno, ECHILD, "waitpid: %s", strerror(errno));
		t->before_kill++;
		return;
	}
	code = h_exit_code(&cmd);
	err = h_read_file(s->err_path);
	if (code == RAN) {
		t->ran++;
	} else {
		cr_assert_eq(code, NOT_STARTED,
			     "launch %d (seed %u, faultline killed %lld us after the %s): the "
			     "command ended with status %d, neither its own nor 'not started'; "
			     "stderr:\n%.1500s",
			     i, seed, (long long)delay_us, from_exec ? "exec" : "fork", code, err);
		cr_assert(strstr(err, "not started"),
			  "launch %d: a command that did not start said nothing; stderr:\n%.1500s",
			  i, err);
		t->not_started++;
	}
	free(err);
}

Test(launch_kill, killed_faultline_never_harms_its_command)
{
	unsigned seed = (unsigned)now_us();
	struct tally t = { 0 };
	struct h_session s;

	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0, "%s", strerror(errno));
	cr_log_info("seed %u", seed);
	h_session_init_ok(&s);
	for (int i = 0; i < LAUNCHES; i++) {
		bool from_exec = i & 1;
		int64_t window = from_exec ? EXEC_WINDOW_US : FORK_WINDOW_US;

		launch_and_kill(&s, seed, i, from_exec, (int64_t)(rand_r(&seed) % window), &t);
	}
	/* the kills must have landed on both sides of the exec, or the test proves nothing */
	cr_expect_geq(t.ran, LAUNCHES / 4, "only %d of %d commands got to run", t.ran, LAUNCHES);
	cr_expect_geq(t.not_started, LAUNCHES / 20, "only %d of %d kills came before the exec",
		      t.not_started, LAUNCHES);
	cr_expect_gt(t.links_checked, 0, "no kill found links to see go");
	cr_log_info("%d launches: %d commands ran to their end, %d were not started, %d ended "
		    "before faultline was killed; the links of %d killed sessions went",
		    LAUNCHES, t.ran, t.not_started, t.before_kill, t.links_checked);
}
