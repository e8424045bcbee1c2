/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --metric new: memory the machine did not hold before. The sharedkids workload's children
 * each map 64 MiB their parent made resident before faultline attached, and write 2 MiB of
 * their own: their resident growth counts the shared pages once per child (8 x 66 MiB), the
 * machine gained 8 x 2 MiB, and --metric new must say the latter, on kid_own.
 */
#include <criterion/criterion.h>
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(newpages, .init = setup, .fini = h_cleanup, .timeout = 90);

#define KIDS 8
#define SHARED_MIB 64
#define OWN_MIB 2
#define MIB (1024ULL * 1024ULL)

/*
 * What else a child allocates: the pages fork made copy-on-write that it writes (its stack,
 * libc's data), a few each, and the page cache of nothing (the binary is cached already).
 * Measured: 188 KiB for 8 children.
 */
#define FORK_SLACK (2 * MIB)

Test(newpages, shared_pages_count_once)
{
	static const char *const wl[] = { "8", "64", "2", NULL };
	static const char *const fl_new[] = { "-f", "--metric", "new", NULL };
	static const char *const fl_growth[] = { "-f", NULL };
	struct h_run r;
	uint64_t growth, fresh, own, share;

	h_attach_run_ok(&r, "sharedkids", wl, fl_growth);
	growth = h_folded_total(&r.folded);
	h_folded_free(&r.folded);
	/* the contrast the metric exists for: each child's RSS grew by the shared mapping */
	cr_expect_geq(growth, KIDS * (SHARED_MIB + OWN_MIB) * MIB * 98 / 100,
		      "resident growth %llu, expected >= 8 x 66 MiB", (unsigned long long)growth);

	h_attach_run_ok(&r, "sharedkids", wl, fl_new);
	fresh = h_folded_total(&r.folded);
	own = h_folded_frame(&r.folded, "kid_own");
	share = h_folded_frame(&r.folded, "kid_share");
	h_within_ok("kid_own's new memory vs the children's own writes", own, KIDS * OWN_MIB * MIB,
		    &r.folded);
	cr_expect_leq(share, 256 * 1024, "kid_share mapped pages already resident: %llu new",
		      (unsigned long long)share);
	cr_expect(fresh >= own && fresh <= KIDS * OWN_MIB * MIB + FORK_SLACK,
		  "new memory in all %llu, expected 16 MiB + at most 2 MiB of fork's copies",
		  (unsigned long long)fresh);
	h_folded_free(&r.folded);
}
