/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --alloc on the allocs workload (tests/workloads/allocs.c), on glibc and, preloaded, on
 * Debian's jemalloc and tcmalloc: every count and byte of the known call paths must be exact,
 * the frame right above the allocator must be the function that called it, and sampled
 * estimates must land within 10%.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "allocs_checks.h"
#include "formats/jsonread.h"
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(alloc, .init = setup, .fini = h_cleanup, .timeout = 120);

/* An attach run of allocs on @lib ("-": glibc) with --alloc and @metric; folded in @r. */
static void run_allocs(struct h_run *r, const char *lib, const char *metric, const char *extra)
{
	const char *wl[] = { lib, NULL };
	const char *fl[] = { "--alloc", "--metric", metric, extra, NULL };

	if (strcmp(lib, "-") && access(lib, R_OK))
		cr_skip_test("%s is not installed (apt-get install libjemalloc2 "
			     "libtcmalloc-minimal4)",
			     lib);
	h_attach_run_ok(r, "allocs", wl, fl);
	h_folded_root_ok(&r->folded, "allocs");
}

/* Allocated bytes by path, exact; the caller of malloc is the frame above it. */
static void check_alloc_bytes(const char *lib)
{
	struct h_run r;

	run_allocs(&r, lib, "alloc-bytes", NULL);
	allocs_bytes_by_path_ok(&r);
	/* once each, whether operator new is the allocator's or libstdc++'s calling malloc */
	/* "operator new" matches libstdc++'s "operator new(unsigned long)" too */
	cr_expect_eq(h_folded_frame(&r.folded, "operator new"), NEW_N * NEW_SIZE,
		     "operator new counted once");
	/* realloc(NULL) jumping to malloc and the like: one allocation each */
	cr_expect_eq(h_folded_frame(&r.folded, "nested_path"), NESTED_N * NESTED_SIZE,
		     "nested calls counted once: %" PRIu64,
		     h_folded_frame(&r.folded, "nested_path"));
	h_folded_free(&r.folded);
}

/* Live bytes: the leaks stay, the churn and the freed realloc steps are gone. */
static void check_live_bytes(const char *lib)
{
	struct h_run r;

	run_allocs(&r, lib, "live-bytes", NULL);
	allocs_expect_edge(&r, "leak_path", "malloc", LEAK_N * LEAK_SIZE);
	allocs_expect_edge(&r, "churn_path", "malloc", 0);
	allocs_expect_edge(&r, "realloc_path", "malloc", 0);
	allocs_expect_edge(&r, "realloc_path", "realloc", 300);
	allocs_expect_edge(&r, "thread_leak", "malloc", THREAD_N * THREAD_SIZE);
	h_folded_free(&r.folded);
}

Test(alloc, glibc_alloc_bytes)
{
	check_alloc_bytes("-");
}

Test(alloc, glibc_live_bytes)
{
	check_live_bytes("-");
}

Test(alloc, jemalloc_alloc_bytes)
{
	check_alloc_bytes(JEMALLOC);
}

Test(alloc, jemalloc_live_bytes)
{
	check_live_bytes(JEMALLOC);
}

Test(alloc, tcmalloc_alloc_bytes)
{
	check_alloc_bytes(TCMALLOC);
}

Test(alloc, tcmalloc_live_bytes)
{
	check_live_bytes(TCMALLOC);
}

/* Counts, per thread too; the final report shows the frees of blocks from before attach. */
Test(alloc, glibc_counts_threads_and_unmatched_frees)
{
	struct h_run r;
	char *report;
	unsigned long long unmatched = 0;
	const char *at;

	run_allocs(&r, "-", "alloc-count", "-T");
	allocs_expect_edge(&r, "churn_path", "malloc", CHURN_N);
	allocs_expect_edge(&r, "leak_path", "malloc", LEAK_N);
	cr_expect_geq(h_folded_thread(&r.folded, "leaker-0"), 50);
	cr_expect_geq(h_folded_thread(&r.folded, "leaker-1"), 50);
	report = h_read_file(r.fl.out_path);
	at = strstr(report, "unmatched frees ");
	cr_expect(at && sscanf(at, "unmatched frees %llu", &unmatched) == 1,
		  "no unmatched frees in the report:\n%s", report);
	/* the workload frees its 5 early blocks; libc may free a few of its own */
	cr_expect_geq(unmatched, 5, "unmatched frees %llu", unmatched);
	free(report);
	h_folded_free(&r.folded);
}

