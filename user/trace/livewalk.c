// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/livewalk.h"
#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>
#include "trace/collector_state.h"

bool livewalk__due(const struct pace *p, enum collector_walk w, uint64_t now)
{
	switch (w) {
	case COLLECTOR_WALK_NOW:
		return true;
	case COLLECTOR_WALK_NONE:
		return false;
	case COLLECTOR_WALK_PACED:
		break;
	}
	return pace__due(p, now);
}

void livewalk__apply_ages(struct collector_hist *h, size_t nh, const struct livewalk_age *ages,
			  size_t na)
{
	size_t a = 0;

	/* both sorted: one pass */
	for (size_t i = 0; i < nh; i++) {
		int r = 1;

		while (a < na && (r = collector_cmp_key(&ages[a].row, &h[i].key)) < 0)
			a++;
		h[i].oldest_ts = a < na && !r ? ages[a].oldest_ts : 0;
	}
}

static int cmp_drop(const void *a, const void *b)
{
	return collector_cmp_key(&((const struct collector_drop *)a)->row,
				 &((const struct collector_drop *)b)->row);
}

size_t livewalk__merge_drops(struct collector_drop *drops, size_t n)
{
	size_t out = 0;

	if (n > 1) /* drops may be NULL when there are none */
		qsort(drops, n, sizeof(*drops), cmp_drop);
	for (size_t i = 0; i < n; i++) {
		if (out && !cmp_drop(&drops[out - 1], &drops[i])) {
			drops[out - 1].count += drops[i].count;
			drops[out - 1].bytes += drops[i].bytes;
		} else {
			drops[out++] = drops[i];
		}
	}
	return out;
}

void livewalk__charge_drops(struct fl_row *rows, size_t nrows, const struct collector_drop *drops,
			    size_t nd)
{
	for (size_t i = 0; i < nrows && nd; i++) {
		const struct collector_drop *d =
			bsearch(&rows[i].key, drops, nd, sizeof(*d), cmp_drop);

		if (d) {
			rows[i].counts.frees += d->count;
			rows[i].counts.free_bytes += d->bytes;
		}
	}
}

int livewalk__cmp_gen(const void *a, const void *b)
{
	uint32_t x = ((const struct collector_gen *)a)->tgid;
	uint32_t y = ((const struct collector_gen *)b)->tgid;

	return x < y ? -1 : x > y;
}

static const struct collector_gen *find_gen(const struct collector_gen *v, size_t n, uint32_t tgid)
{
	struct collector_gen k = { .tgid = tgid };

	return n ? bsearch(&k, v, n, sizeof(*v), livewalk__cmp_gen) : NULL;
}

/* What a process holds beyond the drops known: signed, summed over its rows and drops. */
struct excess {
	uint32_t tgid;
	int64_t count;
	int64_t bytes;
};

static int cmp_excess(const void *a, const void *b)
{
	uint32_t x = ((const struct excess *)a)->tgid, y = ((const struct excess *)b)->tgid;

	return x < y ? -1 : x > y;
}

/* The excess of every process of the rows and drops, one entry each, sorted: into *@out.
 * Returns how many, or -ENOMEM. */
static ssize_t excesses(const struct fl_row *rows, size_t nrows, const struct collector_drop *drops,
			size_t nd, struct excess **out)
{
	struct excess *v = malloc((nrows + nd + 1) * sizeof(*v));
	size_t n = 0, m = 0;

	if (!v)
		return -ENOMEM;
	/* every row, not only the allocator's: with the counts map full, an allocation is
	 * counted on its process's overflow row and its free on its own */
	for (size_t i = 0; i < nrows; i++)
		v[n++] = (struct excess){
			rows[i].key.tgid,
			(int64_t)(rows[i].counts.allocs - rows[i].counts.frees),
			(int64_t)(rows[i].counts.alloc_bytes - rows[i].counts.free_bytes),
		};
	for (size_t i = 0; i < nd; i++)
		v[n++] = (struct excess){ drops[i].row.tgid, -(int64_t)drops[i].count,
					  -(int64_t)drops[i].bytes };
	qsort(v, n, sizeof(*v), cmp_excess);
	for (size_t i = 0; i < n; i++) {
		if (m && v[m - 1].tgid == v[i].tgid) {
			v[m - 1].count += v[i].count;
			v[m - 1].bytes += v[i].bytes;
		} else {
			v[m++] = v[i];
		}
	}
	*out = v;
	return (ssize_t)m;
}

int livewalk__drops_moved(const struct collector_gen *was, size_t nwas,
			  const struct collector_gen *now, size_t nnow, const struct fl_row *rows,
			  size_t nrows, const struct collector_drop *drops, size_t nd)
{
	struct excess *ex = NULL;
	ssize_t nex = 0;
	int moved = 0;

	for (size_t i = 0; i < nnow && !moved; i++) {
		const struct collector_gen *g = find_gen(was, nwas, now[i].tgid);
		struct excess k = { .tgid = now[i].tgid };
		const struct excess *e;

		if (g && g->gen == now[i].gen)
			continue;
		/* an exec since the walk: the sums are needed once */
		if (!ex && (nex = excesses(rows, nrows, drops, nd, &ex)) < 0)
			return (int)nex;
		e = nex ? bsearch(&k, ex, (size_t)nex, sizeof(k), cmp_excess) : NULL;
		moved = e && (e->count > 0 || e->bytes > 0);
	}
	free(ex);
	return moved;
}

ssize_t livewalk__prune_kept(struct collector_gen *kept, size_t n,
			     const struct collector_drop *drops, size_t nd)
{
	/* the processes with drops, as exec ids by tgid (the drops are in key order) */
	struct collector_gen *with = nd ? malloc(nd * sizeof(*with)) : NULL;
	size_t out = 0;

	if (nd && !with)
		return -ENOMEM;
	for (size_t i = 0; i < nd; i++)
		with[i] = (struct collector_gen){ .tgid = drops[i].row.tgid };
	if (nd > 1)
		qsort(with, nd, sizeof(*with), livewalk__cmp_gen);
	for (size_t i = 0; i < n; i++)
		if (find_gen(with, nd, kept[i].tgid))
			kept[out++] = kept[i];
	free(with);
	return (ssize_t)out;
}

size_t livewalk__keep_drops(struct collector_drop *drops, size_t nd,
			    const struct collector_gen *now, size_t nnow)
{
	size_t out = 0;

	for (size_t i = 0; i < nd; i++)
		if (find_gen(now, nnow, drops[i].row.tgid))
			drops[out++] = drops[i];
	return out;
}
