/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * -f (follow the children): the forker workload forks a child after faultline attached; the
 * child's growth is found in its own process line and under child_grow, measured against the
 * kernel's own RssAnon change of the child; the 16 MiB it inherits from fork are not growth;
 * without -f the child is not seen; a child that execs is renamed and symbolized again; a real
 * forking server (redis BGSAVE) has its child listed; a swarm of children that map their
 * parent's shared memory is summarized by executable, and the table says the shared pages
 * make the growth overstate the machine's cost.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
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

TestSuite(children, .init = setup, .fini = h_cleanup, .timeout = 90);

#define CHILD_MIB 32
#define PARENT_MIB 8

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Waits until faultline's stderr holds @needle: true, or false after @ms. */
static bool wait_stderr(const struct h_session *s, const char *needle, int ms)
{
	for (int waited = 0;; waited += 10) {
		char *err = h_read_file(s->err_path);
		bool found = strstr(err, needle) != NULL;

		free(err);
		if (found || waited >= ms)
			return found;
		sleep_ms(10);
	}
}

/* The process table's line of @pid in @report (a copy; caller frees), or NULL. */
static char *proc_line(const char *report, pid_t pid)
{
	char head[16];
	const char *s = report;
	size_t len;

	snprintf(head, sizeof(head), "%7d ", (int)pid);
	len = strlen(head);
	for (; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
		if (!strncmp(s, head, len)) {
			const char *nl = strchr(s, '\n');

			return strndup(s, nl ? (size_t)(nl - s) : strlen(s));
		}
	}
	return NULL;
}

/* "32.0 MiB" as bytes. */
static double figure(double v, const char *unit)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB" };

	for (int i = 0; i < 4; i++, v *= 1024)
		if (!strcmp(unit, units[i]))
			return v;
	return -1;
}

/* The ANON column of a process line (PID NAME STATE ANON ...); name and state returned. */
static double line_anon(const char *line, char name[32], char state[16])
{
	char unit[8];
	double v;
	int pid;

	if (sscanf(line, "%d %31s %15s %lf %7s", &pid, name, state, &v, unit) != 5)
		return -1;
	return figure(v, unit);
}

/* Figure @col (0: ANON, ... 4: KERNEL-D) of a process line, in bytes; -1 when unreadable.
 * Frees @line. */
static double line_figure(char *line, int col)
{
	char unit[8], *s = line;
	double v = -1;

	/* skip PID, NAME, STATE, then two words per figure */
	for (int words = 0; s && words < 3 + 2 * col; words++) {
		s += strspn(s, " ");
		s += strcspn(s, " ");
	}
	if (!s || sscanf(s, "%lf %7s", &v, unit) != 2)
		v = -1;
	else
		v = figure(v, unit);
	free(line);
	return v;
}

struct fork_run {
	struct h_proc wl;
	struct h_session fl;
	pid_t child;
	struct h_rss parent_before, parent_after, child_before, child_after;
	struct h_folded folded;
	char *report;
};

/*
 * forker under `faultline -q -v -p PID --folded F --metric anon -i 0.2 [-f]`, every step
 * synchronised so both processes' status is read around their work. @found: the child grows
 * only once faultline has found it (else it lives for a few milliseconds, and is gone when
 * faultline looks). @settle: a refresh reads the child's status after its work, before it
 * exits; else it exits at once, and its RSS at exit is the BPF side's.
 */
