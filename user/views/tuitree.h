/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The interactive view's tree (pure logic, no terminal): which nodes of a profile are visible
 * given what the user expanded and collapsed, in which order, with each node's growth since
 * the previous refresh. Nodes are known across refreshes by a hash of their path, since each
 * refresh builds a new profile.
 */
#ifndef FAULTLINE_TUITREE_H
#define FAULTLINE_TUITREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/profile.h"

/* A map from path hashes to values, open addressing (kept across refreshes). */
struct tui_map {
	uint64_t *keys; /* 0: empty slot */
	int64_t *vals;
	size_t cap; /* 0 or a power of two */
	size_t n;
};

int tui_map__set(struct tui_map *m, uint64_t key, int64_t val); /* 0 or -ENOMEM */
bool tui_map__get(const struct tui_map *m, uint64_t key, int64_t *val);
void tui_map__clear(struct tui_map *m); /* empties it, keeps the memory */
void tui_map__free(struct tui_map *m);

enum tui_sort {
	TUI_SORT_TOTAL = 0, /* by the metric since attach */
	TUI_SORT_DELTA,	    /* by its growth since the previous refresh */
};

struct tui_row {
	const struct pnode *node;
	uint64_t path;	/* hash of the node's path, never 0 */
	unsigned depth; /* 0 for the root's children */
	uint64_t value; /* the metric */
	int64_t delta;	/* value - its value at the previous refresh (0 when new) */
	bool has_children;
	bool expanded;
};

struct tui_tree {
	struct tui_map marks; /* path -> 1 expanded, -1 collapsed (by the user) */
	struct tui_map prev;  /* path -> value at the previous refresh */
	struct tui_map cur;   /* ... being filled by this one */
	double auto_share;    /* unmarked nodes holding this share of the total start expanded */
};

/* The hash of the child named @name of the node whose path hash is @parent (0: the root). */
uint64_t tuitree__path(uint64_t parent, const char *name);

/*
 * The visible rows of @p for metric @m in order @sort, children below their expanded parent,
 * each level heaviest first; zero-valued nodes are left out. Deltas are against the profile
 * of the previous refresh (see tuitree__rotate()); the values seen are kept for the next one.
 * Redrawing the same profile again gives the same rows. *@rows is malloc'ed.
 * Returns 0 or -ENOMEM.
 */
int tuitree__rows(struct tui_tree *t, const struct profile *p, enum fl_metric m, enum tui_sort sort,
		  struct tui_row **rows, size_t *n);

/* A new refresh's profile arrives: the values the last tuitree__rows() saw become the ones
 * its deltas are measured from. */
void tuitree__rotate(struct tui_tree *t);

/* The metric changed: deltas restart from the next refresh. */
void tuitree__forget_values(struct tui_tree *t);

/* The user expands (@on) or collapses the node at @path. Returns 0 or -ENOMEM. */
int tuitree__mark(struct tui_tree *t, uint64_t path, bool on);

void tuitree__free(struct tui_tree *t);

#endif /* FAULTLINE_TUITREE_H */
