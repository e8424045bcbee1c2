// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/window.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "base/intern.h"
#include "model/profile.h"
#include "trace/collector.h"

struct window_base {
	struct intern keys;	/* struct fl_key: padding-free, compared as memory */
	struct fl_counts *base; /* by key id - 1 */
	size_t cap;
};

struct window_base *window_base__new(void)
{
	struct window_base *w = calloc(1, sizeof(*w));

	if (w)
		intern__init(&w->keys, sizeof(struct fl_key));
	return w;
}

void window_base__free(struct window_base *w)
{
	if (!w)
		return;
	intern__fini(&w->keys);
	free(w->base);
	free(w);
}

/* The baseline of @key, made (zero) when new; NULL when out of memory. */
static struct fl_counts *slot(struct window_base *w, const struct fl_key *key)
{
	size_t before = w->keys.n;
	uint64_t id = intern__id(&w->keys, key);
	struct fl_counts *v;

	if (!id)
		return NULL;
	if (id > w->cap) {
		v = grow__reserve(w->base, &w->cap, id - 1, sizeof(*v));
		if (!v)
			return NULL;
		w->base = v;
	}
	if (w->keys.n > before) /* new */
		memset(&w->base[id - 1], 0, sizeof(w->base[0]));
	return &w->base[id - 1];
}

/* The baseline of @key, or NULL when it has none. */
static const struct fl_counts *find(const struct window_base *w, const struct fl_key *key)
{
	uint64_t id = intern__find(&w->keys, key);

	return id ? &w->base[id - 1] : NULL;
}

/*
 * The table is made anew from @rows, so that it holds the rows of now alone: the keys of rows
 * that moved away, of processes long gone, do not pile up over a session of days.
 */
int window_base__mark(struct window_base *w, const struct fl_row *rows, size_t n,
		      window_counted_fn counted, void *ctx)
{
	struct window_base next = { .cap = 0 };

	intern__init(&next.keys, sizeof(struct fl_key));
	for (size_t i = 0; i < n; i++) {
		bool taken = !counted || counted(&rows[i].key, ctx);
		const struct fl_counts *old = taken ? NULL : find(w, &rows[i].key);
		struct fl_counts *b;

		/* not taken and never marked: nothing to keep, its all goes to a later window */
		if (!taken && !old)
			continue;
		b = slot(&next, &rows[i].key);
		if (!b) {
			intern__fini(&next.keys);
			free(next.base);
			return -ENOMEM;
		}
		*b = taken ? rows[i].counts : *old;
	}
	intern__fini(&w->keys);
	free(w->base);
	*w = next;
	return 0;
}

size_t window_base__size(const struct window_base *w)
{
	return w->keys.n;
}

int window_base__move(struct window_base *w, const struct fl_key *from, const struct fl_key *to)
{
	const struct fl_counts *b = find(w, from);
	struct fl_counts moved, *dst;

	if (!b || !memcmp(from, to, sizeof(*from)))
		return 0;
	moved = *b;
	memset(&w->base[intern__find(&w->keys, from) - 1], 0, sizeof(moved));
	dst = slot(w, to);
	if (!dst)
		return -ENOMEM;
	counts__add(dst, &moved);
	return 0;
}

/* True when @c holds some level (the live heap): a window shows it whatever came since. */
static bool has_level(const struct fl_counts *c)
{
	for (int m = 0; m < FL_METRIC__COUNT; m++)
		if (metric__is_level(m) && metric__value(c, m))
			return true;
	return false;
}

int window_base__since(const struct window_base *w, const struct fl_row *rows, size_t n,
		       struct fl_row **out, struct fl_row **ends, size_t *nout)
{
	size_t bytes = (n ? n : 1) * sizeof(**out);
	struct fl_row *v = malloc(bytes), *e = ends ? malloc(bytes) : NULL;

	*out = v;
	*nout = 0;
	if (ends)
		*ends = e;
	if (!v || (ends && !e))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct fl_counts *b = find(w, &rows[i].key);

		v[*nout] = rows[i];
		if (b)
			counts__since(&v[*nout].counts, b);
		else
			v[*nout].counts.at_peak = v[*nout].counts.peak_seq = 0;
		if (counts__is_zero(&v[*nout].counts) && !(ends && has_level(&rows[i].counts)))
			continue;
		if (ends)
			e[*nout] = rows[i];
		(*nout)++;
	}
	return 0;
}