static void fork_run_ok(struct fork_run *r, bool follow, bool found, bool settle)
{
	const char *fl[16] = { "-q", "-v", "--metric", "anon", "-i", "0.2", "--folded" };
	size_t n = 7;
	char pid[16], needle[64];
	int err;

	memset(r, 0, sizeof(*r));
	h_spawn_workload_ok(&r->wl, "forker", NULL);
	cr_assert_eq(h_wait_line(&r->wl, "ready", H_LINE_MS), 0, "forker never got ready");
	h_session_init_ok(&r->fl);
	snprintf(pid, sizeof(pid), "%d", r->wl.pid);
	fl[n++] = r->fl.folded_path;
	if (follow)
		fl[n++] = "-f";
	fl[n++] = "-p";
	fl[n++] = pid;
	h_session_start_ok(&r->fl, fl);
	h_wait_ready_ok(&r->fl);
	h_read_status_ok(r->wl.pid, &r->parent_before);

	h_kill_ok(r->wl.pid, SIGUSR1);
	err = h_wait_line(&r->wl, "child ready", H_LINE_MS);
	cr_assert_eq(err, 0, "no \"child ready\": %s", strerror(-err));
	r->child = h_find_child(r->wl.pid, H_LINE_MS);
	cr_assert_gt(r->child, 0, "forker's child not found in /proc");
	h_track(r->child);
	h_read_status_ok(r->child, &r->child_before);
	snprintf(needle, sizeof(needle), "following new process %d (forker)", (int)r->child);
	if (found)
		cr_assert(wait_stderr(&r->fl, needle, H_LINE_MS),
			  "faultline never found the child");
	h_kill_ok(r->child, SIGUSR1);
	err = h_wait_line(&r->wl, "child done", H_WORK_MS);
	cr_assert_eq(err, 0, "no \"child done\": %s", strerror(-err));
	h_read_status_ok(r->child, &r->child_after);
	if (found && settle)
		sleep_ms(400); /* a refresh reads its status after its work, before its exit */
	/* the child exits now: its rows must outlive it */
	h_kill_ok(r->child, SIGUSR2);
	err = h_wait_line(&r->wl, "done", H_WORK_MS);
	cr_assert_eq(err, 0, "forker never printed \"done\": %s", strerror(-err));
	h_read_status_ok(r->wl.pid, &r->parent_after);
	sleep_ms(300); /* a refresh or more after the child's exit */

	h_kill_ok(r->fl.proc.pid, SIGINT);
	cr_assert_eq(h_wait_exit(&r->fl.proc, H_EXIT_MS), 0, "faultline did not exit on SIGINT");
	cr_assert_eq(h_exit_code(&r->fl.proc), 0, "faultline exited with %d; stderr:\n%s",
		     h_exit_code(&r->fl.proc), h_read_file(r->fl.err_path));
	h_kill_ok(r->wl.pid, SIGUSR2);
	cr_assert_eq(h_wait_exit(&r->wl, H_EXIT_MS), 0, "forker did not exit");
	h_folded_load_ok(r->fl.folded_path, &r->folded);
	r->report = h_read_file(r->fl.out_path);
}

/* The checks of a -f run on the folded stacks and the process lines; @found as above. */
static void check_followed(struct fork_run *r, bool found)
{
	int64_t child_delta, parent_delta;
	char name[32], state[16], *line;
	double anon;

	child_delta = r->child_after.anon - r->child_before.anon;
	parent_delta = r->parent_after.anon - r->parent_before.anon;
	cr_log_info("child %d: RssAnon %+lld B; child_grow %llu B; parent: RssAnon %+lld B, "
		    "parent_grow %llu B",
		    (int)r->child, (long long)child_delta,
		    (unsigned long long)h_folded_frame(&r->folded, "child_grow"),
		    (long long)parent_delta,
		    (unsigned long long)h_folded_frame(&r->folded, "parent_grow"));
	h_within_ok("child_grow vs the child's RssAnon change",
		    h_folded_frame(&r->folded, "child_grow"), child_delta, &r->folded);
	h_within_ok("child_grow", h_folded_frame(&r->folded, "child_grow"),
		    (int64_t)(CHILD_MIB * H_MIB), &r->folded);
	h_within_ok("child_grow under child", h_folded_edge(&r->folded, "child", "child_grow"),
		    (int64_t)(CHILD_MIB * H_MIB), &r->folded);
	h_within_ok("parent_grow", h_folded_frame(&r->folded, "parent_grow"),
		    (int64_t)(PARENT_MIB * H_MIB), &r->folded);
	/* the 16 MiB the child inherited at fork are in neither process's growth */
	h_within_ok("all anon growth vs both RssAnon changes", h_folded_total(&r->folded),
		    child_delta + parent_delta, &r->folded);
	cr_expect_eq(h_folded_frame(&r->folded, "before_fork"), 0,
		     "before_fork's pages (before attach, copied by fork) counted");

	line = proc_line(r->report, r->child);
	cr_assert(line, "no process line for child %d in the report:\n%s", (int)r->child,
		  r->report);
	anon = line_anon(line, name, state);
	cr_expect_str_eq(name, "forker");
	cr_expect_str_eq(state, "exited", "the child exited: %s", line);
	cr_expect(h_within(anon, (double)child_delta),
		  "child's ANON %.0f B, RssAnon change %lld: %s", anon, (long long)child_delta,
		  line);
	free(line);
	line = proc_line(r->report, r->wl.pid);
	cr_assert(line, "no process line for the parent:\n%s", r->report);
	anon = line_anon(line, name, state);
	cr_expect(h_within(anon, (double)parent_delta), "parent's ANON %.0f B, RssAnon %lld: %s",
		  anon, (long long)parent_delta, line);
	free(line);
	if (found) {
		char *gap = strstr(r->report, "kernel change since fork");

		cr_assert(gap, "no detailed block of the child:\n%s", r->report);
		cr_expect(h_within(line_figure(proc_line(r->report, r->child), 4),
				   (double)(r->child_after.anon + r->child_after.file -
					    r->child_before.anon - r->child_before.file)),
			  "the child's KERNEL-D is not its RSS change:\n%s", r->report);
	}
	free(r->report);
	h_folded_free(&r->folded);
}

