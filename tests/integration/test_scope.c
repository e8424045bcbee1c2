// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Scopes (-a, --cgroup): a cgroup made here holds a process moved in before the session and
 * one that joins during it (moved in, then exec'd, as a service manager starts one); a third
 * process stays outside. Each member's growth is found exact against its own /proc change,
 * the outsider is never seen. -a sees a program started after the session began, exact. A
 * cgroup removed mid-session ends it with its report; bad selectors give one line and exit 1.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "formats/jsonread.h"
#include "harness.h"

/* The threads workload's three touchers: 8 + 16 + 24 MiB of anonymous memory. */
#define THREADS_MIB 48

static char cg_v2[PATH_MAX], cg_v1[PATH_MAX];

static void rm_cgroups(void)
{
	if (cg_v2[0])
		rmdir(cg_v2);
	if (cg_v1[0])
		rmdir(cg_v1);
	cg_v2[0] = cg_v1[0] = '\0';
}

static void setup(void)
{
	h_require_root();
}

static void teardown(void)
{
	h_cleanup(); /* its processes gone first: a cgroup with members cannot be removed */
	rm_cgroups();
}

TestSuite(scope, .init = setup, .fini = teardown, .timeout = 120);

static bool is_dir_with(const char *dir, const char *file)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return access(p, F_OK) == 0;
}

/* A new cgroup v2 directory (and, on a hybrid host, its twin in the v1 memory hierarchy, so
 * that its memory is accounted where faultline reconciles it); skips without cgroup v2. */
static void make_cgroup_ok(const char *name)
{
	const char *root = is_dir_with("/sys/fs/cgroup", "cgroup.controllers") ?
				   "/sys/fs/cgroup" :
			   is_dir_with("/sys/fs/cgroup/unified", "cgroup.controllers") ?
				   "/sys/fs/cgroup/unified" :
				   NULL;

	if (!root)
		cr_skip_test("no cgroup v2 hierarchy on this machine");
	snprintf(cg_v2, sizeof(cg_v2), "%s/%s-%d", root, name, (int)getpid());
	cr_assert_eq(mkdir(cg_v2, 0755), 0, "mkdir %s: %s", cg_v2, strerror(errno));
	if (!strcmp(root, "/sys/fs/cgroup/unified") &&
	    is_dir_with("/sys/fs/cgroup/memory", "cgroup.procs")) {
		snprintf(cg_v1, sizeof(cg_v1), "/sys/fs/cgroup/memory/%s-%d", name, (int)getpid());
		cr_assert_eq(mkdir(cg_v1, 0755), 0, "mkdir %s: %s", cg_v1, strerror(errno));
	}
}

/* Starts the threads workload inside the cgroup: moved in, then exec'd (joincg). */
static void spawn_member_ok(struct h_proc *w)
{
	char procs2[PATH_MAX + 16], procs1[PATH_MAX + 16], prog[PATH_MAX];

	snprintf(procs2, sizeof(procs2), "%s/cgroup.procs", cg_v2);
	snprintf(procs1, sizeof(procs1), "%s/cgroup.procs", cg_v1);
	snprintf(prog, sizeof(prog), "%s/threads", getenv("WORKLOADS"));
	if (cg_v1[0])
		h_spawn_workload_ok(w, "joincg", (const char *const[]){ procs2, procs1, "--", prog, NULL });
	else
		h_spawn_workload_ok(w, "joincg", (const char *const[]){ procs2, "--", prog, NULL });
	cr_assert_eq(h_wait_line(w, "ready", H_LINE_MS), 0, "member %d not ready", w->pid);
}

/* The process of @pid in the --json document @doc, or NULL. */
static const struct jv *json_process(const struct jv *doc, pid_t pid)
{
	const struct jv *procs = jv_get(doc, "processes");
	int64_t p;

	for (size_t i = 0; procs && i < procs->n; i++)
		if (jv_i64(jv_get(&procs->items[i], "pid"), &p) && p == pid)
			return &procs->items[i];
	return NULL;
}

static int64_t json_i64_ok(const struct jv *v, const char *path)
{
	int64_t x = 0;

	cr_assert(jv_i64(jv_path(v, path), &x), "%s is not an integer", path);
	return x;
}

/*
 * @pid's anonymous growth in the document is THREADS_MIB within 2% (its work, and what it did
 * before it since it became a target: a few pages), and its net is the kernel's own change
 * within a few pages (the gap): exact against /proc, whose change over the work the kernel's
 * change covers.
 */
