/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Launch mode (`faultline -q --folded F -- WORKLOAD --now --exit`): the probes are live before
 * the command execs, so everything it touches is attributed, and the session ends by itself
 * with status 0 when the command exits (h_launch_run_ok asserts both).
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(launch, .init = setup, .fini = h_cleanup, .timeout = 90);

Test(launch, threads_functions_and_threads)
{
	static const char *const wl[] = { "6", "10", "14", NULL };
	/* anon: a thread's first run of libc code also maps file pages, not known exactly. */
	static const char *const fl[] = { "-T", "--metric", "anon", NULL };
	static const char *const fn[] = { "touch_a", "touch_b", "touch_c" };
	static const char *const thread[] = { "toucher-a", "toucher-b", "toucher-c" };
	static const uint64_t mib[] = { 6, 10, 14 };
	struct h_run r;

	h_launch_run_ok(&r, "threads", wl, fl);
	h_folded_root_ok(&r.folded, "threads");
	for (size_t i = 0; i < 3; i++) {
		char what[64];

		snprintf(what, sizeof(what), "anon growth under %s", fn[i]);
		h_within_ok(what, h_folded_frame(&r.folded, fn[i]), (int64_t)(mib[i] * H_MIB),
			    &r.folded);
		snprintf(what, sizeof(what), "anon growth under toucher_main;%s", fn[i]);
		h_within_ok(what, h_folded_edge(&r.folded, "toucher_main", fn[i]),
			    (int64_t)(mib[i] * H_MIB), &r.folded);
		snprintf(what, sizeof(what), "anon growth of thread %s", thread[i]);
		h_within_ok(what, h_folded_thread(&r.folded, thread[i]), (int64_t)(mib[i] * H_MIB),
			    &r.folded);
	}
	h_folded_free(&r.folded);
}

Test(launch, filemap_file_growth)
{
	static const char *const wl[] = { "16", NULL };
	static const char *const fl[] = { "--metric", "file", NULL };
	struct h_run r;

	h_launch_run_ok(&r, "filemap", wl, fl);
	h_within_ok("file growth under read_file_pages",
		    h_folded_frame(&r.folded, "read_file_pages"),
		    (int64_t)(16 * H_MIB), &r.folded);
	h_within_ok("file growth under main;read_file_pages",
		    h_folded_edge(&r.folded, "main", "read_file_pages"), (int64_t)(16 * H_MIB),
		    &r.folded);
	h_folded_free(&r.folded);
}

Test(launch, memfd_shmem_growth)
{
	static const char *const wl[] = { "16", NULL };
	static const char *const fl[] = { "--metric", "shmem", NULL };
	struct h_run r;

	h_launch_run_ok(&r, "memfd", wl, fl);
	h_within_ok("shmem growth under write_shmem_pages",
		    h_folded_frame(&r.folded, "write_shmem_pages"), (int64_t)(16 * H_MIB),
		    &r.folded);
	h_within_ok("shmem growth under main;write_shmem_pages",
		    h_folded_edge(&r.folded, "main", "write_shmem_pages"), (int64_t)(16 * H_MIB),
		    &r.folded);
	/* The memfd is the only shmem the process ever has. */
	h_within_ok("shmem growth, whole session", h_folded_total(&r.folded),
		    (int64_t)(16 * H_MIB), &r.folded);
	h_folded_free(&r.folded);
}

Test(launch, release_on_releasing_stacks)
{
	static const char *const wl[] = { "24", "4", "12", NULL };
	static const char *const fl[] = { "--metric", "released", NULL };
	struct h_run r;

	h_launch_run_ok(&r, "release", wl, fl);
	h_within_ok("released under unmap_memory", h_folded_frame(&r.folded, "unmap_memory"),
		    (int64_t)(4 * H_MIB), &r.folded);
	h_within_ok("released under dontneed_memory", h_folded_frame(&r.folded, "dontneed_memory"),
		    (int64_t)(12 * H_MIB), &r.folded);
	h_within_ok("released under main;unmap_memory",
		    h_folded_edge(&r.folded, "main", "unmap_memory"), (int64_t)(4 * H_MIB), &r.folded);
	h_within_ok("released under main;dontneed_memory",
		    h_folded_edge(&r.folded, "main", "dontneed_memory"), (int64_t)(12 * H_MIB),
		    &r.folded);
	h_folded_free(&r.folded);
}

