// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The collector's --alloc part: allocation histograms, the oldest live block of each row, and
 * the live blocks an exec left behind, both from walks of the live table made only when due
 * (livewalk.h). */
#include <bpf/bpf.h>
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
		qsort(c->gens, c->ngens, sizeof(*c->gens), livewalk__cmp_gen);
	nread = c->ngens;
	for (size_t i = 0; i < c->nkept && !err; i++)
		if (!nread ||
		    !bsearch(&c->kept[i], c->gens, nread, sizeof(*c->gens), livewalk__cmp_gen))
			err = push_gen(&c->gens, &c->ngens, &c->gens_cap, c->kept[i].tgid,
				       c->kept[i].gen);
	if (c->ngens > nread && c->ngens > 1)
		qsort(c->gens, c->ngens, sizeof(*c->gens), livewalk__cmp_gen);
	return err;
}

int collector__keep_gen(struct collector *c, uint32_t tgid, uint32_t gen)
{
	return push_gen(&c->kept, &c->nkept, &c->kept_cap, tgid, gen);
}

int collector__forget_blocks(struct collector *c, uint32_t tgid, uint32_t gen)
{
	struct collector_gone *g;

	if (c->live_fd < 0)
		return 0;
	/* its pid's process before it, gone since the last walk too: one entry, the later time;
	 * of every image when the two differ (the earlier images' leftovers of the one that
	 * exec'd then count as still held, which only a pid reused within a walk's interval
	 * can cause) */
	for (size_t i = 0; i < c->ngone; i++)
		if (c->gone[i].tgid == tgid) {
			c->gone[i].before = pace__now();
			if (c->gone[i].gen != gen)
				c->gone[i].gen = 0;
			return 0;
		}
	g = grow__reserve(c->gone, &c->gone_cap, c->ngone, sizeof(*g));
	if (!g)
		return -ENOMEM;
	c->gone = g;
	g[c->ngone++] = (struct collector_gone){ .tgid = tgid, .gen = gen, .before = pace__now() };
	return 0;
}

