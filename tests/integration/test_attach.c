/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Attach mode (`faultline -q -p PID --folded F`) on each workload: what faultline attributes
 * must match what the workload is known to touch, and what the kernel's own counters
 * (/proc/PID/status) moved by over the same window, within 2%.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(attach, .init = setup, .fini = h_cleanup, .timeout = 90);

/*
 * Anon, because a thread's first run of libc code (pthread_setname_np, thread exit) also maps
 * file pages whose amount depends on libc, not on the workload.
 */
Test(attach, threads_functions_and_threads)
{
	static const char *const fl[] = { "-T", "--metric", "anon", NULL };
	struct h_run r;

	h_attach_run_ok(&r, "threads", NULL, fl);
	h_folded_root_ok(&r.folded, "threads");
	for (size_t i = 0; i < H_NTOUCHERS; i++) {
		char what[64];

		snprintf(what, sizeof(what), "anon growth under %s", h_touchers[i].fn);
		h_within_ok(what, h_folded_frame(&r.folded, h_touchers[i].fn),
			    (int64_t)h_touchers[i].bytes, &r.folded);
		snprintf(what, sizeof(what), "anon growth under toucher_main;%s", h_touchers[i].fn);
		h_within_ok(what, h_folded_edge(&r.folded, "toucher_main", h_touchers[i].fn),
			    (int64_t)h_touchers[i].bytes, &r.folded);
		snprintf(what, sizeof(what), "anon growth of thread %s", h_touchers[i].thread);
		h_within_ok(what, h_folded_thread(&r.folded, h_touchers[i].thread),
			    (int64_t)h_touchers[i].bytes, &r.folded);
	}
	h_folded_free(&r.folded);
}

Test(attach, threads_anon_matches_status)
{
	static const char *const fl[] = { "--metric", "anon", NULL };
	struct h_run r;

	h_attach_run_ok(&r, "threads", NULL, fl);
	h_within_ok("anon growth vs RssAnon delta", h_folded_total(&r.folded),
		    r.after.anon - r.before.anon, &r.folded);
	h_within_ok("anon growth under touch_c", h_folded_frame(&r.folded, "touch_c"),
		    (int64_t)(24 * H_MIB), &r.folded);
	h_folded_free(&r.folded);
}

/* "+48.0 MiB" as bytes; 0 when @s is not such a figure. */
static double parse_figure(const char *s)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB" };
	char unit[8] = "";
	double v = 0;

	if (sscanf(s, "%lf %7s", &v, unit) != 2)
		return 0;
	for (int i = 0; i < 4; i++, v *= 1024)
		if (!strcmp(unit, units[i]))
			return v;
	return 0;
}

/*
 * The reconciliation block: smaps_rollup's Pss_Anon moved as RssAnon did (the threads'
 * pages are private, so PSS and RSS agree), and the private cost is shown.
 */
Test(attach, report_reconciles_with_smaps_rollup)
{
	struct h_run r;
	char *report, *line;
	char cols[4][16];
	double pss_anon;

	h_attach_run_ok(&r, "threads", NULL, NULL);
	report = h_read_file(r.fl.out_path);
	line = strstr(report, "smaps_rollup change");
	cr_assert(line, "no smaps_rollup block in the report:\n%s", report);
	/* columns: Pss, Pss_Anon, Pss_File, Pss_Shmem, each "+N.N UNIT" */
	cr_assert_eq(sscanf(line, "smaps_rollup change %15s %*s %15s %*s %15s %*s %15s", cols[0],
			    cols[1], cols[2], cols[3]),
		     4, "%s", line);
	pss_anon = parse_figure(strstr(line, cols[1]));
	cr_expect(h_within(pss_anon, (double)(r.after.anon - r.before.anon)),
		  "Pss_Anon change %.0f B, RssAnon change %lld B", pss_anon,
		  (long long)(r.after.anon - r.before.anon));
	cr_expect(strstr(report, "private cost (Pss_Anon + VmPTE)"), "no private cost line");
	free(report);
	h_folded_free(&r.folded);
}

/*
 * Peak attribution: phase_a makes 64 MiB resident and unmaps it, phase_b then 32 MiB. At the
 * process's highest RSS phase_a held 64 MiB and phase_b nothing.
 */
Test(attach, peak_attribution)
{
	static const char *const fl[] = { "--metric", "peak", NULL };
	struct h_run r;

	h_attach_run_ok(&r, "peak", NULL, fl);
	h_within_ok("phase_a at the peak", h_folded_frame(&r.folded, "phase_a"),
		    (int64_t)(64 * H_MIB), &r.folded);
	cr_expect_eq(h_folded_frame(&r.folded, "phase_b"), 0, "phase_b held nothing at the peak");
	h_folded_free(&r.folded);
}

