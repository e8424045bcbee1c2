/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Children made by vfork (a shell's commands: dash, posix_spawn) share their parent's mm until
 * their exec. What they change in it is the parent's; their own counters start at their exec.
 * A shell traced since before its commands (-f -p) runs exiters one after the other: each
 * exiter's kernel change is its image's, and reconciles with what faultline attributed to it
 * within a page. It once did for only every other child: a child that touched the shell's mm
 * before the shell's own next change took that mm's state as its own, and its kernel change
 * lost the shell's 112 KiB of anonymous memory. Those read from /proc and those gone before
 * (reconciled from their counters at exit) alike.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "formats/jsonread.h"
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(vfork, .init = setup, .fini = h_cleanup, .timeout = 90);

#define EXITERS 12
/* a page: a fault-around or a stack page may land on either side of a baseline */
#define GAP_SLACK 4096

static int64_t i64_at(const struct jv *v, const char *path)
{
	int64_t x = 0;

	cr_assert(jv_i64(jv_path(v, path), &x), "%s is not an integer", path);
	return x;
}

/* A shell that waits for @go to exist, then runs EXITERS exiters (each 1 MiB, 100 ms). */
static pid_t start_shell_ok(const char *go)
{
	char script[1024];
	pid_t pid;

	snprintf(script, sizeof(script),
		 "while [ ! -e %s ]; do sleep 0.02; done; i=0; while [ $i -lt %d ]; do "
		 "%s/exiter --now 1 100 >/dev/null; i=$((i + 1)); done",
		 go, EXITERS, getenv("WORKLOADS"));
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (!pid) {
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	h_track(pid);
	return pid;
}

Test(vfork, children_of_an_attached_shell_reconcile)
{
	char pid_s[16], json[128], go[128], *text;
	size_t seen = 0, reconciled = 0, read = 0;
	const struct jv *procs;
	struct h_session fl;
	struct jv doc;
	pid_t shell;
	int status;
	FILE *f;

	h_session_init_ok(&fl);
	snprintf(go, sizeof(go), "%s/go", fl.dir);
	snprintf(json, sizeof(json), "%s/vfork.json", fl.dir);
	shell = start_shell_ok(go);
	snprintf(pid_s, sizeof(pid_s), "%d", shell);
	h_session_start_ok(&fl, (const char *const[]){ "-f", "-p", pid_s, "-q", "-i", "0.1",
						       "--json", json, NULL });
	h_wait_ready_ok(&fl);
	f = fopen(go, "w");
	cr_assert(f, "%s: %s", go, strerror(errno));
	fclose(f);
	cr_assert_eq(waitpid(shell, &status, 0), shell);
	cr_assert(WIFEXITED(status) && !WEXITSTATUS(status), "the shell failed: %#x", status);
	/* its only target gone, faultline ends on its own */
	cr_assert_eq(h_wait_exit(&fl.proc, H_EXIT_MS), 0, "faultline did not end");
	cr_assert_eq(h_exit_code(&fl.proc), 0, "faultline: %s", h_read_file(fl.err_path));
	text = h_read_file(json);
	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON: %.300s", text);
	free(text);
	procs = jv_get(&doc, "processes");
	cr_assert(procs && procs->type == JV_ARR, "no processes in %s", json);
	for (size_t i = 0; i < procs->n; i++) {
		const struct jv *p = &procs->items[i];
		int64_t gap;

		if (strcmp(jv_get(p, "name")->text, "exiter"))
			continue;
		seen++;
		/* every exit's counters are kept: no exiter without kernel figures */
		if (jv_get(p, "gap")->type == JV_NULL)
			continue;
		reconciled++;
		read += jv_get(p, "status_now")->type != JV_NULL;
		gap = i64_at(p, "gap.anon");
		cr_expect(gap >= -GAP_SLACK && gap <= GAP_SLACK,
			  "exiter %" PRId64 ": anon gap %" PRId64 " B (kernel %" PRId64
			  " B, growth %" PRId64 " B, released %" PRId64 " B)",
			  i64_at(p, "pid"), gap, i64_at(p, "kernel_change.anon"),
			  i64_at(p, "attributed.growth.anon"),
			  i64_at(p, "attributed.released.anon"));
	}
	cr_log_info("%zu exiters, %zu reconciled, %zu of them read from /proc", seen, reconciled,
		    read);
	cr_expect_eq(seen, EXITERS, "%zu exiters in the JSON", seen);
	cr_expect_eq(reconciled, seen, "%zu of %zu exiters with kernel figures", reconciled, seen);
	jv_free(&doc);
}
