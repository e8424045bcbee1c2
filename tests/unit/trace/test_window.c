/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* --every's windows: a row's counts since the last window, and its baseline when it moves. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include "model/profile.h"
#include "trace/collector.h"
#include "trace/window.h"

static struct fl_row row(uint32_t tgid, uint64_t stack, uint64_t grow, uint64_t faults)
{
	struct fl_row r = { .key = { .tgid = tgid, .tid = tgid, .stack = stack } };

	r.counts.grow[FL_ANON] = grow;
	r.counts.faults = faults;
	r.counts.at_peak = (int64_t)grow;
	r.counts.peak_seq = 3;
	return r;
}

Test(window, rows_since_the_mark_and_nothing_else)
{
	struct window_base *w = window_base__new();
	struct fl_row before[] = { row(10, 1, 100, 4), row(10, 2, 50, 2) };
	struct fl_row now[] = { row(10, 1, 150, 6), row(10, 2, 50, 2), row(11, 3, 10, 1) };
	struct fl_row *out;
	size_t n;

	cr_assert_not_null(w);
	cr_assert_eq(window_base__since(w, before, 2, &out, NULL, &n), 0);
	cr_expect_eq(n, 2, "the first window: everything since attach");
	cr_expect_eq(out[0].counts.at_peak, 0, "no peak in a window");
	free(out);
	cr_assert_eq(window_base__mark(w, before, 2, NULL, NULL), 0);
	cr_assert_eq(window_base__since(w, now, 3, &out, NULL, &n), 0);
	cr_assert_eq(n, 2, "the row that did not change is left out");
	cr_expect_eq(out[0].counts.grow[FL_ANON], 50);
	cr_expect_eq(out[0].counts.faults, 2);
	cr_expect_eq(out[0].counts.peak_seq, 0);
	cr_expect_eq(out[1].key.tgid, 11);
	cr_expect_eq(out[1].counts.grow[FL_ANON], 10, "a new row: all of it");
	free(out);
	window_base__free(w);
}

/* A retired process's row folded into another key: what it held at the mark goes along, or
 * the next window would count it again. */
Test(window, a_moved_row_takes_its_baseline_along)
{
	struct window_base *w = window_base__new();
	struct fl_row before[] = { row(20, 7, 4096, 1), row(30, 7, 1000, 1) };
	struct fl_row after[] = { row(30, 7, 1000 + 4096 + 512, 3) }; /* 20 folded into 30 */
	struct fl_row *out;
	size_t n;

	cr_assert_eq(window_base__mark(w, before, 2, NULL, NULL), 0);
	cr_assert_eq(window_base__move(w, &before[0].key, &after[0].key), 0);
	cr_assert_eq(window_base__since(w, after, 1, &out, NULL, &n), 0);
	cr_assert_eq(n, 1);
	cr_expect_eq(out[0].counts.grow[FL_ANON], 512, "only what came since the mark");
	cr_expect_eq(out[0].counts.faults, 1);
	free(out);
	/* the old key has nothing left: a new process with it starts from 0 */
	cr_assert_eq(window_base__since(w, &before[0], 1, &out, NULL, &n), 0);
	cr_expect_eq(n, 1);
	cr_expect_eq(out[0].counts.grow[FL_ANON], 4096);
	free(out);
	window_base__free(w);
}

static bool only_10(const struct fl_key *key, void *ctx)
{
	(void)ctx;
	return key->tgid == 10;
}

/* A row the window did not take (its process not known yet) keeps its baseline: what it holds
 * goes into the first window that takes it, not nowhere. */
Test(window, rows_not_taken_wait_for_the_next_window)
{
	struct window_base *w = window_base__new();
	struct fl_row first[] = { row(10, 1, 100, 1), row(12, 5, 300, 1) };
	struct fl_row later[] = { row(10, 1, 120, 2), row(12, 5, 400, 2) };
	struct fl_row *out;
	size_t n;

	cr_assert_eq(window_base__mark(w, first, 2, only_10, NULL), 0);
	cr_assert_eq(window_base__since(w, later, 2, &out, NULL, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect_eq(out[0].counts.grow[FL_ANON], 20);
	cr_expect_eq(out[1].counts.grow[FL_ANON], 400, "all of it: no window took any");
	free(out);
	window_base__free(w);
}

/* Over days the rows come and go: the table holds those of the last mark, not all ever seen. */
Test(window, the_table_holds_the_rows_of_now)
{
	struct window_base *w = window_base__new();
	struct fl_row rows[64];

	for (uint32_t round = 0; round < 100; round++) {
		for (int i = 0; i < 64; i++)
			rows[i] = row(1000 + round * 64 + (uint32_t)i, 9, 4096, 1);
		cr_assert_eq(window_base__mark(w, rows, 64, NULL, NULL), 0);
	}
	cr_expect_eq(window_base__size(w), 64, "%zu baselines", window_base__size(w));
	window_base__free(w);
}

static struct fl_row alloc_row(uint32_t tgid, uint64_t stack, uint64_t allocs, uint64_t frees)
{
	struct fl_row r = { .key = { .tgid = tgid, .tid = tgid, .stack = stack } };

	r.counts.allocs = allocs;
	r.counts.alloc_bytes = allocs * 100;
	r.counts.frees = frees;
	r.counts.free_bytes = frees * 100;
	return r;
}

/* --alloc: a window's allocations are those made in it, its live heap the one held as it ends:
 * a row that allocated nothing since still shows what it holds. */
Test(window, the_live_heap_is_the_one_held_as_the_window_ends)
{
	struct window_base *w = window_base__new();
	struct fl_row first[] = { alloc_row(10, 1, 50, 0), alloc_row(10, 2, 8, 8) };
	struct fl_row later[] = { alloc_row(10, 1, 50, 10), alloc_row(10, 2, 8, 8),
				  alloc_row(10, 3, 5, 1) };
	struct fl_row *out, *ends;
	size_t n;

	cr_assert_eq(window_base__mark(w, first, 2, NULL, NULL), 0);
	cr_assert_eq(window_base__since(w, later, 3, &out, &ends, &n), 0);
	cr_assert_eq(n, 2, "the row with nothing since and nothing held is left out");
	cr_expect_eq(out[0].key.stack, 1);
	cr_expect_eq(out[0].counts.allocs, 0, "nothing allocated in the window");
	cr_expect_eq(out[0].counts.frees, 10);
	cr_expect_eq(metric__value(&ends[0].counts, FL_METRIC_LIVE_COUNT), 40,
		     "the 40 blocks still held");
	cr_expect_eq(metric__value(&ends[0].counts, FL_METRIC_LIVE_BYTES), 4000);
	cr_expect_eq(ends[1].key.stack, 3, "the ends are beside their rows");
	cr_expect_eq(out[1].counts.allocs, 5);
	cr_expect_eq(metric__value(&ends[1].counts, FL_METRIC_LIVE_COUNT), 4);
	free(out);
	free(ends);
	/* without ends (no live heap), a row with nothing since is left out */
	cr_assert_eq(window_base__mark(w, later, 3, NULL, NULL), 0);
	cr_assert_eq(window_base__since(w, later, 3, &out, NULL, &n), 0);
	cr_expect_eq(n, 0);
	free(out);
	window_base__free(w);
}
