/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include "rss_math.h"

static void expect_all(const __s64 last[FL_MEMBERS], __s64 v)
{
	int i;

	for (i = 0; i < FL_MEMBERS; i++)
		cr_expect_eq(last[i], v, "member %d: %lld, expected %lld", i, (long long)last[i],
			     (long long)v);
}

Test(rss_math, member_index)
{
	cr_expect_eq(fl_member_index(FL_FILE), 0);
	cr_expect_eq(fl_member_index(FL_ANON), 1);
	cr_expect_eq(fl_member_index(FL_SWAP), 2);
	cr_expect_eq(fl_member_index(FL_SHMEM), 3);
	cr_expect_eq(fl_member_index(4), -1);
	cr_expect_eq(fl_member_index(-1), -1);
}

/* The mm that existed at attach starts from the counters read then, once. */
Test(rss_math, baseline_seeded)
{
	struct fl_proc p = { .mm_id = 0, .flags = FL_PROC_SEEDED,
			     .seed = { 4096, 8192, 0, 12288 } };
	__s64 last[FL_MEMBERS] = { 0 };
	__u32 flags = fl_mm_baseline(&p, 77, last);

	cr_expect_eq(last[FL_FILE], 4096);
	cr_expect_eq(last[FL_ANON], 8192);
	cr_expect_eq(last[FL_SWAP], 0);
	cr_expect_eq(last[FL_SHMEM], 12288);
	cr_expect_not(flags & FL_PROC_SEEDED, "the seed is used once");
	cr_expect(flags & FL_PROC_MM_KNOWN);
	cr_expect_not(flags & FL_PROC_FRESH);
}

/* Seeded wins over fresh, and fresh is cleared either way. */
Test(rss_math, baseline_seeded_and_fresh)
{
	struct fl_proc p = { .flags = FL_PROC_SEEDED | FL_PROC_FRESH, .seed = { 1, 2, 3, 4 } };
	__s64 last[FL_MEMBERS];
	__u32 flags = fl_mm_baseline(&p, 5, last);

	cr_expect_eq(last[FL_SHMEM], 4);
	cr_expect_eq(flags, FL_PROC_MM_KNOWN);
}

/* An mm created by exec starts empty: everything it gains is growth. */
Test(rss_math, baseline_fresh_after_exec)
{
	struct fl_proc p = { .mm_id = 10, .flags = FL_PROC_FRESH | FL_PROC_AWAIT_EXEC };
	__s64 last[FL_MEMBERS] = { 1, 1, 1, 1 };
	__u32 flags = fl_mm_baseline(&p, 11, last);

	expect_all(last, 0);
	cr_expect_not(flags & FL_PROC_FRESH);
	cr_expect(flags & FL_PROC_MM_KNOWN);
	cr_expect(flags & FL_PROC_AWAIT_EXEC, "other flags are kept");
}

/* A process whose mm is known sees a new one: exec replaced it, so it starts at 0. */
Test(rss_math, baseline_known_other_mm)
{
	struct fl_proc p = { .mm_id = 10, .flags = FL_PROC_MM_KNOWN };
	__s64 last[FL_MEMBERS];
	__u32 flags = fl_mm_baseline(&p, 11, last);

	expect_all(last, 0);
	cr_expect_eq(flags, FL_PROC_MM_KNOWN);
}

/* The same mm seen again (its state was evicted): the first value is a baseline. */
Test(rss_math, baseline_known_same_mm)
{
	struct fl_proc p = { .mm_id = 10, .flags = FL_PROC_MM_KNOWN };
	__s64 last[FL_MEMBERS];

	fl_mm_baseline(&p, 10, last);
	expect_all(last, FL_SIZE_UNKNOWN);
}

/* Nothing known (a forked child with a copy of its parent's counters): unknown. */
Test(rss_math, baseline_unknown)
{
	struct fl_proc p = { 0 };
	__s64 last[FL_MEMBERS];
	__u32 flags = fl_mm_baseline(&p, 3, last);

	expect_all(last, FL_SIZE_UNKNOWN);
	cr_expect_eq(flags, FL_PROC_MM_KNOWN);
}