/* Found while alive: its status at that moment starts its kernel figures. */
Test(children, forked_child_followed)
{
	struct fork_run r;

	fork_run_ok(&r, true, true, true);
	check_followed(&r, true);
}

/* Exits right after its work, no read of /proc between: its RSS at exit, and so its KERNEL-D,
 * are the counters the BPF side kept as its teardown began (a read during the teardown sees
 * part of it gone; a postgres backend per pgbench -C transaction showed gaps of 0.5-11 MiB). */
Test(children, rss_at_exit_without_a_read_after_the_work)
{
	struct fork_run r;

	fork_run_ok(&r, true, true, false);
	check_followed(&r, true);
}

/* Gone within milliseconds, before faultline looked: named from its parent's image, its rows
 * kept, shown as exited. */
Test(children, short_lived_child_named_from_parent)
{
	struct fork_run r;

	fork_run_ok(&r, true, false, true);
	check_followed(&r, false);
}

Test(children, without_f_child_not_seen)
{
	struct fork_run r;
	char *line;

	fork_run_ok(&r, false, false, true);
	cr_expect_eq(h_folded_frame(&r.folded, "child_grow"), 0, "the child was traced");
	h_within_ok("parent_grow", h_folded_frame(&r.folded, "parent_grow"),
		    (int64_t)(PARENT_MIB * H_MIB), &r.folded);
	line = proc_line(r.report, r.child);
	cr_expect_null(line, "the child is in the report: %s", line);
	cr_expect_null(strstr(r.report, "processes by"), "a process table for one process");
	free(line);
	free(r.report);
	h_folded_free(&r.folded);
}

/* Lines whose process frame is @root and which hold frame @name. */
static uint64_t rooted_frame(const struct h_folded *f, const char *root, const char *name)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct h_fline *l = &f->lines[i];

		if (!l->nframes || strcmp(l->frames[0], root))
			continue;
		for (size_t j = 1; j < l->nframes; j++)
			if (!strcmp(l->frames[j], name)) {
				sum += l->value;
				break;
			}
	}
	return sum;
}

/*
 * The child is found as "forker", then execs `exiter --now 8 1500` (8 MiB in
 * touch_before_exit, then 1.5 s alive): its new name and the symbols of its new image must
 * show, the old image's frames must not name the new one's stacks.
 */
