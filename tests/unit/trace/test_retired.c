/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <errno.h>
#include "trace/collector.h"
#include "trace/retired.h"

static struct fl_row row(uint32_t tgid, uint16_t gen, uint64_t stack, uint64_t anon)
{
	struct fl_row r = { .key = { .tgid = tgid, .tid = tgid, .gen = gen, .stack = stack } };

	r.counts.grow[FL_ANON] = anon;
	return r;
}

/* A process is its pid and generation; generation 0 rows go along only when asked. */
Test(retired, owns_by_pid_and_generation)
{
	struct retired_rows *r = retired_rows__new();
	struct fl_row a = row(100, 7, 1, 0), other = row(100, 8, 1, 0), zero = row(100, 0, 1, 0);
	struct fl_row given = row(200, 0, 1, 0);

	cr_assert_not_null(r);
	cr_expect_not(retired_rows__owns(r, &a.key), "nothing marked yet");
	cr_assert_eq(retired_rows__mark(r, 100, 7, false), 0);
	cr_expect(retired_rows__owns(r, &a.key));
	cr_expect_not(retired_rows__owns(r, &other.key), "another process of the same pid");
	cr_expect_not(retired_rows__owns(r, &zero.key), "not the newest: its gen 0 rows stay");
	cr_assert_eq(retired_rows__mark(r, 100, 7, true), 0);
	cr_expect(retired_rows__owns(r, &zero.key));
	cr_assert_eq(retired_rows__mark(r, 200, 0, true), 0);
	cr_expect(retired_rows__owns(r, &given.key), "a given target has generation 0");
	for (uint32_t pid = 1000; pid < 3000; pid++)
		cr_assert_eq(retired_rows__mark(r, pid, 1, false), 0);
	cr_expect(retired_rows__owns(r, &a.key), "still there after growing");
	retired_rows__free(r);
}

/* A row moved twice (made again by a late teardown) is one row with both counts. */
Test(retired, rows_add_up)
{
	struct retired_rows *r = retired_rows__new();
	struct fl_row a = row(100, 7, 1, 4096), b = row(100, 7, 2, 12288);
	const struct fl_row *rows;
	size_t n;

	cr_assert_eq(retired_rows__add(r, &a, NULL, true), 0);
	cr_assert_eq(retired_rows__add(r, &b, NULL, true), 0);
	cr_assert_eq(retired_rows__add(r, &a, NULL, true), 0);
	rows = retired_rows__rows(r, &n);
	cr_assert_eq(n, 2);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(rows[i].counts.grow[FL_ANON], rows[i].key.stack == 1 ? 8192 : 12288);
	for (uint64_t s = 10; s < 5000; s++) {
		struct fl_row x = row(300, 1, s, 1);

		cr_assert_eq(retired_rows__add(r, &x, NULL, true), 0);
	}
	rows = retired_rows__rows(r, &n);
	cr_expect_eq(n, 2 + 4990);
	retired_rows__free(r);
}

Test(retired, stacks_kept)
{
	struct retired_rows *r = retired_rows__new();
	uint64_t ips[FL_MAX_STACK_DEPTH] = { 0x1000, 0x2000, 0x3000 }, out[FL_MAX_STACK_DEPTH];
	uint32_t end = 0;

	cr_expect_eq(retired_rows__stack(r, 42, out, NULL), 0);
	cr_assert_eq(retired_rows__keep_stack(r, 42, ips, 3, FL_END_WHOLE), 0);
	cr_assert_eq(retired_rows__keep_stack(r, 42, ips, 1, FL_END_FP), 0, "kept once");
	cr_assert_eq(retired_rows__stack(r, 42, out, NULL), 3);
	cr_expect_eq(out[2], 0x3000);
	for (uint64_t s = 100; s < 2000; s++)
		cr_assert_eq(retired_rows__keep_stack(r, s, ips, 2, FL_END_FP), 0);
	cr_expect_eq(retired_rows__stack(r, 42, out, &end), 3);
	cr_expect_eq(end, FL_END_WHOLE, "how its walk ended, kept with it");
	cr_expect_eq(retired_rows__stack(r, 1999, out, NULL), 2);
	cr_expect_eq(retired_rows__stack(r, 7, out, NULL), 0);
	retired_rows__free(r);
}

