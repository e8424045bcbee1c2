// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "allocs_checks.h"
#include <criterion/criterion.h>
#include <inttypes.h>

void allocs_expect_edge(const struct h_run *r, const char *caller, const char *callee,
			uint64_t want)
{
	uint64_t got = h_folded_edge(&r->folded, caller, callee);

	cr_expect_eq(got, want, "%s;%s: %" PRIu64 ", expected %" PRIu64, caller, callee, got, want);
}

void allocs_bytes_by_path_ok(const struct h_run *r)
{
	allocs_expect_edge(r, "leak_path", "malloc", LEAK_N * LEAK_SIZE);
	allocs_expect_edge(r, "churn_path", "malloc", CHURN_N * CHURN_SIZE);
	allocs_expect_edge(r, "direct_caller", "malloc", DIRECT_SIZE);
	allocs_expect_edge(r, "realloc_path", "malloc", 100);
	allocs_expect_edge(r, "realloc_path", "realloc", 200 + 300);
	allocs_expect_edge(r, "calloc_path", "calloc", 10 * 50);
	allocs_expect_edge(r, "memalign_path", "posix_memalign", 4096);
	allocs_expect_edge(r, "thread_leak", "malloc", THREAD_N * THREAD_SIZE);
}

void allocs_sampled_ok(const char *mode)
{
	const char *wl[] = { "-", "100", NULL };
	const char *fl[] = { mode, "--sample-bytes", "4096", "--metric", "alloc-bytes", NULL };
	struct h_run r;
	uint64_t leak, churn;

	h_attach_run_ok(&r, "allocs", wl, fl);
	leak = h_folded_edge(&r.folded, "leak_path", "malloc");
	churn = h_folded_edge(&r.folded, "churn_path", "malloc");
	cr_expect(leak > 0.9 * 100 * LEAK_N * LEAK_SIZE && leak < 1.1 * 100 * LEAK_N * LEAK_SIZE,
		  "leak_path estimate %" PRIu64 " bytes, truth %d", leak, 100 * LEAK_N * LEAK_SIZE);
	cr_expect(churn > 0.9 * 100 * CHURN_N * CHURN_SIZE &&
			  churn < 1.1 * 100 * CHURN_N * CHURN_SIZE,
		  "churn_path estimate %" PRIu64 " bytes, truth %d", churn,
		  100 * CHURN_N * CHURN_SIZE);
	h_folded_free(&r.folded);
}

void allocs_launched_ok(const char *mode)
{
	const char *fl[] = { mode, "--metric", "alloc-bytes", NULL };
	struct h_run r;

	h_launch_run_ok(&r, "allocs", NULL, fl);
	allocs_expect_edge(&r, "leak_path", "malloc", LEAK_N * LEAK_SIZE);
	allocs_expect_edge(&r, "direct_caller", "malloc", DIRECT_SIZE);
	h_folded_free(&r.folded);
}