/* The numbers of allocsame.c. */
#define SAME_SIZE 48
#define SAME_ONE_N 3000

/*
 * Two callers that reach one malloc call at the same depth (same ip, sp and bp at its return),
 * taking turns: the return probe's cache of call sites must still tell them apart, by the
 * return addresses above the frame.
 */
Test(alloc, same_site_same_depth_apart)
{
	const char *wl[] = { NULL };
	const char *fl[] = { "--alloc", "--metric", "alloc-bytes", NULL };
	struct h_run r;

	h_attach_run_ok(&r, "allocsame", wl, fl);
	h_folded_root_ok(&r.folded, "allocsame");
	allocs_expect_edge(&r, "same_one", "alloc_here", SAME_ONE_N * SAME_SIZE);
	allocs_expect_edge(&r, "same_two", "alloc_here", SAME_ONE_N / 3 * SAME_SIZE);
	allocs_expect_edge(&r, "alloc_here", "malloc", (SAME_ONE_N + SAME_ONE_N / 3) * SAME_SIZE);
	h_folded_free(&r.folded);
}

/* Sampling: estimates of a large run within 10% of the truth. */
Test(alloc, sampled_estimates)
{
	allocs_sampled_ok("--alloc");
}

/* A launched command: probes placed before its exec catch its allocations from the start. */
Test(alloc, launched_command)
{
	allocs_launched_ok("--alloc");
}

/*
 * allocexec leaves 40 blocks of 3000 B live, execs itself, and keeps 25 of 5000 B: the first
 * image's blocks can never be freed and must not stay live (they were, in no named stack,
 * for the rest of the session), but their allocations still count, and the report says how
 * many the exec dropped.
 */
Test(alloc, exec_drops_the_old_images_live_blocks)
{
	const char *live[] = { "--alloc", "--metric", "live-bytes", NULL };
	const char *allocs[] = { "--alloc", "--metric", "alloc-bytes", NULL };
	struct h_run r;
	char *out;

	h_launch_run_ok(&r, "allocexec", NULL, live);
	cr_expect_eq(h_folded_frame(&r.folded, "after_exec"), 25 * 5000);
	cr_expect_eq(h_folded_total(&r.folded), 25 * 5000,
		     "live bytes besides after_exec's: the old image's blocks are still live");
	out = h_read_file(r.fl.out_path);
	cr_expect(strstr(out, "dropped at exec: 40 blocks (117.2 KiB)"), "report:\n%s", out);
	free(out);
	h_folded_free(&r.folded);
	h_launch_run_ok(&r, "allocexec", NULL, allocs);
	cr_expect_eq(h_folded_total(&r.folded), 40 * 3000 + 25 * 5000);
	h_folded_free(&r.folded);
}

static uint64_t doc_u64(const struct jv *v, const char *path)
{
	uint64_t x = 0;

	cr_assert(jv_u64(jv_path(v, path), &x), "%s is not an unsigned integer", path);
	return x;
}

/*
 * A live refresh walks the live table (every block) at most at ~1% of a CPU: with 200,000
 * blocks, seconds apart. An exec that leaves blocks behind must still make the next refresh
 * walk, or the old image's blocks would stay live until the next paced walk: every line of the
 * stream that knows of the exec holds them all as dropped, and the live heap is the new
 * image's alone. The lines after the exec show ages older than their refresh: the test did
 * run between walks.
 */
