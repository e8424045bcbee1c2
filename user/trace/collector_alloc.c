// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The collector's --alloc part: allocation histograms, the oldest live block of each row, and
 * the live blocks an exec left behind. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "alloc_math.h"
#include "base/grow.h"
#include "trace/collector.h"
#include "trace/collector_state.h"
#include "trace/retired.h"

static int add_hist(const void *key, const void *value, void *ctx)
{
	struct collector *c = ctx;

	struct collector_hist *h = grow__reserve(c->hists, &c->hists_cap, c->nhists, sizeof(*h));

	if (!h)
		return -ENOMEM;
	c->hists = h;
	memcpy(&c->hists[c->nhists].key, key, sizeof(struct fl_key));
	memcpy(&c->hists[c->nhists].hist, value, sizeof(struct fl_alloc_hist));
	c->hists[c->nhists].oldest_ts = 0;
	c->nhists++;
	return 0;
}

static int cmp_gen(const void *a, const void *b)
{
	uint32_t x = ((const struct collector_gen *)a)->tgid;
	uint32_t y = ((const struct collector_gen *)b)->tgid;

	return x < y ? -1 : x > y;
}

static int push_gen(struct collector_gen **v, size_t *n, size_t *cap, uint32_t tgid, uint32_t gen)
{
	struct collector_gen *g = grow__reserve(*v, cap, *n, sizeof(*g));

	if (!g)
		return -ENOMEM;
	*v = g;
	g[(*n)++] = (struct collector_gen){ tgid, gen };
	return 0;
}

/* The exec id of every target that exec'd (from the target set collector__read_procs() read
 * with the rows), and the last one of those retired since. */
static int read_gens(struct collector *c)
{
	size_t nread;
	int err = 0;

	c->ngens = 0;
	/* no exec seen: every block of it is of its current image */
	for (size_t i = 0; i < c->nprocs && !err; i++)
		if (c->procs[i].p.exec_id)
			err = push_gen(&c->gens, &c->ngens, &c->gens_cap, (uint32_t)c->procs[i].pid,
				       c->procs[i].p.exec_id);
	if (c->ngens > 1) /* gens is NULL before the first */
		qsort(c->gens, c->ngens, sizeof(*c->gens), cmp_gen);
	nread = c->ngens;
	for (size_t i = 0; i < c->nkept && !err; i++)
		if (!nread || !bsearch(&c->kept[i], c->gens, nread, sizeof(*c->gens), cmp_gen))
			err = push_gen(&c->gens, &c->ngens, &c->gens_cap, c->kept[i].tgid,
				       c->kept[i].gen);
	if (c->ngens > nread && c->ngens > 1)
		qsort(c->gens, c->ngens, sizeof(*c->gens), cmp_gen);
	return err;
}

int collector__keep_gen(struct collector *c, uint32_t tgid, uint32_t gen)
{
	return push_gen(&c->kept, &c->nkept, &c->kept_cap, tgid, gen);
}

static int cmp_drop(const void *a, const void *b)
{
	return collector_cmp_key(&((const struct collector_drop *)a)->row,
				 &((const struct collector_drop *)b)->row);
}

static int push_drop(struct collector *c, const struct fl_key *row, const struct fl_live *l)
{
	struct collector_drop *d = grow__reserve(c->drops, &c->drops_cap, c->ndrops, sizeof(*d));

	if (!d)
		return -ENOMEM;
	c->drops = d;
	d[c->ndrops++] = (struct collector_drop){ *row, l->count, l->bytes };
	return 0;
}

/*
 * Folds one live block into the oldest allocation time of its row (hists is sorted), unless
 * it belongs to an image its process exec'd away from: that one can never be freed.
 */
static int add_live(const void *key, const void *value, void *ctx)
{
	struct collector *c = ctx;
	const struct fl_live_key *k = key;
	const struct fl_live *l = value;
	struct fl_key row = fl_live_row(k->tgid, l);
	struct collector_gen want = { .tgid = k->tgid };
	const struct collector_gen *g =
		c->ngens ? bsearch(&want, c->gens, c->ngens, sizeof(*g), cmp_gen) : NULL;
	struct collector_hist *h;

	if (g && g->gen != k->gen)
		return push_drop(c, &row, l);
	h = c->nhists ? bsearch(&row, c->hists, c->nhists, sizeof(*h), collector_cmp_key) : NULL;
	if (h && (!h->oldest_ts || l->ts < h->oldest_ts))
		h->oldest_ts = l->ts;
	return 0;
}

/* The blocks execs left behind are charged to their rows as freed: not live in any image. */
static void settle_drops(struct collector *c)
{
	size_t n = 0;

	if (c->ndrops > 1) /* drops is NULL before the first */
		qsort(c->drops, c->ndrops, sizeof(*c->drops), cmp_drop);
	for (size_t i = 0; i < c->ndrops; i++) {
		if (n && !cmp_drop(&c->drops[n - 1], &c->drops[i])) {
			c->drops[n - 1].count += c->drops[i].count;
			c->drops[n - 1].bytes += c->drops[i].bytes;
		} else {
			c->drops[n++] = c->drops[i];
		}
	}
	c->ndrops = n;
	for (size_t i = 0; i < c->nrows && n; i++) {
		const struct collector_drop *d =
			bsearch(&c->rows[i].key, c->drops, n, sizeof(*d), cmp_drop);

		if (d) {
			c->rows[i].counts.frees += d->count;
			c->rows[i].counts.free_bytes += d->bytes;
		}
	}
}

void collector__exec_dropped(const struct collector *c, uint32_t tgid, uint64_t *count,
			     uint64_t *bytes)
{
	*count = *bytes = 0;
	for (size_t i = 0; i < c->ndrops; i++)
		if (c->drops[i].row.tgid == tgid) {
			*count += c->drops[i].count;
			*bytes += c->drops[i].bytes;
		}
}

/* The histograms of the allocation rows, the oldest live block of each, the blocks execs
 * left behind. */
int collector_alloc__read(struct collector *c)
{
	int err;

	c->nhists = 0;
	c->ndrops = 0;
	err = read_gens(c);
	if (!err)
		err = collector_map_each(c->hists_fd, sizeof(struct fl_key),
					 sizeof(struct fl_alloc_hist), &c->no_batch, add_hist, c);
	if (err)
		return err;
	if (c->nhists > 1) /* hists is NULL before the first */
		qsort(c->hists, c->nhists, sizeof(*c->hists), collector_cmp_key);
	err = collector_map_each(c->live_fd, sizeof(struct fl_live_key), sizeof(struct fl_live),
				 &c->no_batch, add_live, c);
	settle_drops(c);
	return err;
}

void collector__set_alloc(struct collector *c, int live_fd, int hists_fd)
{
	c->live_fd = live_fd;
	c->hists_fd = hists_fd;
}

const struct collector_hist *collector__hist(const struct collector *c, const struct fl_key *key)
{
	const struct collector_hist *h = c->nhists ? bsearch(key, c->hists, c->nhists,
							     sizeof(*c->hists), collector_cmp_key) :
						     NULL;

	return h ? h : retired_rows__hist(c->retired, key);
}

void collector_alloc__free(struct collector *c)
{
	free(c->hists);
	free(c->gens);
	free(c->kept);
	free(c->drops);
}
