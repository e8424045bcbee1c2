// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "views/tuitree.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"

static size_t slot_of(const struct tui_map *m, uint64_t key)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ULL) & (m->cap - 1);

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int map_grow(struct tui_map *m)
{
	struct tui_map bigger = { .cap = m->cap ? 2 * m->cap : 64 };

	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		free(bigger.keys);
		free(bigger.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i]) {
			size_t j = slot_of(&bigger, m->keys[i]);

			bigger.keys[j] = m->keys[i];
			bigger.vals[j] = m->vals[i];
			bigger.n++;
		}
	}
	tui_map__free(m);
	*m = bigger;
	return 0;
}

int tui_map__set(struct tui_map *m, uint64_t key, int64_t val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap && map_grow(m))
		return -ENOMEM;
	i = slot_of(m, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
	return 0;
}

bool tui_map__get(const struct tui_map *m, uint64_t key, int64_t *val)
{
	size_t i;

	if (!m->cap)
		return false;
	i = slot_of(m, key);
	if (!m->keys[i])
		return false;
	*val = m->vals[i];
	return true;
}

void tui_map__clear(struct tui_map *m)
{
	if (m->cap) {
		memset(m->keys, 0, m->cap * sizeof(*m->keys));
		m->n = 0;
	}
}

void tui_map__free(struct tui_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

uint64_t tuitree__path(uint64_t parent, const char *name)
{
	uint64_t h = parent ^ 0xcbf29ce484222325ULL; /* FNV-1a, seeded with the parent */

	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 0x100000001b3ULL;
	h = (h ^ 0xff) * 0x100000001b3ULL; /* "a" + "bc" and "ab" + "c" differ */
	return h ? h : 1;
}

struct walk {
	struct tui_tree *t;
	enum fl_metric metric;
	enum tui_sort sort;
	uint64_t total;
	struct tui_row *rows;
	size_t n;
	size_t cap;
};

struct child {
	const struct pnode *node;
	uint64_t path;
	uint64_t value;
	int64_t delta;
};

static int cmp_child(const void *a, const void *b, void *sort)
{
	const struct child *x = a, *y = b;

	if (*(const enum tui_sort *)sort == TUI_SORT_DELTA && x->delta != y->delta)
		return x->delta > y->delta ? -1 : 1;
	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return strcmp(x->node->name, y->node->name);
}

static bool is_expanded(const struct walk *w, uint64_t path, uint64_t value)
{
	int64_t mark;

	if (tui_map__get(&w->t->marks, path, &mark))
		return mark > 0;
	return w->total && (double)value >= w->t->auto_share * (double)w->total;
}

static int add_row(struct walk *w, const struct child *c, unsigned depth, bool expanded)
{
	struct tui_row *r = grow__reserve(w->rows, &w->cap, w->n, sizeof(*r));

	if (!r)
		return -ENOMEM;
	w->rows = r;
	w->rows[w->n++] = (struct tui_row){
		.node = c->node,
		.path = c->path,
		.depth = depth,
		.value = c->value,
		.delta = c->delta,
		.has_children = c->node->nchildren > 0,
		.expanded = expanded && c->node->nchildren > 0,
	};
	return 0;
}

static int walk(struct walk *w, const struct pnode *n, uint64_t path, unsigned depth)
{
	struct child *kids;
	size_t nk = 0;
	int err = 0;

	if (!n->nchildren)
		return 0;
	kids = calloc(n->nchildren, sizeof(*kids));
	if (!kids)
		return -ENOMEM;
	for (size_t i = 0; i < n->nchildren && !err; i++) {
		const struct pnode *k = n->children[i];
		uint64_t v = metric__value(&k->total, w->metric);
		int64_t before;

		if (!v)
			continue;
		kids[nk] = (struct child){ .node = k,
					   .path = tuitree__path(path, k->name),
					   .value = v };
		if (tui_map__get(&w->t->prev, kids[nk].path, &before))
			kids[nk].delta = (int64_t)v - before;
		err = tui_map__set(&w->t->cur, kids[nk].path, (int64_t)v);
		nk++;
	}
	qsort_r(kids, nk, sizeof(*kids), cmp_child, &w->sort);
	for (size_t i = 0; i < nk && !err; i++) {
		bool open = is_expanded(w, kids[i].path, kids[i].value);

		err = add_row(w, &kids[i], depth, open);
		if (!err && open)
			err = walk(w, kids[i].node, kids[i].path, depth + 1);
	}
	free(kids);
	return err;
}

int tuitree__rows(struct tui_tree *t, const struct profile *p, enum fl_metric m, enum tui_sort sort,
		  struct tui_row **rows, size_t *n)
{
	struct walk w = { .t = t,
			  .metric = m,
			  .sort = sort,
			  .total = metric__value(&p->root.total, m) };
	int err;

	tui_map__clear(&t->cur);
	err = walk(&w, &p->root, 0, 0);
	if (err) {
		free(w.rows);
		return err;
	}
	*rows = w.rows;
	*n = w.n;
	return 0;
}

void tuitree__rotate(struct tui_tree *t)
{
	struct tui_map swap = t->prev;

	t->prev = t->cur;
	t->cur = swap;
	tui_map__clear(&t->cur);
}

void tuitree__forget_values(struct tui_tree *t)
{
	tui_map__clear(&t->prev);
	tui_map__clear(&t->cur);
}

int tuitree__mark(struct tui_tree *t, uint64_t path, bool on)
{
	return tui_map__set(&t->marks, path, on ? 1 : -1);
}

void tuitree__free(struct tui_tree *t)
{
	tui_map__free(&t->marks);
	tui_map__free(&t->prev);
	tui_map__free(&t->cur);
}
