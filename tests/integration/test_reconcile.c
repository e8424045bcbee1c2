/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Each process's attribution against the kernel's own counters where /proc cannot say it all.
 * Children made by vfork (a shell's commands: dash, posix_spawn) share their parent's mm until
 * their exec. What they change in it is the parent's; their own counters start at their exec.
 * A shell traced since before its commands (-f -p) runs exiters one after the other: each
 * exiter's kernel change is its image's, and reconciles with what faultline attributed to it
 * within a page. It once did for only every other child: a child that touched the shell's mm
 * before the shell's own next change took that mm's state as its own, and its kernel change
 * lost the shell's 112 KiB of anonymous memory. Those read from /proc and those gone before
 * (reconciled from their counters at exit) alike. A given target (-p) that execs and exits
 * before the next read is reconciled from its counters too: the image it left as its exec
 * tore it down, the last one as its exit began. A forked child that changes nothing of a kind
 * while it lives (a shell's command substitution) has no value of that kind until its
 * teardown, which is no baseline.
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

TestSuite(reconcile, .init = setup, .fini = h_cleanup, .timeout = 90);

#define EXITERS 12
/* a page: a fault-around or a stack page may land on either side of a baseline */
#define GAP_SLACK 4096

static int64_t i64_at(const struct jv *v, const char *path)
{
	int64_t x = 0;

	cr_assert(jv_i64(jv_path(v, path), &x), "%s is not an integer", path);
	return x;
}

/* `@shell -c @script`, started before the session. */
static pid_t start_shell_ok(const char *shell, const char *script)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (!pid) {
		execlp(shell, shell, "-c", script, (char *)NULL);
		_exit(127);
	}
	h_track(pid);
	return pid;
}

/*
 * `faultline @opts -p PID --json` on @shell running @work once the session has begun (a "%s"
 * in @work is the path of the workloads), to the shell's exit and faultline's, which ends with
 * its target: the document into @doc.
 */
static void shell_session_ok(const char *opts, const char *shell, const char *work, struct jv *doc)
{
	char script[1024], body[512], pid_s[16], json[128], go[128], *text;
	struct h_session fl;
	pid_t pid;
	int status;
	FILE *f;

	h_session_init_ok(&fl);
	snprintf(go, sizeof(go), "%s/go", fl.dir);
	snprintf(json, sizeof(json), "%s/shell.json", fl.dir);
	snprintf(body, sizeof(body), work, getenv("WORKLOADS"));
	snprintf(script, sizeof(script), "while [ ! -e %s ]; do sleep 0.02; done; %s", go, body);
	pid = start_shell_ok(shell, script);
	snprintf(pid_s, sizeof(pid_s), "%d", pid);
	h_session_start_ok(&fl, (const char *const[]){ opts, "-p", pid_s, "-q", "-i", "0.1",
						       "--json", json, NULL });
	h_wait_ready_ok(&fl);
	f = fopen(go, "w");
	cr_assert(f, "%s: %s", go, strerror(errno));
	fclose(f);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && !WEXITSTATUS(status), "the shell failed: %#x", status);
	cr_assert_eq(h_wait_exit(&fl.proc, H_EXIT_MS), 0, "faultline did not end");
	cr_assert_eq(h_exit_code(&fl.proc), 0, "faultline: %s", h_read_file(fl.err_path));
	text = h_read_file(json);
	cr_assert_eq(jv_parse(text, strlen(text), doc), 0, "--json: not JSON: %.300s", text);
	free(text);
	cr_assert(jv_get(doc, "processes") && jv_get(doc, "processes")->type == JV_ARR,
		  "no processes in %s", json);
}

/* Whether @p's gap is within a page of each kind; says which is not. */
static void gap_within_a_page(const struct jv *p, const char *what)
{
	static const char *const kinds[] = { "anon", "file", "shmem" };
	char path[32];

	cr_assert(jv_get(p, "gap")->type != JV_NULL, "%s %" PRId64 ": no kernel figures", what,
		  i64_at(p, "pid"));
	for (int i = 0; i < 3; i++) {
		int64_t gap;

		snprintf(path, sizeof(path), "gap.%s", kinds[i]);
		gap = i64_at(p, path);
		snprintf(path, sizeof(path), "kernel_change.%s", kinds[i]);
		cr_expect(gap >= -GAP_SLACK && gap <= GAP_SLACK,
			  "%s %" PRId64 ": %s gap %" PRId64 " B (kernel %" PRId64 " B)", what,
			  i64_at(p, "pid"), kinds[i], gap, i64_at(p, path));
	}
}

Test(reconcile, vfork_children_of_an_attached_shell)
{
	char work[256];
	size_t seen = 0, read = 0;
	const struct jv *procs;
	struct jv doc;

	snprintf(work, sizeof(work),
		 "i=0; while [ $i -lt %d ]; do %%s/exiter --now 1 100 >/dev/null; i=$((i + 1)); "
		 "done",
		 EXITERS);
	shell_session_ok("-f", "sh", work, &doc);
	procs = jv_get(&doc, "processes");
	for (size_t i = 0; i < procs->n; i++) {
		const struct jv *p = &procs->items[i];

		if (strcmp(jv_get(p, "name")->text, "exiter"))
			continue;
		seen++;
		read += jv_get(p, "status_now")->type != JV_NULL;
		/* every exit's counters are kept: read from /proc or not, each is reconciled */
		gap_within_a_page(p, "exiter");
	}
	cr_log_info("%zu exiters, %zu of them read from /proc", seen, read);
	cr_expect_eq(seen, EXITERS, "%zu exiters in the JSON", seen);
	jv_free(&doc);
}

/* The shell execs an exiter (4 MiB, gone at once): its kernel change is both images'. */
Test(reconcile, attached_target_that_execs_and_exits)
{
	const struct jv *p;
	struct jv doc;

	shell_session_ok("-q", "sh", "exec %s/exiter --now 4 0 >/dev/null", &doc);
	cr_assert_eq(jv_get(&doc, "processes")->n, 1);
	p = &jv_get(&doc, "processes")->items[0];
	gap_within_a_page(p, "the target");
	cr_expect_geq(i64_at(p, "kernel_change.anon"), 4 * 1048576, "kernel anon change %" PRId64,
		      i64_at(p, "kernel_change.anon"));
	jv_free(&doc);
}

/* 20 subshells in bash, each a fork (not a vfork) that runs a sleep and changes no anonymous
 * page itself while it lives (16 KiB of gap each before: its teardown's first value taken for
 * its baseline). */
Test(reconcile, fork_children_that_change_little)
{
	const struct jv *procs;
	size_t children = 0;
	struct jv doc;

	shell_session_ok("-f", "bash",
			 "i=0; while [ $i -lt 20 ]; do ( sleep 0.05; : ); i=$((i + 1)); done",
			 &doc);
	procs = jv_get(&doc, "processes");
	for (size_t i = 0; i < procs->n; i++) {
		const struct jv *p = &procs->items[i];

		if (!jv_get(p, "followed")->b)
			continue;
		children++;
		gap_within_a_page(p, "child");
	}
	cr_expect_geq(children, 40, "%zu children in the JSON", children);
	jv_free(&doc);
}