/*
 * Runs `faultline -q --metric METRIC --folded F -- threads --now 1 1` (no --exit), reads the
 * workload's status once it printed "done", then lets it exit; faultline must follow.
 */
static void launch_until_done(const char *metric, struct h_rss *rss, struct h_folded *f)
{
	const char *argv[] = { "-q", "--metric", metric, "--folded", NULL, "--",
			       NULL, "--now", "1", "1", NULL };
	struct h_session s;
	char path[4096];
	pid_t child;

	snprintf(path, sizeof(path), "%s/threads", getenv("WORKLOADS"));
	h_session_init_ok(&s);
	argv[4] = s.folded_path;
	argv[6] = path;
	h_session_start_ok(&s, argv);
	child = h_find_child(s.proc.pid, H_LINE_MS);
	cr_assert_gt(child, 0, "faultline's command never appeared in /proc");
	h_track(child);
	for (int ms = 0; ms < H_WORK_MS && !h_file_has_line(s.out_path, "done"); ms += 10)
		usleep(10000);
	cr_assert(h_file_has_line(s.out_path, "done"), "the launched workload never said done");
	h_read_status_ok(child, rss);
	h_kill_ok(child, SIGUSR2);
	cr_assert_eq(h_wait_exit(&s.proc, H_EXIT_MS), 0,
		     "faultline did not end when its command exited");
	cr_assert_eq(h_exit_code(&s.proc), 0, "faultline exited with status %d",
		     h_exit_code(&s.proc));
	h_folded_load_ok(s.folded_path, f);
}

/*
 * Nothing before the exec is missed. A fresh mm starts at zero, and this workload never
 * gives anonymous memory back before "done" (its threads keep what they touch, the loader
 * releases only file pages it copies on write), so its anon growth since the exec must be
 * the whole of RssAnon at "done": the initial stack the exec builds, the loader's
 * relocations, the heap, the thread stack and the touched 2 MiB. (Resident growth cannot be
 * compared the same way: releases are a metric of their own, and the file pages that
 * fault-around maps vary from run to run with the address layout.)
 */
Test(launch, growth_since_exec_matches_status)
{
	struct h_folded grown;
	struct h_rss rss;

	launch_until_done("anon", &rss, &grown);
	h_within_ok("anon growth since exec vs RssAnon", h_folded_total(&grown), rss.anon,
		    &grown);
	h_within_ok("anon growth under touch_a", h_folded_frame(&grown, "touch_a"),
		    (int64_t)H_MIB, &grown);
	h_folded_free(&grown);
}

/* Runs `faultline -q --json J -- sh -c SCRIPT` to its end; its exit status, stdout and JSON. */
static int run_sh(const char *script, char **out, char **json)
{
	char path[128];
	const char *argv[] = { "-q", "--json", path, "--", "sh", "-c", script, NULL };
	struct h_session s;

	h_session_init_ok(&s);
	snprintf(path, sizeof(path), "%s/json", s.dir);
	h_session_start_ok(&s, argv);
	cr_assert_eq(h_wait_exit(&s.proc, H_WORK_MS), 0, "faultline did not end with its command");
	*out = h_read_file(s.out_path);
	*json = h_read_file(path);
	return h_exit_code(&s.proc);
}

/*
 * How the command ended is reported, and is faultline's exit status as a shell reports it: an
 * OOM kill (SIGKILL) or a failing command is not a success.
 */
Test(launch, command_exit_status)
{
	char *out, *json;
	int code;

	code = run_sh("exit 3", &out, &json);
	cr_expect_eq(code, 3, "faultline exited %d for a command that exited 3", code);
	cr_expect(strstr(out, "sh (exited with status 3)"), "report:\n%s", out);
	cr_expect(strstr(json, "\"exit_code\":3,\"exit_signal\":null"), "json:\n%.1000s", json);
	free(out);
	free(json);
	code = run_sh("kill -9 $$", &out, &json);
	cr_expect_eq(code, 128 + SIGKILL, "faultline exited %d for a command killed", code);
	cr_expect(strstr(out, "sh (killed by SIGKILL)"), "report:\n%s", out);
	cr_expect(strstr(json, "\"exit_code\":null,\"exit_signal\":\"SIGKILL\""), "json:\n%.1000s",
		  json);
	free(out);
	free(json);
}