Test(children, exec_reloads_name_and_symbols)
{
	char exiter[512], pid[16], needle[64], *err, *report, *line;
	const char *wl[] = { "0", "0", "0", exiter, "8", "1500", NULL };
	struct h_session fl;
	struct h_folded f;
	struct h_proc w;
	char name[32], state[16];
	pid_t child;

	snprintf(exiter, sizeof(exiter), "%s/exiter", getenv("WORKLOADS"));
	h_spawn_workload_ok(&w, "forker", wl);
	cr_assert_eq(h_wait_line(&w, "ready", H_LINE_MS), 0, "forker never got ready");
	h_session_init_ok(&fl);
	snprintf(pid, sizeof(pid), "%d", w.pid);
	h_session_start_ok(&fl, (const char *const[]){ "-q", "-v", "-f", "-i", "0.2", "--folded",
						       fl.folded_path, "-p", pid, NULL });
	h_wait_ready_ok(&fl);
	h_kill_ok(w.pid, SIGUSR1);
	cr_assert_eq(h_wait_line(&w, "child ready", H_LINE_MS), 0, "no \"child ready\"");
	child = h_find_child(w.pid, H_LINE_MS);
	cr_assert_gt(child, 0);
	h_track(child);
	snprintf(needle, sizeof(needle), "following new process %d (forker)", (int)child);
	cr_assert(wait_stderr(&fl, needle, H_LINE_MS), "faultline never found the child");
	h_kill_ok(child, SIGUSR1);
	cr_assert_eq(h_wait_line(&w, "done", H_WORK_MS), 0, "forker never printed \"done\"");
	h_kill_ok(fl.proc.pid, SIGINT);
	cr_assert_eq(h_wait_exit(&fl.proc, H_EXIT_MS), 0);
	cr_assert_eq(h_exit_code(&fl.proc), 0);
	h_kill_ok(w.pid, SIGUSR2);

	err = h_read_file(fl.err_path);
	snprintf(needle, sizeof(needle), "process %d exec'd: now exiter", (int)child);
	cr_expect(strstr(err, needle), "no exec noticed; stderr:\n%s", err);
	free(err);
	h_folded_load_ok(fl.folded_path, &f);
	h_within_ok("touch_before_exit under the exec'd child's new name",
		    rooted_frame(&f, "exiter", "touch_before_exit"), (int64_t)(8 * H_MIB), &f);
	h_within_ok("main;touch_before_exit: the new image's symbols",
		    h_folded_edge(&f, "main", "touch_before_exit"), (int64_t)(8 * H_MIB), &f);
	report = h_read_file(fl.out_path);
	line = proc_line(report, child);
	cr_assert(line, "no line for child %d:\n%s", (int)child, report);
	line_anon(line, name, state);
	cr_expect_str_eq(name, "exiter", "%s", line);
	free(line);
	free(report);
	h_folded_free(&f);
}

/* Runs `redis-cli -p PORT ARGS` and returns its output (malloc'ed, "" on failure). */
static char *redis_cli(int port, const char *args)
{
	char cmd[512], *out = NULL;
	size_t len = 0;
	FILE *p, *m = open_memstream(&out, &len);
	int c;

	snprintf(cmd, sizeof(cmd), "redis-cli -p %d %s 2>/dev/null", port, args);
	p = popen(cmd, "r");
	while (p && m && (c = fgetc(p)) != EOF)
		fputc(c, m);
	if (p)
		pclose(p);
	if (m)
		fclose(m);
	return out ? out : strdup("");
}

static bool redis_says(int port, const char *args, const char *want)
{
	char *out = redis_cli(port, args);
	bool yes = strstr(out, want) != NULL;

	free(out);
	return yes;
}