/* Folded processes share rows under the first one's key; each keeps what it was charged. */
Test(retired, folded_share_rows_keep_sums)
{
	struct retired_rows *r = retired_rows__new();
	struct fl_row a = row(100, 7, 1, 4096), b = row(200, 8, 1, 8192), c = row(200, 8, 2, 4096);
	struct fl_row b0 = row(200, 0, 1, 4096), exit_row = row(200, 8, 0, 65536);
	struct fl_row mine = row(300, 9, 1, 4096);
	struct fl_alloc_hist h = { .size = { 1, 2 } };
	const struct retired_sum *sum;
	const struct collector_hist *got;
	const struct fl_row *rows;
	size_t n;

	exit_row.key.origin = FL_ORIGIN_EXIT;
	b.key.tid = 201; /* a thread: shown as the process's once folded */
	b.key.call = c.key.call = FL_FN_MALLOC;
	a.key.call = FL_FN_MALLOC;
	cr_assert_eq(retired_rows__fold(r, 100, 7, false, 100, 7, false), -ENOENT, "not marked");
	cr_assert_eq(retired_rows__mark(r, 100, 7, false), 0);
	cr_assert_eq(retired_rows__mark(r, 200, 8, true), 0);
	cr_assert_eq(retired_rows__mark(r, 300, 9, false), 0);
	cr_assert_eq(retired_rows__fold(r, 100, 7, false, 100, 7, false), 0);
	cr_assert_eq(retired_rows__fold(r, 200, 8, true, 100, 7, false), 0);
	cr_expect_null(retired_rows__folded(r, 300, 9), "marked, not folded");
	cr_assert_eq(retired_rows__add(r, &a, &h, true), 0);
	cr_assert_eq(retired_rows__add(r, &b, &h, true), 0);
	cr_assert_eq(retired_rows__add(r, &c, NULL, true), 0);
	cr_assert_eq(retired_rows__add(r, &b0, NULL, true), 0);
	cr_assert_eq(retired_rows__add(r, &exit_row, NULL, true), 0);
	cr_assert_eq(retired_rows__add(r, &mine, NULL, true), 0);
	rows = retired_rows__rows(r, &n);
	cr_assert_eq(n, 5, "a and b share a row; c, b0 (no call), [exit] and 300's apart");
	for (size_t i = 0; i < n; i++) {
		if (rows[i].key.tgid == 300) {
			cr_expect_eq(rows[i].counts.grow[FL_ANON], 4096, "unfolded: its own");
			continue;
		}
		cr_expect_eq(rows[i].key.tgid, 100);
		cr_expect_eq(rows[i].key.tid, 100);
		cr_expect_eq(rows[i].key.gen, 7);
		if (rows[i].key.stack == 1 && rows[i].key.call)
			cr_expect_eq(rows[i].counts.grow[FL_ANON], 4096 + 8192);
	}
	got = retired_rows__hist(r, &a.key);
	cr_assert_not_null(got);
	cr_expect_eq(got->hist.size[1], 4, "both histograms in the shared row");
	sum = retired_rows__folded(r, 200, 8);
	cr_assert_not_null(sum);
	cr_expect_eq(sum->attributed.grow[FL_ANON], 8192 + 4096 + 4096, "[exit] is not charged");
	cr_expect_eq(retired_rows__folded(r, 200, 0), sum, "its generation 0 rows go with it");
	cr_expect_eq(retired_rows__folded(r, 100, 7)->attributed.grow[FL_ANON], 4096);
	retired_rows__free(r);
}