Test(alloc, exec_drops_exact_between_walks)
{
	enum {
		BULK = 200000,
		DROPPED = 40 + BULK
	};
	const char *wl[] = { "200000", NULL };
	char dir[64], stream[128];
	const char *fl[] = { "--alloc", "-i", "0.2", "--json-stream", stream, NULL };
	size_t at = 0, line = 1, nknow = 0, nbetween = 0;
	uint64_t last_dropped = 0, last_live = 0;
	struct h_run r;
	char *text;

	h_temp_dir_ok(dir);
	snprintf(stream, sizeof(stream), "%s/stream.jsonl", dir);
	h_attach_start_ok(&r, "allocexec", wl, fl);
	h_attach_work_ok(&r);
	nanosleep(&(struct timespec){ .tv_sec = 1, .tv_nsec = 200000000 }, NULL);
	h_attach_stop_ok(&r, SIGINT);
	text = h_read_file(stream);
	while (text[at]) {
		const struct jv *p, *fin;
		struct jv doc;
		size_t used = 0;
		uint64_t dropped, asof = 0;

		cr_assert_eq(jv_parse_next(text + at, strlen(text + at), &line, &used, &doc), 0,
			     "line %zu is not JSON", line);
		at += used;
		p = &jv_get(&doc, "processes")->items[0];
		dropped = doc_u64(p, "exec_dropped.count");
		fin = jv_get(&doc, "final");
		if (dropped) {
			nknow++;
			cr_expect_eq(dropped, DROPPED, "line %zu: %" PRIu64 " dropped", line,
				     dropped);
			cr_expect_eq(doc_u64(p, "exec_dropped.bytes"), 40 * 3000 + BULK * 16);
			cr_expect_leq(doc_u64(p, "attributed.live_bytes"), 25 * 5000,
				      "line %zu: the old image's blocks still live", line);
			jv_u64(jv_get(&doc, "oldest_live_as_of_ns"), &asof);
			nbetween += asof > 0;
		}
		if (!(fin && fin->b)) {
			last_dropped = dropped;
			last_live = doc_u64(p, "attributed.live_bytes");
		}
		jv_free(&doc);
	}
	free(text);
	h_folded_free(&r.folded);
	cr_expect_eq(last_dropped, DROPPED, "the last live line, 1.2 s after the exec");
	cr_expect_eq(last_live, 25 * 5000);
	cr_expect_geq(nknow, 3, "%zu lines after the exec", nknow);
	cr_expect_geq(nbetween, 1,
		      "no refresh after the exec went without a walk: the test "
		      "did not run between walks");
}

/* The run count of program @name among the programs faultline @owner holds (from its fdinfo,
 * so that another faultline on the machine does not count; kernel.bpf_stats_enabled must be
 * on), -1 if it holds none. bpftool prints no count for a program that has not run yet. */
static long long prog_run_cnt(pid_t owner, const char *name)
{
	uint32_t ids[256];
	int n = h_fdinfo_ids(owner, "prog_id", ids, 256);
	long long cnt = -1;

	for (int i = 0; i < n; i++) {
		char cmd[256], line[512];
		bool named = false;
		FILE *p;

		snprintf(cmd, sizeof(cmd), "%s prog show id %u 2>/dev/null",
			 getenv("BPFTOOL") ?: "bpftool", ids[i]);
		p = popen(cmd, "r");
		if (!p)
			return -1;
		while (fgets(line, sizeof(line), p)) {
			const char *at = strstr(line, "run_cnt ");

			if (strstr(line, name)) {
				named = true;
				cnt = cnt < 0 ? 0 : cnt;
			}
			if (named && at)
				cnt += strtoll(at + 8, NULL, 10);
		}
		pclose(p);
	}
	return cnt;
}

static void write_sysctl(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "cannot open %s", path);
	fputs(v, f);
	fclose(f);
}

/* The kernel has uprobe sessions (Linux 6.13): BPF_TRACE_UPROBE_SESSION in its BTF. */
static bool kernel_has_uprobe_sessions(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "%s btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | "
		 "grep -q \"'BPF_TRACE_UPROBE_SESSION'\"",
		 getenv("BPFTOOL") ?: "bpftool");
	return system(cmd) == 0;
}

/*
 * The probes trap in the target only: a second process running the same glibc malloc loops
 * while faultline traces the first runs none of faultline's allocator programs.
 */
Test(alloc, other_processes_do_not_trap)
{
	static const char *const now[] = { "--now", NULL };
	static const char stats[] = "/proc/sys/kernel/bpf_stats_enabled";
	char *old = h_read_file(stats);
	struct h_run r;
	struct h_proc other;
	long long before, after;

	run_allocs(&r, "-", "alloc-count", NULL); /* warms up nothing: just proves it works */
	h_folded_free(&r.folded);

	write_sysctl(stats, "1");
	h_attach_start_ok(&r, "allocs", NULL,
			  (const char *const[]){ "--alloc", "--metric", "alloc-count", NULL });
	before = prog_run_cnt(r.fl.proc.pid, "fl_alloc_enter");
	h_spawn_workload_ok(&other, "allocs", now);
	cr_assert_eq(h_wait_line(&other, "done", H_WORK_MS), 0, "the other allocs never finished");
	after = prog_run_cnt(r.fl.proc.pid, "fl_alloc_enter");
	h_attach_work_ok(&r);
	h_attach_stop_ok(&r, SIGINT);
	h_kill_ok(other.pid, SIGUSR2);
	h_wait_exit(&other, H_EXIT_MS);
	write_sysctl(stats, *old ? old : "0");
	free(old);
	cr_expect_geq(before, 0, "bpftool shows no fl_alloc_enter");
	cr_expect_eq(after, before, "the untraced process ran the probe %lld times",
		     after - before);
	allocs_expect_edge(&r, "leak_path", "malloc", LEAK_N);
	h_folded_free(&r.folded);
}

