/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* --sample-time: when the next window of the allocator probes opens. */
#include <criterion/criterion.h>
#include "probes/probewindows.h"

#define MS 1000000ull

/* 20 ms in so far at 10%: a 20 ms window opening at 380 ms closes at 400 ms, 40 ms in. */
Test(probewindows, opens_when_the_share_comes_out_right)
{
	uint64_t at = probe_windows__next_open(20 * MS, 20 * MS, 0.10, 25 * MS);

	cr_expect_eq(at, 380 * MS);
	cr_expect_float_eq((double)(20 + 20) / ((double)(at + 20 * MS) / MS), 0.10, 1e-9);
}

/* Behind the share (the attach waited, the machine was busy): at once, never in the past. */
Test(probewindows, never_before_now)
{
	cr_expect_eq(probe_windows__next_open(10 * MS, 20 * MS, 0.10, 900 * MS), 900 * MS);
	cr_expect_eq(probe_windows__next_open(0, 10 * MS, 0.50, 0), 10 * MS);
}

/* Windows of any lengths, each opened when due: the share of the time stays the one asked. */
Test(probewindows, the_share_holds_over_many_windows)
{
	uint64_t in = 0, now = 0, lens[] = { 10, 30, 17, 25, 12, 29, 11, 20 };

	for (int i = 0; i < 400; i++) {
		uint64_t len = lens[i % 8] * MS;

		now = probe_windows__next_open(in, len, 0.05, now) + len;
		in += len;
	}
	cr_expect_float_eq((double)in / (double)now, 0.05, 1e-6);
}

/* A window's length grows when putting the probes in and out costs more than 1% of a core at
 * the windows' pace: 200 targets taking 10 ms of CPU per window at 10% make 200 ms windows. */
Test(probewindows, windows_lengthen_with_their_own_cost)
{
	cr_expect_eq(probe_windows__len(20 * MS, 100000, 0.10), 20 * MS, "0.1 ms: cheap enough");
	cr_expect_eq(probe_windows__len(20 * MS, 20 * MS, 0.10), 200 * MS);
	cr_expect_eq(probe_windows__len(20 * MS, 20 * MS, 0.01), 20 * MS);
	/* and then the share of the time holds: one window every len / fraction */
	cr_expect_eq(probe_windows__next_open(0, 200 * MS, 0.10, 0), 1800 * MS);
}
