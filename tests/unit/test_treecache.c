/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The tree kept across refreshes against one built anew from the same rows with
 * profile__add_src(): rounds of random rows over a pool of paths, some gone, some renamed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "treecache.h"

#define NPATHS 40
#define MAXDEPTH 8

/* A pool path: the process (a name without lines, as snapshot.c gives it) then frames with
 * lines, as frames.h gives them: their names and lines at fixed addresses. */
struct pool_path {
	const char *names[MAXDEPTH];
	const struct frame_info *infos[MAXDEPTH];
	size_t depth;
};

static const char *const func_names[] = { "main", "serve", "parse", "alloc", "grow", "leaf" };
static struct frame_line lines[6][1];
static struct frame_info infos[6];
static char process[2][16] = { "app", "app" };
static struct pool_path pool[NPATHS];
/* each path's own leaf, so that no two paths of the pool are one */
static char leaf_names[NPATHS][16];
static struct frame_line leaf_lines[NPATHS][1];
static struct frame_info leaf_infos[NPATHS];

static void make_pool(unsigned seed)
{
	srand(seed);
	for (int f = 0; f < 6; f++) {
		lines[f][0] = (struct frame_line){ func_names[f], "src.c", 10u + (unsigned)f };
		infos[f] = (struct frame_info){ lines[f], 1 };
	}
	for (int i = 0; i < NPATHS; i++) {
		struct pool_path *p = &pool[i];

		/* two processes whose name can change, as a process's comm does */
		p->names[0] = process[i % 2];
		p->infos[0] = NULL;
		p->depth = 2 + (size_t)rand() % (MAXDEPTH - 1);
		for (size_t d = 1; d < p->depth - 1; d++) {
			int f = rand() % 6;

			p->names[d] = func_names[f];
			p->infos[d] = &infos[f];
		}
		snprintf(leaf_names[i], sizeof(leaf_names[i]), "leaf%d", i);
		leaf_lines[i][0] = (struct frame_line){ leaf_names[i], "leaf.c", (unsigned)i };
		leaf_infos[i] = (struct frame_info){ leaf_lines[i], 1 };
		p->names[p->depth - 1] = leaf_names[i];
		p->infos[p->depth - 1] = &leaf_infos[i];
	}
}

/* The reference: @rows of the pool added to a new profile along their paths. */
static struct profile *fresh(const int *rows, const struct fl_counts *c, size_t n)
{
	struct profile *p = profile__new();

	cr_assert_not_null(p);
	for (size_t i = 0; i < n; i++) {
		const struct pool_path *pp = &pool[rows[i]];
		const char *srcs[MAXDEPTH] = { NULL };
		char buf[MAXDEPTH][32];

		/* "file:line", as stackpath.c writes a frame's line */
		for (size_t d = 1; d < pp->depth; d++) {
			snprintf(buf[d], sizeof(buf[d]), "%s:%u", pp->infos[d]->lines[0].file,
				 pp->infos[d]->lines[0].line);
			srcs[d] = buf[d];
		}
		cr_assert_eq(profile__add_src(p, pp->names, srcs, pp->depth, &c[i]), 0);
	}
	return p;
}

static void expect_same_node(const struct pnode *a, const struct pnode *b)
{
	const struct pnode **ca, **cb;
	size_t na, nb;

	cr_expect_eq(memcmp(&a->total, &b->total, sizeof(a->total)), 0, "total of %s",
		     a->name ? a->name : "root");
	cr_expect_eq(memcmp(&a->self, &b->self, sizeof(a->self)), 0, "self of %s",
		     a->name ? a->name : "root");
	cr_expect_eq(a->leaf, b->leaf);
	cr_expect_eq(!a->src, !b->src);
	if (a->src && b->src)
		cr_expect_str_eq(a->src, b->src);
	cr_assert_eq(pnode__children_by_name(a, &ca, &na), 0);
	cr_assert_eq(pnode__children_by_name(b, &cb, &nb), 0);
	cr_assert_eq(na, nb, "children of %s: %zu kept, %zu anew", a->name ? a->name : "root", na,
		     nb);
	for (size_t i = 0; i < na; i++) {
		cr_assert_str_eq(ca[i]->name, cb[i]->name);
		expect_same_node(ca[i], cb[i]);
	}
	free(ca);
	free(cb);
}