/* A real forking server: BGSAVE makes redis fork a child that writes the RDB file. */
Test(children, redis_bgsave_child)
{
	char dir[64], port_s[16], pid_s[16], *report, *err;
	struct h_session fl;
	int port, tries;
	pid_t redis, child = -1;

	if (access("/usr/bin/redis-server", X_OK) && system("command -v redis-server >/dev/null"))
		cr_skip_test("redis-server is not installed (apt-get install redis-server)");
	h_temp_dir_ok(dir);
	srand((unsigned)(getpid() ^ time(NULL)));
	/* below the ephemeral range (32768 on): a client elsewhere may hold a port there */
	port = 20000 + rand() % 12000;
	snprintf(port_s, sizeof(port_s), "%d", port);
	redis = fork();
	cr_assert_geq(redis, 0);
	if (!redis) {
		freopen("/dev/null", "w", stdout);
		execlp("redis-server", "redis-server", "--port", port_s, "--bind", "127.0.0.1",
		       "--dir", dir, "--save", "", "--appendonly", "no", (char *)NULL);
		_exit(127);
	}
	h_track(redis);
	for (tries = 0; tries < 200 && !redis_says(port, "ping", "PONG"); tries++)
		sleep_ms(25);
	cr_assert_lt(tries, 200, "redis-server on port %d never answered", port);
	free(redis_cli(port, "eval \"for i=1,20000 do redis.call('set','k'..i,string.rep('x',"
			     "200)) end\" 0"));

	h_session_init_ok(&fl);
	snprintf(pid_s, sizeof(pid_s), "%d", redis);
	h_session_start_ok(&fl, (const char *const[]){ "-q", "-v", "-f", "-i", "0.2", "-p", pid_s,
						       NULL });
	h_wait_ready_ok(&fl);
	cr_assert(redis_says(port, "bgsave", "Background saving started"), "bgsave refused");
	for (tries = 0; tries < 400; tries++) {
		if (redis_says(port, "info persistence", "rdb_bgsave_in_progress:0") &&
		    redis_says(port, "info persistence", "rdb_last_bgsave_status:ok"))
			break;
		sleep_ms(25);
	}
	cr_assert_lt(tries, 400, "bgsave never finished");
	sleep_ms(400);
	h_kill_ok(fl.proc.pid, SIGINT);
	cr_assert_eq(h_wait_exit(&fl.proc, H_EXIT_MS), 0);
	cr_assert_eq(h_exit_code(&fl.proc), 0);
	kill(redis, SIGKILL);
	waitpid(redis, NULL, 0);

	err = h_read_file(fl.err_path);
	cr_assert(sscanf(strstr(err, "following new process ") ?: "", "following new process %d",
			 &child) == 1,
		  "the bgsave child was not followed; stderr:\n%s", err);
	report = h_read_file(fl.out_path);
	cr_expect(strstr(report, "processes by resident: 2,"), "no table of 2 processes:\n%s",
		  report);
	{
		char *line = proc_line(report, child);

		cr_expect(line, "no line for the bgsave child %d:\n%s", (int)child, report);
		cr_expect(line && strstr(line, "exited"), "%s", line);
		free(line);
	}
	free(report);
	free(err);
}

#define SWARM_CHILDREN 8
#define SWARM_CHILD_MIB 8
#define SWARM_SHARED_MIB 64
/*
 * A child's private cost is what it wrote (Pss_Anon) and its page tables (VmPTE: 184 KiB here
 * for its 72 MiB mapped) and its share of the pages it still shares with its parent (a few
 * KiB): at most 5% above what it wrote.
 */
#define SWARM_PRIVATE_SLACK 0.05

/* Waits until faultline's stderr holds @needle @n times or more: true, or false after @ms. */
static bool wait_stderr_count(const struct h_session *s, const char *needle, int n, int ms)
{
	for (int waited = 0;; waited += 10) {
		char *err = h_read_file(s->err_path);
		int found = 0;

		for (const char *p = err; (p = strstr(p, needle)); p++)
			found++;
		free(err);
		if (found >= n || waited >= ms)
			return found >= n;
		sleep_ms(10);
	}
}

static uint64_t json_u64_ok(const struct jv *v, const char *path)
{
	uint64_t x = 0;

	cr_assert(jv_u64(jv_path(v, path), &x), "%s is not an unsigned integer", path);
	return x;
}

static int64_t json_i64_ok(const struct jv *v, const char *path)
{
	int64_t x = 0;

	cr_assert(jv_i64(jv_path(v, path), &x), "%s is not an integer", path);
	return x;
}

/*
 * The case: a parent with 64 MiB of shared memory and 8 children that each map it and
 * write 8 MiB of their own. The machine gains 64 MiB; the summed growth says some 580 MiB.
 * The final table has one row for the executable (9 processes, 9 alive, all read), its three
 * costliest and "[6 more swarm processes]", a median private cost of one child's own writes,
 * and the note on shared pages; JSON has the same group with every pid, and the figures of
 * the note: the PSS rose by what the children wrote.
 */
