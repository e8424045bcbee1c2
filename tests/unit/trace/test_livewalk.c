/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The walks of the live table: their pace, and what is kept of the last one between them. */
#include <criterion/criterion.h>
#include "trace/collector.h"
#include "trace/livewalk.h"

#define MS 1000000ull

static struct fl_key key(uint32_t tgid, uint64_t stack)
{
	return (struct fl_key){ .tgid = tgid, .tid = tgid, .call = FL_FN_MALLOC, .stack = stack };
}

/* An allocation row of @tgid: @allocs blocks of 100 B, @frees of them freed. */
static struct fl_row row(uint32_t tgid, uint64_t stack, uint64_t allocs, uint64_t frees)
{
	struct fl_row r = { .key = key(tgid, stack) };

	r.counts.allocs = allocs;
	r.counts.alloc_bytes = allocs * 100;
	r.counts.frees = frees;
	r.counts.free_bytes = frees * 100;
	return r;
}

static struct collector_drop drop(uint32_t tgid, uint64_t stack, uint64_t count)
{
	return (struct collector_drop){ key(tgid, stack), count, count * 100 };
}

/* The first read walks; then a walk of 200 ms of CPU waits 100 times that, from its start. */
Test(livewalk, paced_at_a_hundredth_of_the_time)
{
	struct pace p = {};

	cr_expect(livewalk__due(&p, COLLECTOR_WALK_PACED, 5 * MS), "never walked: due");
	cr_expect_not(livewalk__due(&p, COLLECTOR_WALK_NONE, 5 * MS), "nothing shows the ages");
	pace__done(&p, 1000 * MS, 200 * MS);
	cr_expect_eq(p.at, 1000 * MS);
	cr_expect_not(livewalk__due(&p, COLLECTOR_WALK_PACED, 1200 * MS));
	cr_expect_not(livewalk__due(&p, COLLECTOR_WALK_PACED, 20999 * MS));
	cr_expect(livewalk__due(&p, COLLECTOR_WALK_PACED, 21000 * MS));
	cr_expect(livewalk__due(&p, COLLECTOR_WALK_NOW, 1200 * MS), "the final report walks");
	cr_expect_not(livewalk__due(&p, COLLECTOR_WALK_NONE, 30000 * MS));
	/* a small table: every read */
	pace__done(&p, 21000 * MS, 1 * MS / 10);
	cr_expect(livewalk__due(&p, COLLECTOR_WALK_PACED, 21010 * MS));
}

/* Each histogram gets its row's age, or 0: rows new since the walk, rows without one. */
Test(livewalk, ages_go_to_their_rows)
{
	struct collector_hist h[4] = { { .key = key(1, 1), .oldest_ts = 77 },
				       { .key = key(1, 2) },
				       { .key = key(1, 4) },
				       { .key = key(2, 1) } };
	struct livewalk_age ages[] = { { key(1, 2), 20 },
				       { key(1, 3), 30 },
				       { key(2, 1), 40 },
				       { key(3, 1), 50 } };

	livewalk__apply_ages(h, 4, ages, 4);
	cr_expect_eq(h[0].oldest_ts, 0, "not in the last walk: none, not a stale one");
	cr_expect_eq(h[1].oldest_ts, 20);
	cr_expect_eq(h[2].oldest_ts, 0);
	cr_expect_eq(h[3].oldest_ts, 40);
	livewalk__apply_ages(h, 4, NULL, 0);
	cr_expect_eq(h[1].oldest_ts + h[3].oldest_ts, 0, "no walk yet");
}

/* Drops of one row are summed, and charged to that row as frees at each read. */
Test(livewalk, drops_merge_and_charge)
{
	struct collector_drop d[] = { drop(2, 5, 3), drop(1, 5, 1), drop(2, 5, 4), drop(1, 6, 2) };
	struct fl_row rows[] = { row(1, 5, 10, 0), row(2, 5, 10, 1), row(2, 9, 10, 0) };
	size_t n = livewalk__merge_drops(d, 4);

	cr_assert_eq(n, 3);
	cr_expect_eq(d[2].row.tgid, 2);
	cr_expect_eq(d[2].count, 7);
	cr_expect_eq(d[2].bytes, 700);
	livewalk__charge_drops(rows, 3, d, n);
	cr_expect_eq(rows[0].counts.frees, 1);
	cr_expect_eq(rows[1].counts.frees, 8);
	cr_expect_eq(rows[1].counts.free_bytes, 800);
	cr_expect_eq(rows[2].counts.frees, 0);
	cr_expect_eq(livewalk__merge_drops(NULL, 0), 0);
}