static void member_exact_ok(const struct jv *doc, pid_t pid, const struct h_rss *before,
			    const struct h_rss *after, const char *what)
{
	const struct jv *p = json_process(doc, pid);
	int64_t grow, kern, gap;

	cr_assert(p, "%s %d is not in the report", what, pid);
	grow = json_i64_ok(p, "attributed.growth.anon");
	kern = json_i64_ok(p, "kernel_change.anon");
	gap = json_i64_ok(p, "gap.anon");
	cr_expect(h_within((double)grow, THREADS_MIB * H_MIB),
		  "%s: anon growth %" PRId64 " B, the workload touches %d MiB", what, grow,
		  THREADS_MIB);
	cr_expect(kern >= after->anon - before->anon - 65536,
		  "%s: kernel change %" PRId64 " B, /proc's over the work alone %" PRId64 " B",
		  what, kern, after->anon - before->anon);
	cr_expect(gap >= -65536 && gap <= 65536,
		  "%s: gap %" PRId64 " B (kernel %" PRId64 " B, faultline growth %" PRId64 " B)",
		  what, gap, kern, grow);
	/* file pages too: a process moved in and exec'd counts the image it left (joincg's) */
	gap = json_i64_ok(p, "gap.file");
	cr_expect(gap >= -65536 && gap <= 65536, "%s: file gap %" PRId64 " B", what, gap);
}

/*
 * The report's "cgroups": the cgroup made here, with @nprocs processes traced, faultline's net
 * their kernel change within a few pages each, and, where the cgroup has memory counters (v2,
 * or the v1 twin), its own anon change that net within 5% (the cgroup also holds page tables'
 * and joincg's few pages).
 */
static void cgroup_reconciled_ok(const struct jv *doc, size_t nprocs)
{
	const struct jv *cgs = jv_get(doc, "cgroups"), *c;
	int64_t net, kern, start, now;
	uint64_t n;

	cr_assert(cgs && cgs->type == JV_ARR && cgs->n == 1, "\"cgroups\" is not one cgroup");
	c = &cgs->items[0];
	cr_expect(strstr(cg_v2, jv_get(c, "path")->text), "path %s, made %s",
		  jv_get(c, "path")->text, cg_v2);
	cr_expect(jv_u64(jv_get(c, "processes"), &n) && n == nprocs, "%" PRIu64 " processes", n);
	net = json_i64_ok(c, "attributed_net.anon");
	kern = json_i64_ok(c, "processes_kernel_change.anon");
	cr_expect(net - kern <= (int64_t)nprocs * 65536 && kern - net <= (int64_t)nprocs * 65536,
		  "net %" PRId64 " B, their kernel change %" PRId64 " B", net, kern);
	if (jv_get(c, "now")->type == JV_NULL) {
		cr_log_warn("cgroup %s has no memory counters here", cg_v2);
		return;
	}
	start = json_i64_ok(c, "at_start.anon");
	now = json_i64_ok(c, "now.anon");
	cr_expect(now - start >= net * 0.95 && now - start <= net * 1.05 + 1048576,
		  "cgroup anon change %" PRId64 " B, faultline net %" PRId64 " B", now - start,
		  net);
}

/* @pid's figures start where @want says (JSON "since": attach, fork or joined). */
static void since_ok(const struct jv *doc, pid_t pid, const char *want)
{
	const struct jv *p = json_process(doc, pid), *since = p ? jv_get(p, "since") : NULL;

	cr_expect(since && since->type == JV_STR && !strcmp(since->text, want),
		  "process %d: since %s, expected %s", pid, since ? since->text : "nothing", want);
}

static struct jv load_json_ok(const char *path)
{
	char *text = h_read_file(path);
	struct jv doc;

	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON: %.300s", text);
	free(text);
	return doc;
}

Test(scope, cgroup_members_before_and_after_outsider_never)
{
	struct h_proc before, after, outsider;
	struct h_rss b0, b1, a0, a1;
	struct h_folded folded;
	struct h_session fl;
	char json[128];
	struct jv doc;

	make_cgroup_ok("fltest");
	spawn_member_ok(&before);
	h_spawn_workload_ok(&outsider, "threads", NULL);
	cr_assert_eq(h_wait_line(&outsider, "ready", H_LINE_MS), 0);
	h_session_init_ok(&fl);
	snprintf(json, sizeof(json), "%s/scope.json", fl.dir);
	h_session_start_ok(&fl, (const char *const[]){ "-q", "-i", "0.2", "--json", json,
						       "--cgroup", cg_v2, "--by", "cgroup",
						       "--folded", fl.folded_path, NULL });
	h_wait_ready_ok(&fl);
	spawn_member_ok(&after);
	h_read_status_ok(before.pid, &b0);
	h_read_status_ok(after.pid, &a0);
	h_kill_ok(before.pid, SIGUSR1);
	h_kill_ok(after.pid, SIGUSR1);
	h_kill_ok(outsider.pid, SIGUSR1);
	cr_assert_eq(h_wait_line(&before, "done", H_WORK_MS), 0);
	cr_assert_eq(h_wait_line(&after, "done", H_WORK_MS), 0);
	cr_assert_eq(h_wait_line(&outsider, "done", H_WORK_MS), 0);
	h_read_status_ok(before.pid, &b1);
	h_read_status_ok(after.pid, &a1);
	h_kill_ok(fl.proc.pid, SIGINT);
	cr_assert_eq(h_wait_exit(&fl.proc, H_EXIT_MS), 0, "faultline did not end");
	cr_assert_eq(h_exit_code(&fl.proc), 0, "faultline: %s", h_read_file(fl.err_path));
	doc = load_json_ok(json);
	member_exact_ok(&doc, before.pid, &b0, &b1, "member moved in before the session");
	member_exact_ok(&doc, after.pid, &a0, &a1, "member that joined during it");
	since_ok(&doc, before.pid, "attach");
	since_ok(&doc, after.pid, "joined");
	cr_expect(!json_process(&doc, outsider.pid), "the outsider %d was traced",
		  outsider.pid);
	cgroup_reconciled_ok(&doc, 2);
	jv_free(&doc);
	/* --by cgroup: the cgroup above each process, the only one traced */
	h_folded_load_ok(fl.folded_path, &folded);
	h_folded_root_ok(&folded, strrchr(cg_v2, '/'));
	cr_expect(h_folded_frame(&folded, "touch_c") > 0, "no stack of the workloads");
	h_folded_free(&folded);
}