Test(rss_math, delta)
{
	cr_expect_eq(fl_rss_delta(FL_SIZE_UNKNOWN, 123456), 0, "first value is a baseline");
	cr_expect_eq(fl_rss_delta(FL_SIZE_UNKNOWN, 0), 0);
	cr_expect_eq(fl_rss_delta(0, 4096), 4096);
	cr_expect_eq(fl_rss_delta(8192, 4096), -4096);
	cr_expect_eq(fl_rss_delta(4096, 4096), 0);
	cr_expect_eq(fl_rss_delta(0, 2 * 1024 * 1024), 2 * 1024 * 1024, "a THP fault");
	cr_expect_eq(fl_rss_delta(1LL << 40, (1LL << 40) + 4096), 4096);
}

Test(rss_math, split)
{
	__u64 grow = 99, release = 99;

	fl_split_delta(4096, &grow, &release);
	cr_expect_eq(grow, 4096);
	cr_expect_eq(release, 0);
	fl_split_delta(-8192, &grow, &release);
	cr_expect_eq(grow, 0);
	cr_expect_eq(release, 8192);
	fl_split_delta(0, &grow, &release);
	cr_expect_eq(grow, 0);
	cr_expect_eq(release, 0);
	fl_split_delta(-(1LL << 62), &grow, &release);
	cr_expect_eq(release, 1ULL << 62);
}

/* A sequence of counter values: growth minus release is the net change after the baseline. */
Test(rss_math, sequence_reconciles)
{
	static const __s64 sizes[] = { 1000, 5096, 9192, 4096, 4096, 2101248, 0, 8192 };
	__s64 last = FL_SIZE_UNKNOWN;
	__u64 grow = 0, release = 0, g, r;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		fl_split_delta(fl_rss_delta(last, sizes[i]), &g, &r);
		grow += g;
		release += r;
		last = sizes[i];
	}
	cr_expect_eq((__s64)grow - (__s64)release, 8192 - 1000);
	cr_expect_eq(grow, 4096 + 4096 + 2097152 + 8192);
	cr_expect_eq(release, 5096 + 2101248);
}

/*
 * Peak attribution without touching every row at a peak: a row keeps its net from before
 * its first change after a new peak. Scenario: A grows 64, the process peaks; B grows 16
 * after A released 64 (no new peak); then C grows 100 (a new peak with A at 0, B at 16).
 */
Test(rss_math, peak_attribution)
{
	struct fl_counts a = { 0 }, b = { 0 }, c = { 0 };
	__s64 peak = 0, last[FL_MEMBERS] = { 0, 0, 0, 0 };
	__u64 seq = 0;

	/* A +64: total 64, a new peak */
	fl_peak_before_change(&a, seq);
	a.grow[FL_ANON] += 64;
	last[FL_ANON] = 64;
	if (fl_peak_after_change(&peak, last))
		seq++;
	cr_expect_eq(peak, 64);
	cr_expect_eq(fl_at_peak(&a, seq), 64, "A holds 64 at the peak");
	/* A -64, then B +16: total 16, no new peak */
	fl_peak_before_change(&a, seq);
	a.release[FL_ANON] += 64;
	last[FL_ANON] = 0;
	cr_expect_not(fl_peak_after_change(&peak, last));
	fl_peak_before_change(&b, seq);
	b.grow[FL_ANON] += 16;
	last[FL_ANON] = 16;
	cr_expect_not(fl_peak_after_change(&peak, last));
	cr_expect_eq(fl_at_peak(&a, seq), 64, "A still held 64 at the peak");
	cr_expect_eq(fl_at_peak(&b, seq), 0, "B held nothing then");
	/* C +100 in file pages: total 116, a new peak where A holds 0 and B 16 */
	fl_peak_before_change(&c, seq);
	c.grow[FL_FILE] += 100;
	last[FL_FILE] = 100;
	cr_expect(fl_peak_after_change(&peak, last));
	seq++;
	cr_expect_eq(peak, 116);
	cr_expect_eq(fl_at_peak(&a, seq), 0);
	cr_expect_eq(fl_at_peak(&b, seq), 16);
	cr_expect_eq(fl_at_peak(&c, seq), 100);
	/* swap is not resident */
	c.grow[FL_SWAP] += 1000;
	cr_expect_eq(fl_resident_net(&c), 100);
}