/* One round of @n rows into @tc; the number of tries treecache__end() asked for. */
static int round_into(struct treecache *tc, uint64_t stamp, const int *rows,
		      const struct fl_counts *c, size_t n)
{
	int tries = 0, err;

	cr_assert_eq(treecache__begin(tc, stamp), 0);
	do {
		tries++;
		for (size_t i = 0; i < n; i++)
			cr_assert_eq(treecache__add(tc, pool[rows[i]].names, pool[rows[i]].infos,
						    pool[rows[i]].depth, false, &c[i]),
				     0);
		err = treecache__end(tc);
	} while (err == -EAGAIN && tries < 3);
	cr_assert_eq(err, 0);
	return tries;
}

static void expect_round(struct treecache *tc, const int *rows, const struct fl_counts *c, size_t n,
			 int want_tries)
{
	struct profile *ref = fresh(rows, c, n);

	cr_expect_eq(round_into(tc, 1, rows, c, n), want_tries);
	expect_same_node(&treecache__profile(tc)->root, &ref->root);
	cr_expect_eq(treecache__profile(tc)->nstacks, ref->nstacks);
	profile__free(ref);
}

Test(treecache, rounds_of_random_rows_give_the_tree_built_anew)
{
	struct treecache *tc = treecache__new();
	int rows[3 * NPATHS];
	struct fl_counts c[3 * NPATHS];

	make_pool(7);
	cr_assert_not_null(tc);
	for (int r = 0; r < 30; r++) {
		/* every fifth round drops a path (a row gone: the tree starts over) */
		int skip = r % 5 == 4 ? r % NPATHS : -1;
		size_t n = 0;

		for (int i = 0; i < NPATHS; i++) {
			if (i == skip)
				continue;
			/* a path brought by several rows (threads merged); the odd ones' counts
			 * change from round to round, up or down, the even ones' stay */
			for (int k = 0; k <= i % 3; k++, n++) {
				uint64_t by = i % 2 ? (uint64_t)r + 1 : 1;

				rows[n] = i;
				c[n] = (struct fl_counts){
					.faults = by * (uint64_t)(i + k + 1),
					.allocs = i % 2 ? (uint64_t)rand() % 1000 : 7
				};
				c[n].grow[FL_ANON] = 4096 * c[n].faults;
			}
		}
		expect_round(tc, rows, c, n, skip >= 0 && r > 0 ? 2 : 1);
		/* the next round brings the path back: new again, nothing to start over */
	}
	treecache__free(tc);
}

Test(treecache, a_renamed_process_moves_its_rows)
{
	struct treecache *tc = treecache__new();
	int rows[NPATHS];
	struct fl_counts c[NPATHS];

	make_pool(11);
	for (int i = 0; i < NPATHS; i++) {
		rows[i] = i;
		c[i] = (struct fl_counts){ .faults = (uint64_t)i + 1 };
	}
	expect_round(tc, rows, c, NPATHS, 1);
	/* the same address, another text: compared by its text */
	snprintf(process[1], sizeof(process[1]), "worker");
	expect_round(tc, rows, c, NPATHS, 2);
	cr_expect_not_null(treecache__profile(tc)->root.nchildren == 2 ? &c : NULL);
	snprintf(process[1], sizeof(process[1]), "app");
	treecache__free(tc);
}

Test(treecache, a_new_stamp_starts_over)
{
	struct treecache *tc = treecache__new();
	int rows[] = { 0, 1 };
	struct fl_counts c[] = { { .faults = 1 }, { .faults = 2 } };
	struct profile *before;

	make_pool(3);
	round_into(tc, 1, rows, c, 2);
	before = treecache__profile(tc);
	cr_expect_eq(before->root.total.faults, 3);
	/* the same rows under another stamp: a new tree, built once */
	cr_expect_eq(round_into(tc, 2, rows, c, 1), 1);
	cr_expect_eq(treecache__profile(tc)->root.total.faults, 1);
	cr_expect_eq(treecache__profile(tc)->nstacks, 1);
	treecache__free(tc);
}

Test(treecache, take_hands_the_tree_over)
{
	struct treecache *tc = treecache__new();
	int rows[] = { 0, 1, 2 };
	struct fl_counts c[] = { { .faults = 1 }, { .faults = 2 }, { .faults = 4 } };
	struct profile *p;

	make_pool(5);
	round_into(tc, 1, rows, c, 3);
	p = treecache__take(tc);
	cr_assert_not_null(p);
	cr_expect_eq(p->root.total.faults, 7);
	cr_expect_neq(treecache__profile(tc), p);
	/* the cache kept nothing of it: the next round builds its paths again, once */
	cr_expect_eq(round_into(tc, 1, rows, c, 1), 1);
	cr_expect_eq(treecache__profile(tc)->root.total.faults, 1);
	profile__free(p);
	treecache__free(tc);
}
