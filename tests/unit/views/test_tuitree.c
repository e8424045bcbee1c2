/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The interactive view's tree: visibility, order, expand/collapse across refreshes, deltas. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "views/tuitree.h"
#include "unit/model_builder.h"

#define MIB (1024ULL * 1024ULL)

/* app (100) -> main (100) -> {big 70, small 25, tiny 5}; app -> [exit] (0 resident) */
static struct profile *sample(uint64_t big)
{
	struct profile *p = profile__new();

	cr_assert_not_null(p);
	model_add(p, "app|main|big", model_anon(big * MIB, 0));
	model_add(p, "app|main|small", model_anon(25 * MIB, 0));
	model_add(p, "app|main|tiny", model_anon(5 * MIB, 0));
	model_add(p, "app|[exit]", model_anon(0, 0));
	return p;
}

static const char *name_at(const struct tui_row *r, size_t n, size_t i)
{
	cr_assert_lt(i, n);
	return r[i].node->name;
}

Test(tuitree, auto_expands_heavy_nodes_in_order)
{
	struct tui_tree t = { .auto_share = 0.5 };
	struct profile *p = sample(70);
	struct tui_row *r;
	size_t n;

	cr_assert_eq(tuitree__rows(&t, p, FL_METRIC_RESIDENT, TUI_SORT_TOTAL, &r, &n), 0);
	/* app and main hold 100%: open; big holds 70% but is a leaf; [exit] holds 0: hidden */
	cr_assert_eq(n, 5, "%zu rows", n);
	cr_expect_str_eq(name_at(r, n, 0), "app");
	cr_expect_str_eq(name_at(r, n, 1), "main");
	cr_expect_str_eq(name_at(r, n, 2), "big");
	cr_expect_str_eq(name_at(r, n, 3), "small");
	cr_expect_str_eq(name_at(r, n, 4), "tiny");
	cr_expect_eq(r[2].depth, 2);
	cr_expect(r[1].expanded && r[1].has_children);
	cr_expect_not(r[2].has_children);
	cr_expect_eq(r[3].value, 25 * MIB);
	free(r);
	profile__free(p);
	tuitree__free(&t);
}

/* The user's choice holds in the next refresh's profile, found by the node's path. */
Test(tuitree, marks_survive_refreshes)
{
	struct tui_tree t = { .auto_share = 0.5 };
	struct profile *p = sample(70), *q;
	struct tui_row *r;
	size_t n;

	cr_assert_eq(tuitree__rows(&t, p, FL_METRIC_RESIDENT, TUI_SORT_TOTAL, &r, &n), 0);
	cr_assert_eq(tuitree__mark(&t, r[1].path, false), 0); /* collapse main */
	free(r);
	q = sample(80);
	tuitree__rotate(&t);
	cr_assert_eq(tuitree__rows(&t, q, FL_METRIC_RESIDENT, TUI_SORT_TOTAL, &r, &n), 0);
	cr_expect_eq(n, 2, "main's children hidden: %zu rows", n);
	cr_expect_not(r[1].expanded);
	cr_assert_eq(tuitree__mark(&t, r[0].path, false), 0); /* collapse app */
	free(r);
	cr_assert_eq(tuitree__rows(&t, q, FL_METRIC_RESIDENT, TUI_SORT_TOTAL, &r, &n), 0);
	cr_expect_eq(n, 1);
	free(r);
	profile__free(p);
	profile__free(q);
	tuitree__free(&t);
}

/* Growth since the previous refresh, and the order it gives; a redraw changes nothing. */
Test(tuitree, deltas_and_delta_order)
{
	struct tui_tree t = { .auto_share = 0.0 };
	struct profile *p = sample(70), *q = profile__new();
	struct tui_row *r;
	size_t n;

	model_add(q, "app|main|big", model_anon(71 * MIB, 0));
	model_add(q, "app|main|small", model_anon(35 * MIB, 0));
	model_add(q, "app|main|tiny", model_anon(5 * MIB, 0));
	cr_assert_eq(tuitree__rows(&t, p, FL_METRIC_RESIDENT, TUI_SORT_TOTAL, &r, &n), 0);
	cr_expect_eq(r[0].delta, 0, "no previous refresh yet");
	free(r);
	tuitree__rotate(&t);
	for (int redraw = 0; redraw < 2; redraw++) {
		cr_assert_eq(tuitree__rows(&t, q, FL_METRIC_RESIDENT, TUI_SORT_DELTA, &r, &n), 0);
		cr_assert_eq(n, 5);
		cr_expect_str_eq(name_at(r, n, 2), "small", "small grew most (+10 MiB)");
		cr_expect_eq(r[2].delta, (int64_t)(10 * MIB));
		cr_expect_str_eq(name_at(r, n, 3), "big");
		cr_expect_eq(r[3].delta, (int64_t)MIB);
		cr_expect_eq(r[0].delta, (int64_t)(11 * MIB));
		free(r);
	}
	tuitree__forget_values(&t);
	tuitree__rotate(&t);
	cr_assert_eq(tuitree__rows(&t, q, FL_METRIC_RESIDENT, TUI_SORT_DELTA, &r, &n), 0);
	cr_expect_eq(r[0].delta, 0, "a new metric has no previous values");
	free(r);
	profile__free(p);
	profile__free(q);
	tuitree__free(&t);
}

Test(tuitree, paths)
{
	uint64_t a = tuitree__path(0, "a");

	cr_expect_neq(tuitree__path(tuitree__path(0, "ab"), "c"),
		      tuitree__path(tuitree__path(0, "a"), "bc"));
	cr_expect_neq(tuitree__path(a, "x"), tuitree__path(tuitree__path(0, "b"), "x"));
	cr_expect_eq(tuitree__path(a, "x"), tuitree__path(tuitree__path(0, "a"), "x"));
	cr_expect_neq(a, 0);
}

Test(tuitree, map_grows)
{
	struct tui_map m = { 0 };
	int64_t v;

	for (uint64_t k = 1; k <= 5000; k++)
		cr_assert_eq(tui_map__set(&m, k * 7919, (int64_t)k), 0);
	cr_expect_eq(m.n, 5000);
	cr_expect(tui_map__get(&m, 4999 * 7919, &v) && v == 4999);
	cr_expect_not(tui_map__get(&m, 3, &v));
	tui_map__clear(&m);
	cr_expect_not(tui_map__get(&m, 7919, &v));
	tui_map__free(&m);
}