/* A lone default run: the folded file parses (h_folded_load_ok is strict) and sums up. */
Test(attach, folded_sums_to_status_delta)
{
	static const char *const wl[] = { "4", "12", NULL };
	struct h_run r;
	int64_t delta;

	h_attach_run_ok(&r, "threads", wl, NULL);
	cr_assert_gt(r.folded.n, 0, "the folded file is empty");
	h_folded_root_ok(&r.folded, "threads");
	delta = (r.after.anon - r.before.anon) + (r.after.file - r.before.file) +
		(r.after.shmem - r.before.shmem);
	h_within_ok("resident growth vs (RssAnon+RssFile+RssShmem) delta",
		    h_folded_total(&r.folded), delta, &r.folded);
	h_within_ok("resident growth under touch_a", h_folded_frame(&r.folded, "touch_a"),
		    (int64_t)(4 * H_MIB), &r.folded);
	h_within_ok("resident growth under touch_b", h_folded_frame(&r.folded, "touch_b"),
		    (int64_t)(12 * H_MIB), &r.folded);
	h_folded_free(&r.folded);
}

Test(attach, filemap_file_growth)
{
	static const char *const fl[] = { "--metric", "file", NULL };
	struct h_run r;

	h_attach_run_ok(&r, "filemap", NULL, fl);
	h_within_ok("file growth under read_file_pages",
		    h_folded_frame(&r.folded, "read_file_pages"),
		    (int64_t)(32 * H_MIB), &r.folded);
	h_within_ok("file growth under main;read_file_pages",
		    h_folded_edge(&r.folded, "main", "read_file_pages"), (int64_t)(32 * H_MIB),
		    &r.folded);
	h_within_ok("file growth vs RssFile delta", h_folded_total(&r.folded),
		    r.after.file - r.before.file, &r.folded);
	h_folded_free(&r.folded);
}

Test(attach, memfd_shmem_growth)
{
	static const char *const fl[] = { "--metric", "shmem", NULL };
	struct h_run r;

	h_attach_run_ok(&r, "memfd", NULL, fl);
	h_within_ok("shmem growth under write_shmem_pages",
		    h_folded_frame(&r.folded, "write_shmem_pages"), (int64_t)(24 * H_MIB),
		    &r.folded);
	h_within_ok("shmem growth under main;write_shmem_pages",
		    h_folded_edge(&r.folded, "main", "write_shmem_pages"), (int64_t)(24 * H_MIB),
		    &r.folded);
	h_within_ok("shmem growth vs RssShmem delta", h_folded_total(&r.folded),
		    r.after.shmem - r.before.shmem, &r.folded);
	h_folded_free(&r.folded);
}

/* release's defaults: grow 32 MiB, munmap 8 MiB, MADV_DONTNEED 8 MiB. */
Test(attach, release_on_releasing_stacks)
{
	static const char *const fl[] = { "--metric", "released", NULL };
	struct h_run r;

	h_attach_run_ok(&r, "release", NULL, fl);
	h_within_ok("released under unmap_memory", h_folded_frame(&r.folded, "unmap_memory"),
		    (int64_t)(8 * H_MIB), &r.folded);
	h_within_ok("released under dontneed_memory", h_folded_frame(&r.folded, "dontneed_memory"),
		    (int64_t)(8 * H_MIB), &r.folded);
	h_within_ok("released under main;unmap_memory",
		    h_folded_edge(&r.folded, "main", "unmap_memory"), (int64_t)(8 * H_MIB), &r.folded);
	h_within_ok("released under main;dontneed_memory",
		    h_folded_edge(&r.folded, "main", "dontneed_memory"), (int64_t)(8 * H_MIB),
		    &r.folded);
	/* Releases are their own metric; the status delta is growth minus them. */
	h_within_ok("released vs RssAnon fall", h_folded_total(&r.folded),
		    (int64_t)(32 * H_MIB) - (r.after.anon - r.before.anon), &r.folded);
	h_folded_free(&r.folded);
}

Test(attach, release_growth_is_not_netted)
{
	static const char *const fl[] = { "--metric", "anon", NULL };
	struct h_run r;

	h_attach_run_ok(&r, "release", NULL, fl);
	h_within_ok("anon growth under grow_memory", h_folded_frame(&r.folded, "grow_memory"),
		    (int64_t)(32 * H_MIB), &r.folded);
	h_within_ok("anon growth under main;grow_memory",
		    h_folded_edge(&r.folded, "main", "grow_memory"), (int64_t)(32 * H_MIB),
		    &r.folded);
	/* Growth never subtracts releases: RssAnon delta + the 16 MiB given back. */
	h_within_ok("anon growth vs RssAnon delta + released", h_folded_total(&r.folded),
		    r.after.anon - r.before.anon + (int64_t)(16 * H_MIB), &r.folded);
	h_folded_free(&r.folded);
}