Test(children, swarm_summarized_by_executable)
{
	char pid[16], json[128], *report, *line, *text;
	const char *wl[] = { "8", "8", "64", NULL };
	const uint64_t own = SWARM_CHILD_MIB * H_MIB;
	unsigned long procs, alive, unread;
	const struct jv *groups, *g;
	struct h_session fl;
	struct h_proc w;
	struct jv doc;
	int err;

	h_spawn_workload_ok(&w, "swarm", wl);
	cr_assert_eq(h_wait_line(&w, "ready", H_LINE_MS), 0, "swarm never got ready");
	h_session_init_ok(&fl);
	snprintf(pid, sizeof(pid), "%d", w.pid);
	snprintf(json, sizeof(json), "%s/swarm.json", fl.dir);
	h_session_start_ok(&fl, (const char *const[]){ "-q", "-v", "-f", "-i", "0.2", "--json",
						       json, "-p", pid, NULL });
	h_wait_ready_ok(&fl);
	h_kill_ok(w.pid, SIGUSR1);
	err = h_wait_line(&w, "forked 8", H_LINE_MS);
	cr_assert_eq(err, 0, "no \"forked 8\": %s", strerror(-err));
	/* found while alive, before their work: each one's figures start at its fork */
	cr_assert(wait_stderr_count(&fl, "following new process", SWARM_CHILDREN, H_LINE_MS),
		  "faultline did not find the %d children:\n%s", SWARM_CHILDREN,
		  h_read_file(fl.err_path));
	h_kill_ok(w.pid, SIGUSR1);
	err = h_wait_line(&w, "done", H_WORK_MS);
	cr_assert_eq(err, 0, "swarm never printed \"done\": %s", strerror(-err));
	h_kill_ok(fl.proc.pid, SIGINT);
	cr_assert_eq(h_wait_exit(&fl.proc, H_EXIT_MS), 0, "faultline did not exit on SIGINT");
	cr_assert_eq(h_exit_code(&fl.proc), 0, "faultline exited with %d:\n%s",
		     h_exit_code(&fl.proc), h_read_file(fl.err_path));
	h_kill_ok(w.pid, SIGUSR2);
	cr_assert_eq(h_wait_exit(&w, H_EXIT_MS), 0, "swarm did not exit");

	report = h_read_file(fl.out_path);
	cr_log_info("%.3000s", report);
	line = strstr(report, "\nswarm ");
	cr_assert(line, "no row for the executable:\n%s", report);
	cr_assert_eq(sscanf(line, "\nswarm %lu %lu %lu", &procs, &alive, &unread), 3, "%.120s",
		     line);
	cr_expect_eq(procs, SWARM_CHILDREN + 1, "the parent and its children: %.120s", line);
	cr_expect_eq(alive, SWARM_CHILDREN + 1, "%.120s", line);
	cr_expect_eq(unread, 0, "every one read: %.120s", line);
	cr_expect(strstr(report, "[6 more swarm processes]"), "the costliest three only:\n%s",
		  report);
	cr_expect(strstr(report, "\nnote: shared pages count in each process: RSS +"),
		  "no note on shared pages:\n%s", report);
	free(report);

	text = h_read_file(json);
	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON: %.300s", text);
	groups = jv_get(&doc, "process_groups");
	cr_assert(groups && groups->type == JV_ARR && groups->n == 1, "process_groups: %.300s",
		  text);
	g = &groups->items[0];
	cr_expect_str_eq(jv_get(g, "name")->text, "swarm");
	cr_expect_eq(json_u64_ok(g, "processes"), SWARM_CHILDREN + 1);
	cr_expect_eq(jv_get(g, "pids")->n, SWARM_CHILDREN + 1, "every pid");
	cr_expect_eq(json_u64_ok(g, "private_cost.known"), SWARM_CHILDREN + 1);
	{
		uint64_t median = json_u64_ok(g, "private_cost.median");
		uint64_t growth = json_u64_ok(g, "growth");

		cr_log_info("median private cost %" PRIu64 " B (a child wrote %" PRIu64
			    "), growth %" PRIu64 " B",
			    median, own, growth);
		cr_expect(median >= own && median <= own + (uint64_t)(SWARM_PRIVATE_SLACK * own),
			  "median private cost %" PRIu64 " B, a child wrote %" PRIu64 " B", median,
			  own);
		/* each child: its own writes, and the shared memory counted again */
		cr_expect(h_within((double)growth,
				   (double)(SWARM_CHILDREN * (SWARM_CHILD_MIB + SWARM_SHARED_MIB) *
					    H_MIB)),
			  "growth %" PRIu64 " B", growth);
	}
	cr_expect(jv_path(&doc, "shared_pages.overstated")->b, "shared_pages.overstated false");
	{
		int64_t pss = json_i64_ok(&doc, "shared_pages.pss_change");
		int64_t rss = json_i64_ok(&doc, "shared_pages.rss_change");

		cr_log_info("shared pages: RSS %+" PRId64 " B, PSS %+" PRId64 " B", rss, pss);
		/* the machine paid what the children wrote; the shared memory was there before */
		cr_expect(h_within((double)pss, (double)(SWARM_CHILDREN * own)),
			  "PSS change %" PRId64 " B, the children wrote %" PRIu64 " B", pss,
			  SWARM_CHILDREN * own);
	}
	jv_free(&doc);
	free(text);
}