/*
 * An exec calls for a walk only when the process holds more than the drops already known: the
 * blocks an image leaves behind are never freed, and those known stay known.
 */
Test(livewalk, exec_walks_only_when_blocks_may_be_left)
{
	struct collector_gen was[] = { { 1, 10 }, { 2, 20 } };
	struct collector_gen same[] = { { 1, 10 }, { 2, 20 } };
	struct collector_gen exec1[] = { { 1, 11 }, { 2, 20 } };
	struct collector_gen exec3[] = { { 1, 10 }, { 2, 20 }, { 3, 30 } };
	struct fl_row rows[] = { row(1, 5, 10, 10), row(1, 6, 4, 0), row(2, 5, 9, 2),
				 row(3, 5, 1, 1) };
	struct collector_drop known[] = { drop(1, 6, 4) };

	cr_expect_eq(livewalk__drops_moved(was, 2, same, 2, rows, 4, known, 1), 0, "no exec");
	cr_expect_eq(livewalk__drops_moved(was, 2, same, 2, rows, 4, NULL, 0), 0,
		     "no exec: what was left is the walk's business, not the drops'");
	cr_expect_eq(livewalk__drops_moved(was, 2, exec1, 2, rows, 4, known, 1), 0,
		     "process 1 holds its known drops only");
	cr_expect_eq(livewalk__drops_moved(was, 2, exec1, 2, rows, 4, NULL, 0), 1,
		     "process 1 holds 4 blocks nobody knows of");
	cr_expect_eq(livewalk__drops_moved(was, 2, exec3, 3, rows, 4, known, 1), 0,
		     "process 3 exec'd with nothing live");
	rows[3].counts.free_bytes = 0; /* an excess in bytes alone calls for a walk too */
	cr_expect_eq(livewalk__drops_moved(was, 2, exec3, 3, rows, 4, known, 1), 1);
	cr_expect_eq(livewalk__drops_moved(NULL, 0, exec3, 3, rows, 3, NULL, 0), 1,
		     "the first exec of a process that holds blocks");
}

/* With the counts map full, an allocation is on its process's overflow row, its free on its
 * own row: the sum over the process still tells. */
Test(livewalk, exec_counts_the_overflow_row)
{
	struct collector_gen was[] = { { 1, 10 } }, now[] = { { 1, 11 } };
	struct fl_row rows[] = { row(1, 5, 0, 3), row(1, 0, 5, 0) };

	rows[1].key.origin = FL_ORIGIN_OVERFLOW;
	rows[1].key.call = 0;
	cr_expect_eq(livewalk__drops_moved(was, 1, now, 1, rows, 2, NULL, 0), 1, "2 blocks live");
	rows[0].counts.frees = rows[1].counts.allocs;
	rows[0].counts.free_bytes = rows[1].counts.alloc_bytes;
	cr_expect_eq(livewalk__drops_moved(was, 1, now, 1, rows, 2, NULL, 0), 0, "none live");
}

/* A process with no exec id any more is counted by no walk: its drops go. */
Test(livewalk, drops_of_processes_gone_from_the_exec_ids)
{
	struct collector_drop d[] = { drop(1, 5, 1), drop(2, 5, 2), drop(3, 5, 3) };
	struct collector_gen now[] = { { 1, 10 }, { 3, 31 } };
	size_t n = livewalk__keep_drops(d, 3, now, 2);

	cr_assert_eq(n, 2);
	cr_expect_eq(d[0].row.tgid, 1);
	cr_expect_eq(d[1].row.tgid, 3, "a new exec id keeps them: they can never be freed");
	cr_expect_eq(livewalk__keep_drops(d, 2, NULL, 0), 0);
}

/* After a whole walk, an exited process keeps its exec id only while blocks its earlier images
 * left behind remain (its drops): the others would cost every read for the whole session. */
Test(livewalk, kept_exec_ids_go_with_their_drops)
{
	struct collector_gen kept[] = { { 7, 3 }, { 2, 5 }, { 9, 1 }, { 4, 2 } };
	struct collector_drop d[] = { drop(9, 5, 1), drop(2, 6, 2), drop(2, 8, 1) };

	cr_assert_eq(livewalk__prune_kept(kept, 4, d, 3), 2);
	cr_expect_eq(kept[0].tgid, 2);
	cr_expect_eq(kept[0].gen, 5);
	cr_expect_eq(kept[1].tgid, 9);
	cr_expect_eq(livewalk__prune_kept(kept, 2, NULL, 0), 0, "no drops: none kept");
}