Test(retired, exec_folds_portable_rows_only)
{
	struct retired_rows *r = retired_rows__new();
	struct fl_row same = row(100, 7, 1, 4096), other = row(200, 8, 1, 8192);
	struct fl_row aslr = row(200, 8, 2, 4096);
	const struct fl_row *rows;
	size_t n, own = 0;

	cr_assert_eq(retired_rows__mark(r, 100, 7, false), 0);
	cr_assert_eq(retired_rows__mark(r, 200, 8, false), 0);
	cr_assert_eq(retired_rows__fold(r, 100, 7, false, 100, 7, true), 0);
	cr_assert_eq(retired_rows__fold(r, 200, 8, false, 100, 7, true), 0);
	cr_assert_eq(retired_rows__add(r, &same, NULL, true), 0);
	cr_assert_eq(retired_rows__add(r, &other, NULL, true), 0);
	cr_expect_not(retired_rows__kept_own(r, 200, 8), "all its rows went to 100's");
	cr_assert_eq(retired_rows__add(r, &aslr, NULL, false), 0);
	cr_expect(retired_rows__kept_own(r, 200, 8), "a stack of addresses stays its own");
	cr_expect_not(retired_rows__kept_own(r, 100, 7));
	cr_expect(retired_rows__kept_own(r, 300, 9), "not folded: every row is its own");
	rows = retired_rows__rows(r, &n);
	cr_assert_eq(n, 2, "the portable rows share one; the other apart");
	for (size_t i = 0; i < n; i++) {
		if (rows[i].key.tgid == 200) {
			own++;
			cr_expect_eq(rows[i].key.stack, 2);
			continue;
		}
		cr_expect_eq(rows[i].counts.grow[FL_ANON], 4096 + 8192);
	}
	cr_expect_eq(own, 1);
	cr_expect_eq(retired_rows__folded(r, 200, 8)->attributed.grow[FL_ANON], 8192 + 4096,
		     "what it was charged counts every row, its own too");
	retired_rows__free(r);
}

/* Processes whose rows are all another's are forgotten: their marks and sums go, with the mark
 * of generation 0 that was theirs; the others, and the rows, stay as they were. */
Test(retired, forgotten_processes_leave_the_rest_as_it_was)
{
	struct retired_rows *r = retired_rows__new();
	struct fl_row a = row(100, 7, 1, 4096), b = row(200, 8, 1, 8192), b0 = row(200, 0, 2, 512);
	struct retired_proc gone[] = { { 200, 8 }, { 999, 1 } }; /* 999: never marked */
	const struct fl_row *rows;
	size_t n;

	cr_assert_eq(retired_rows__mark(r, 100, 7, false), 0);
	cr_assert_eq(retired_rows__mark(r, 300, 9, false), 0);
	cr_assert_eq(retired_rows__mark(r, 200, 8, true), 0);
	cr_assert_eq(retired_rows__fold(r, 100, 7, false, 100, 7, false), 0);
	cr_assert_eq(retired_rows__fold(r, 200, 8, true, 100, 7, false), 0);
	for (uint32_t pid = 1000; pid < 1500; pid++) {
		cr_assert_eq(retired_rows__mark(r, pid, 1, false), 0);
		cr_assert_eq(retired_rows__fold(r, pid, 1, false, 100, 7, false), 0);
	}
	cr_assert_eq(retired_rows__add(r, &a, NULL, true), 0);
	cr_assert_eq(retired_rows__add(r, &b, NULL, true), 0);
	cr_assert_eq(retired_rows__add(r, &b0, NULL, true), 0);
	cr_expect_not(retired_rows__kept_own(r, 200, 8), "all its rows are 100's");
	cr_assert_eq(retired_rows__forget(r, gone, 2), 0);
	cr_expect_null(retired_rows__folded(r, 200, 8));
	cr_expect_null(retired_rows__folded(r, 200, 0), "its generation 0 mark went too");
	cr_expect_not(retired_rows__owns(r, &b.key));
	cr_assert_not_null(retired_rows__folded(r, 100, 7), "the one it was folded into stays");
	cr_expect_eq(retired_rows__folded(r, 100, 7)->attributed.grow[FL_ANON], 4096,
		     "with its own sum, moved as the sums closed up");
	cr_expect(retired_rows__owns(r, &(struct fl_row){ .key = { .tgid = 300, .gen = 9 } }.key),
		  "marked, not folded: stays");
	for (uint32_t pid = 1000; pid < 1500; pid++)
		cr_assert_not_null(retired_rows__folded(r, pid, 1), "pid %u", pid);
	rows = retired_rows__rows(r, &n);
	cr_expect_eq(n, 2, "the rows are 100's: they stay");
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(rows[i].key.tgid, 100);
	retired_rows__free(r);
}