#define STORM_CHILDREN 300
#define STORM_TOLERANCE 0.05 /* test_storms.c's: the children's growth against their measure */

/* Resident growth (anon + file + shmem) of counts object @c. */
static uint64_t json_resident(const struct jv *c)
{
	return json_u64_ok(c, "growth.anon") + json_u64_ok(c, "growth.file") +
	       json_u64_ok(c, "growth.shmem");
}

/*
 * A build's swarm: 300 children of storm, 256 KiB each, back to back, all gone within
 * milliseconds. One row: 301 processes, none alive; the costliest three and [298 more storm
 * processes]; in JSON, every pid, and the group's growth less the parent's is what the
 * children measured of themselves, within 5%.
 */
Test(children, storm_summarized_by_executable)
{
	const char *wl[] = { "300", "256", "0", NULL };
	unsigned long children, procs, alive;
	long long anon, file, shmem;
	const struct jv *g, *list;
	char dir[64], json[96], *report, *line, *text;
	uint64_t parent = 0, growth;
	struct h_run r;
	struct jv doc;

	h_temp_dir_ok(dir);
	snprintf(json, sizeof(json), "%s/storm.json", dir);
	h_launch_run_for_ok(&r, "storm", wl, (const char *const[]){ "-f", "--json", json, NULL },
			    STORM_CHILDREN * 20);
	h_folded_free(&r.folded);
	report = h_read_file(r.fl.out_path);
	line = strstr(report, "children ");
	cr_assert(line && sscanf(line, "children %lu anon %lld file %lld shmem %lld", &children,
				 &anon, &file, &shmem) == 4,
		  "storm printed no sums:\n%.2000s", report);
	cr_assert_eq(children, STORM_CHILDREN);
	line = strstr(report, "\nstorm ");
	cr_assert(line, "no row for the executable:\n%.3000s", report);
	cr_assert_eq(sscanf(line, "\nstorm %lu %lu", &procs, &alive), 2, "%.120s", line);
	cr_expect_eq(procs, STORM_CHILDREN + 1, "%.120s", line);
	cr_expect_eq(alive, 0, "%.120s", line);
	cr_expect(strstr(report, "[298 more storm processes]"), "%.3000s", report);
	free(report);

	text = h_read_file(json);
	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON: %.300s", text);
	cr_assert_eq(jv_get(&doc, "process_groups")->n, 1);
	g = &jv_get(&doc, "process_groups")->items[0];
	cr_expect_str_eq(jv_get(g, "name")->text, "storm");
	cr_expect_eq(jv_get(g, "pids")->n, STORM_CHILDREN + 1, "every pid");
	list = jv_get(&doc, "processes");
	cr_assert_eq(list->n, STORM_CHILDREN + 1);
	for (size_t i = 0; i < list->n; i++)
		if (!jv_get(&list->items[i], "followed")->b)
			parent += json_resident(jv_get(&list->items[i], "attributed"));
	growth = json_u64_ok(g, "growth");
	cr_log_info("storm: %lu children measured %lld B; the group's growth %" PRIu64
		    " B, the parent's %" PRIu64 " B",
		    children, anon + file + shmem, growth, parent);
	cr_expect(fabs((double)(growth - parent) - (double)(anon + file + shmem)) <=
			  STORM_TOLERANCE * (double)(anon + file + shmem),
		  "children's growth %" PRIu64 " B, their own measure %lld B", growth - parent,
		  anon + file + shmem);
	jv_free(&doc);
	free(text);
}