Test(attach, sigterm_ends_session_normally)
{
	static const char *const wl[] = { "4", NULL };
	struct h_run r;

	h_attach_start_ok(&r, "threads", wl, NULL);
	h_attach_work_ok(&r);
	h_attach_stop_ok(&r, SIGTERM);
	h_within_ok("resident growth under touch_a after SIGTERM",
		    h_folded_frame(&r.folded, "touch_a"), (int64_t)(4 * H_MIB), &r.folded);
	h_folded_free(&r.folded);
}

/*
 * A fault is walked once and its stack reused for the RSS change it causes, keyed on the user
 * registers. samedepth reaches fill() from phase_one() and phase_two() with the same ip, sp and
 * bp, and munmap() from give_back_one() and give_back_two() likewise: a cache that served a
 * later path from an earlier one would put all of it on the first.
 */
Test(attach, same_registers_on_two_paths_stay_apart)
{
	static const char *const grow[] = { "--metric", "anon", NULL };
	static const char *const rel[] = { "--metric", "released", NULL };
	struct h_run r;

	h_attach_run_ok(&r, "samedepth", NULL, grow);
	h_within_ok("anon growth under phase_one;fill", h_folded_edge(&r.folded, "phase_one", "fill"),
		    (int64_t)(6 * H_MIB), &r.folded);
	h_within_ok("anon growth under phase_two;fill", h_folded_edge(&r.folded, "phase_two", "fill"),
		    (int64_t)(10 * H_MIB), &r.folded);
	h_folded_free(&r.folded);

	h_attach_run_ok(&r, "samedepth", NULL, rel);
	h_within_ok("released under give_back_one", h_folded_frame(&r.folded, "give_back_one"),
		    (int64_t)(6 * H_MIB), &r.folded);
	h_within_ok("released under give_back_two", h_folded_frame(&r.folded, "give_back_two"),
		    (int64_t)(10 * H_MIB), &r.folded);
	h_folded_free(&r.folded);
}

/*
 * leaderexit's main thread called pthread_exit(): the leader is a zombie while its worker runs
 * (a server that hands main() to a thread pool). Given as -p PID,TID (the process and that
 * thread), it must be traced once, as one process, and the worker's 8 MiB named on its stack.
 */
Test(attach, leader_exited_and_a_thread_id)
{
	const char *rest, *fl[] = { "-q", "-p", NULL, "--folded", NULL, NULL };
	struct h_session s;
	struct h_folded f;
	struct h_proc w;
	char pids[48], *err, *tracing;

	h_spawn_workload_ok(&w, "leaderexit", NULL);
	cr_assert_eq(h_wait_line(&w, "ready", H_LINE_MS), 0, "leaderexit never got ready");
	cr_assert_eq(h_wait_prefix(&w, "worker ", &rest, H_LINE_MS), 0);
	snprintf(pids, sizeof(pids), "%d,%d", w.pid, atoi(rest));
	h_session_init_ok(&s);
	fl[2] = pids;
	fl[4] = s.folded_path;
	h_session_start_ok(&s, fl);
	h_wait_ready_ok(&s);
	h_kill_ok(w.pid, SIGUSR1);
	cr_assert_eq(h_wait_line(&w, "done", H_WORK_MS), 0, "leaderexit never finished");
	h_kill_ok(s.proc.pid, SIGINT);
	cr_assert_eq(h_wait_exit(&s.proc, H_EXIT_MS), 0, "faultline did not exit");
	err = h_read_file(s.err_path);
	cr_expect_eq(h_exit_code(&s.proc), 0, "faultline exited %d: %s", h_exit_code(&s.proc), err);
	cr_expect(strstr(err, "zombie") == NULL, "refused as a zombie: %s", err);
	tracing = strstr(err, "tracing ");
	cr_expect(tracing && !memchr(tracing, ',', strcspn(tracing, "\n")), "traced twice: %s",
		  err);
	free(err);
	h_kill_ok(w.pid, SIGUSR2);
	h_wait_exit(&w, H_EXIT_MS);
	h_folded_load_ok(s.folded_path, &f);
	h_folded_root_ok(&f, "leaderexit");
	h_within_ok("growth under worker_main;worker_touch",
		    h_folded_edge(&f, "worker_main", "worker_touch"), (int64_t)(8 * H_MIB), &f);
	h_folded_free(&f);
}