Test(scope, host_sees_a_program_started_later)
{
	struct h_proc w;
	struct h_rss r0, r1;
	struct h_session fl;
	char json[128];
	struct jv doc;

	h_session_init_ok(&fl);
	snprintf(json, sizeof(json), "%s/host.json", fl.dir);
	h_session_start_ok(&fl, (const char *const[]){ "-q", "-a", "-i", "0.2", "--json", json,
						       NULL });
	h_wait_ready_ok(&fl);
	h_spawn_workload_ok(&w, "threads", NULL);
	cr_assert_eq(h_wait_line(&w, "ready", H_LINE_MS), 0);
	h_read_status_ok(w.pid, &r0);
	h_kill_ok(w.pid, SIGUSR1);
	cr_assert_eq(h_wait_line(&w, "done", H_WORK_MS), 0);
	h_read_status_ok(w.pid, &r1);
	h_kill_ok(fl.proc.pid, SIGINT);
	cr_assert_eq(h_wait_exit(&fl.proc, H_EXIT_MS), 0, "faultline did not end");
	cr_assert_eq(h_exit_code(&fl.proc), 0, "faultline: %s", h_read_file(fl.err_path));
	doc = load_json_ok(json);
	member_exact_ok(&doc, w.pid, &r0, &r1, "a program started after -a began");
	since_ok(&doc, w.pid, "fork");
	cr_expect(!json_process(&doc, fl.proc.pid), "faultline traced itself");
	jv_free(&doc);
}

Test(scope, cgroup_removed_ends_the_session)
{
	struct h_session fl;
	char *err;

	make_cgroup_ok("flgone");
	h_session_init_ok(&fl);
	h_session_start_ok(&fl, (const char *const[]){ "-q", "-i", "0.2", "--cgroup", cg_v2,
						       NULL });
	h_wait_ready_ok(&fl);
	rm_cgroups();
	cr_assert_eq(h_wait_exit(&fl.proc, H_EXIT_MS), 0,
		     "faultline went on after its cgroup was removed");
	err = h_read_file(fl.err_path);
	cr_expect_eq(h_exit_code(&fl.proc), 0, "exit %d: %s", h_exit_code(&fl.proc), err);
	cr_expect(strstr(err, "was removed: the session ends"), "stderr: %s", err);
	free(err);
}

/* One run of faultline with @args that must fail at once with status @code and a stderr whose
 * only line holds @needle. */
static void refused_ok(const char *const *args, int code, const char *needle)
{
	struct h_session fl;
	char *err;

	h_session_init_ok(&fl);
	h_session_start_ok(&fl, args);
	cr_assert_eq(h_wait_exit(&fl.proc, H_EXIT_MS), 0, "faultline did not end");
	err = h_read_file(fl.err_path);
	cr_expect_eq(h_exit_code(&fl.proc), code, "%s: exit %d, stderr: %s", args[1],
		     h_exit_code(&fl.proc), err);
	cr_expect(strstr(err, needle), "%s: stderr lacks '%s': %s", args[1], needle, err);
	cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "more than one line: %s", err);
	free(err);
}

Test(scope, bad_selectors_one_line_each)
{
	refused_ok((const char *const[]){ "--cgroup", "/sys/fs/cgroup/unified/no-such-cgroup-fl",
					  NULL },
		   1, "--cgroup /sys/fs/cgroup/unified/no-such-cgroup-fl: ");
	refused_ok((const char *const[]){ "--cgroup", "no-such-unit-fl.service", NULL }, 1,
		   "no-such-unit-fl.service");
	refused_ok((const char *const[]){ "--cgroup", "0123456789abcdef0123", NULL }, 1,
		   "0123456789abcdef0123");
	refused_ok((const char *const[]){ "-a", "--cgroup", "x.service", NULL }, 2,
		   "adds nothing");
	refused_ok((const char *const[]){ "-a", "--alloc", NULL }, 2, "--alloc with -a");
}