/*
 * Under --sample-bytes an unsampled malloc has no return probe (the uprobe session's
 * entry declines it): allocs at scale 100 makes some 1,010,000 allocator calls, about 60 of
 * them sampled at a 1 MiB mean, so the session program runs once a call, not twice.
 */
Test(alloc, sampled_calls_skip_their_returns)
{
	static const char stats[] = "/proc/sys/kernel/bpf_stats_enabled";
	static const char *const wl[] = { "-", "100", NULL };
	static const char *const fl[] = { "--alloc", "--sample-bytes", "1048576", NULL };
	const long long calls = 100LL * (LEAK_N + CHURN_N);
	char *old;
	struct h_run r;
	long long runs;

	if (!kernel_has_uprobe_sessions())
		cr_skip_test("no uprobe sessions on this kernel (Linux 6.13): entry and return "
			     "are two programs");
	old = h_read_file(stats);
	write_sysctl(stats, "1");
	h_attach_start_ok(&r, "allocs", wl, fl);
	h_attach_work_ok(&r);
	runs = prog_run_cnt(r.fl.proc.pid, "fl_alloc_call");
	h_attach_stop_ok(&r, SIGINT);
	write_sysctl(stats, *old ? old : "0");
	free(old);
	h_folded_free(&r.folded);
	cr_expect(runs >= calls && runs < calls + calls / 10,
		  "fl_alloc_call ran %lld times for some %lld calls (twice as many: every "
		  "call's return probed)",
		  runs, calls);
}

/*
 * --alloc-lib that cannot be the target's allocator: each refused with exit status 1 and what
 * is wrong with it (it said "no malloc defined there" for a missing file and "Exec format
 * error" for a directory, and a library the target does not map was probed, counting 0).
 */
Test(alloc, alloc_lib_refused_with_its_cause)
{
	static const struct {
		const char *lib, *says;
	} cases[] = {
		{ "/nonexistent/libfoo.so", "no such file" },
		{ "/tmp", "a directory" },
		{ "/etc/passwd", "not an ELF file" },
		{ "/usr/lib/x86_64-linux-gnu/libz.so.1", "defines no malloc" },
		{ JEMALLOC, "does not map it" },
	};
	char self[16];

	if (access(JEMALLOC, R_OK))
		cr_skip_test("%s is not installed (apt-get install libjemalloc2)", JEMALLOC);
	snprintf(self, sizeof(self), "%d", getpid());
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { "-q",	     "-d", "1",	 "--alloc", "--alloc-lib",
				       cases[i].lib, "-p", self, NULL };
		struct h_session s;
		char *err;

		h_session_init_ok(&s);
		h_session_start_ok(&s, args);
		cr_assert_eq(h_wait_exit(&s.proc, H_EXIT_MS), 0, "faultline did not exit");
		err = h_read_file(s.err_path);
		cr_expect_eq(h_exit_code(&s.proc), 1, "--alloc-lib %s: status %d: %s", cases[i].lib,
			     h_exit_code(&s.proc), err);
		cr_expect(strstr(err, cases[i].says), "--alloc-lib %s does not say '%s': %s",
			  cases[i].lib, cases[i].says, err);
		free(err);
	}
}

/*
 * The target's libc was replaced on disk after it mapped it (an upgrade under a running
 * server): its mapping says "(deleted)" and the path opens nothing, so the probes go through
 * /proc/PID/map_files, which holds the mapped inode. leak_path's bytes must be exact (before,
 * "maps no object that defines malloc").
 */
