/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
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

	cr_assert_eq(retired_rows__add(r, &a), 0);
	cr_assert_eq(retired_rows__add(r, &b), 0);
	cr_assert_eq(retired_rows__add(r, &a), 0);
	rows = retired_rows__rows(r, &n);
	cr_assert_eq(n, 2);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(rows[i].counts.grow[FL_ANON], rows[i].key.stack == 1 ? 8192 : 12288);
	for (uint64_t s = 10; s < 5000; s++) {
		struct fl_row x = row(300, 1, s, 1);

		cr_assert_eq(retired_rows__add(r, &x), 0);
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