static int cmp_gone(const void *a, const void *b)
{
	const struct collector_gone *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* True when the block of @k, allocated at @ts, belongs to the last image of a process gone. */
static bool of_the_gone(const struct collector *c, const struct fl_live_key *k, uint64_t ts)
{
	struct collector_gone want = { .tgid = k->tgid };
	const struct collector_gone *g =
		c->ngone ? bsearch(&want, c->gone, c->ngone, sizeof(*g), cmp_gone) : NULL;

	return g && ts < g->before && (!g->gen || k->gen == g->gen);
}

static int push_doomed(struct collector *c, const struct fl_live_key *k)
{
	struct fl_live_key *d = grow__reserve(c->doomed, &c->doomed_cap, c->ndoomed, sizeof(*d));

	if (!d)
		return -ENOMEM;
	c->doomed = d;
	d[c->ndoomed++] = *k;
	return 0;
}

/* Deletes the blocks the walk doomed. */
static void delete_doomed(struct collector *c)
{
	collector_delete_keys(c->live_fd, c->doomed, c->ndoomed, sizeof(*c->doomed));
	c->ndoomed = 0;
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
		c->ngens ? bsearch(&want, c->gens, c->ngens, sizeof(*g), livewalk__cmp_gen) : NULL;
	struct collector_hist *h;

	if (of_the_gone(c, k, l->ts))
		return push_doomed(c, k);
	if (g && g->gen != k->gen)
		return push_drop(c, &row, l);
	h = c->nhists ? bsearch(&row, c->hists, c->nhists, sizeof(*h), collector_cmp_key) : NULL;
	if (h && (!h->oldest_ts || l->ts < h->oldest_ts))
		h->oldest_ts = l->ts;
	return 0;
}

/* Keeps the oldest live block of each row the walk found, for the reads until the next. */
static int keep_ages(struct collector *c)
{
	c->nages = 0;
	for (size_t i = 0; i < c->nhists; i++) {
		struct livewalk_age *a;

		if (!c->hists[i].oldest_ts)
			continue;
		a = grow__reserve(c->ages, &c->ages_cap, c->nages, sizeof(*a));
		if (!a)
			return -ENOMEM;
		c->ages = a;
		a[c->nages++] = (struct livewalk_age){ c->hists[i].key, c->hists[i].oldest_ts };
	}
	return 0;
}

static int copy_gens(struct collector *c)
{
	while (c->walk_gens_cap < c->ngens) {
		struct collector_gen *g = grow__reserve(c->walk_gens, &c->walk_gens_cap,
							c->walk_gens_cap, sizeof(*g));

		if (!g)
			return -ENOMEM;
		c->walk_gens = g;
	}
	if (c->ngens) /* gens is NULL before the first */
		memcpy(c->walk_gens, c->gens, c->ngens * sizeof(*c->gens));
	c->nwalk_gens = c->ngens;
	return 0;
}

/* Set when a target's exec id is not the one c->gens holds for it. */
static int exec_id_moved(const void *key, const void *value, void *ctx)
{
	struct collector *c = ctx;
	struct collector_gen want = { .tgid = *(const __u32 *)key };
	const struct fl_proc *p = value;
	const struct collector_gen *g =
		c->ngens ? bsearch(&want, c->gens, c->ngens, sizeof(*g), livewalk__cmp_gen) : NULL;

	if (p->exec_id && (!g || g->gen != p->exec_id))
		c->walk_stale = true;
	return c->walk_stale;
}

/*
 * Reads every live block: the oldest of each row into the histograms, the blocks execs left
 * behind into the drops, by the exec ids read with the rows. An exec between that read and
 * the walk would make the new image's blocks look left behind: the exec ids are read again
 * after it, and a move makes the next read walk again.
 */
static int walk(struct collector *c)
{
	uint64_t start = pace__now(), cpu = pace__thread_cpu();
	int err;

	c->ndrops = 0;
	c->walk_stale = false;
	if (c->ngone > 1)
		qsort(c->gone, c->ngone, sizeof(*c->gone), cmp_gone);
	err = collector_map_each(c->live_fd, sizeof(struct fl_live_key), sizeof(struct fl_live),
				 &c->no_batch, add_live, c);
	delete_doomed(c);
	if (!err) /* every block of theirs was seen */
		c->ngone = 0;
	c->ndrops = livewalk__merge_drops(c->drops, c->ndrops);
	if (!err) { /* the exited whose earlier images left nothing need no exec id kept */
		ssize_t n = livewalk__prune_kept(c->kept, c->nkept, c->drops, c->ndrops);

		c->nkept = n < 0 ? c->nkept : (size_t)n;
	}
	if (!err)
		err = keep_ages(c);
	if (!err)
		err = copy_gens(c);
	if (!err && c->mm_fd >= 0 && c->procs_fd >= 0) /* the exec ids came from that read */
		err = collector_map_each(c->procs_fd, sizeof(__u32), sizeof(struct fl_proc),
					 &c->no_batch, exec_id_moved, c);
	if (err)
		c->walk_stale = true;
	c->walked = true;
	pace__done(&c->pace, start, pace__thread_cpu() - cpu);
	return err;
}

/* A read without a walk: the last walk's ages, and its drops unless an exec calls for a walk
 * (then true into *@need). */
static int reuse_walk(struct collector *c, bool *need)
{
	int moved = livewalk__drops_moved(c->walk_gens, c->nwalk_gens, c->gens, c->ngens, c->rows,
					  c->nrows, c->drops, c->ndrops);

	if (moved < 0)
		return moved;
	*need = moved;
	if (moved)
		return 0;
	/* a process gone from the target set with no exec id kept: a walk counts none of it */
	c->ndrops = livewalk__keep_drops(c->drops, c->ndrops, c->gens, c->ngens);
	livewalk__apply_ages(c->hists, c->nhists, c->ages, c->nages);
	return copy_gens(c);
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

/* The histograms of the allocation rows; the oldest live block of each and the blocks execs
 * left behind, from this read's walk or the last one. */
int collector_alloc__read(struct collector *c)
{
	/* the blocks of processes gone call for a walk at the walks' pace, shown or not */
	enum collector_walk due =
		c->ngone && c->walk == COLLECTOR_WALK_NONE ? COLLECTOR_WALK_PACED : c->walk;
	bool need = c->walk_stale || livewalk__due(&c->pace, due, pace__now());
	int err;

	c->nhists = 0;
	c->walked = false;
	err = read_gens(c);
	if (!err)
		err = collector_map_each(c->hists_fd, sizeof(struct fl_key),
					 sizeof(struct fl_alloc_hist), &c->no_batch, add_hist, c);
	if (err)
		return err;
	if (c->nhists > 1) /* hists is NULL before the first */
		qsort(c->hists, c->nhists, sizeof(*c->hists), collector_cmp_key);
	if (!need)
		err = reuse_walk(c, &need);
	if (!err && need)
		err = walk(c);
	livewalk__charge_drops(c->rows, c->nrows, c->drops, c->ndrops);
	return err;
}

void collector__set_walk(struct collector *c, enum collector_walk w)
{
	c->walk = w;
}

uint64_t collector__walked(const struct collector *c, bool *now)
{
	*now = c->walked;
	return c->pace.at;
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
	free(c->ages);
	free(c->walk_gens);
	free(c->gone);
	free(c->doomed);
}