Test(alloc, deleted_libc_is_probed)
{
	const char *fl[] = { "-q",	"-p",	    NULL,	   "--folded", NULL,
			     "--alloc", "--metric", "alloc-bytes", NULL };
	char dir[64], lib[96], pid[16], cmd[256];
	struct h_run r;

	memset(&r, 0, sizeof(r));
	h_temp_dir_ok(dir);
	snprintf(lib, sizeof(lib), "%s/libc.so.6", dir);
	snprintf(cmd, sizeof(cmd), "cp /lib/x86_64-linux-gnu/libc.so.6 %s", lib);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	setenv("LD_LIBRARY_PATH", dir, 1);
	h_spawn_workload_ok(&r.wl, "allocs", NULL);
	unsetenv("LD_LIBRARY_PATH");
	cr_assert_eq(h_wait_line(&r.wl, "ready", H_LINE_MS), 0, "allocs never got ready");
	cr_assert_eq(unlink(lib), 0);
	snprintf(pid, sizeof(pid), "%d", r.wl.pid);
	h_session_init_ok(&r.fl);
	fl[2] = pid;
	fl[4] = r.fl.folded_path;
	h_session_start_ok(&r.fl, fl);
	h_wait_ready_ok(&r.fl);
	h_attach_work_ok(&r);
	h_attach_stop_ok(&r, SIGINT);
	allocs_expect_edge(&r, "leak_path", "malloc", LEAK_N * LEAK_SIZE);
	h_folded_free(&r.folded);
}

/* The entries of the live table faultline @owner holds (bpftool, by the ids in its fdinfo). */
static long live_entries(pid_t owner)
{
	uint32_t ids[256];
	int n = h_fdinfo_ids(owner, "map_id", ids, 256);

	for (int i = 0; i < n; i++) {
		char cmd[256], *text = NULL;
		size_t len = 0, got;
		struct jv doc;
		long count = -1;
		FILE *p;

		const char *bpftool = getenv("BPFTOOL") ?: "bpftool";

		snprintf(cmd, sizeof(cmd),
			 "%s map show id %u | grep -q ' name live ' && %s -j map dump id %u",
			 bpftool, ids[i], bpftool, ids[i]);
		p = popen(cmd, "r");
		cr_assert_not_null(p);
		do {
			char buf[65536];

			got = fread(buf, 1, sizeof(buf), p);
			text = realloc(text, len + got + 1);
			cr_assert_not_null(text);
			memcpy(text + len, buf, got);
			len += got;
		} while (got);
		pclose(p);
		if (len && !jv_parse(text, len, &doc)) {
			count = doc.type == JV_ARR ? (long)doc.n : -1;
			jv_free(&doc);
		}
		free(text);
		if (count >= 0)
			return count;
	}
	return -1;
}

/* allocfork (with @wl_args) followed with -f --alloc: its 4 children leave 2,000 blocks live
 * in their rows, and none in the live table once each was retired and a walk came. */
static void expect_children_leave_the_live_table(const char *const *wl_args)
{
	struct h_run r;
	long entries = -1;

	h_attach_start_ok(&r, "allocfork", wl_args,
			  (const char *const[]){ "-f", "--alloc", "--metric", "live-count", "-i",
						 "0.3", NULL });
	h_attach_work_ok(&r);
	/* each child is retired at a refresh after its exit, and its blocks go at the next walk */
	for (int i = 0; i < 30 && entries != 0; i++) {
		struct timespec step = { 0, 100000000 };

		entries = live_entries(r.fl.proc.pid);
		nanosleep(&step, NULL);
	}
	cr_expect_eq(entries, 0, "%ld blocks of exited children still in the live table", entries);
	h_attach_stop_ok(&r, SIGINT);
	cr_expect_eq(h_folded_edge(&r.folded, "child_leak", "malloc"), 2000,
		     "the children's rows keep their live blocks");
	h_folded_free(&r.folded);
}

/*
 * Followed children that allocate and exit without freeing (allocfork: 4 children, 500 blocks
 * each): their rows keep the 2,000 blocks they left live, but the live table forgets them, or
 * a server's workers (BGSAVE children, database backends) would fill it over a session.
 */
Test(alloc, exited_children_leave_the_live_table)
{
	expect_children_leave_the_live_table(NULL);
}

/*
 * The same with children that exec first (allocfork --exec), as a build's compilers do: the
 * blocks of a process's last image leave the live table too. They stayed for the session (a
 * cc1's whole heap at each compile), kept apart by its exec id.
 */
Test(alloc, exited_exec_children_leave_the_live_table)
{
	/* an exec'd child waits until its malloc is probed: up to 20 s on a busy machine */
	expect_children_leave_the_live_table(
		(const char *const[]){ "--exec", "4", "500", "20000", NULL });
}
