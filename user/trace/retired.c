// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/retired.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "model/profile.h"
#include "model/report.h"
#include "trace/collector.h"

/* Open addressing, linear probing, grown at half full; a slot holds index + 1 (0: free). */
struct index {
	size_t *slots;
	size_t cap;
	size_t n;
};

/* A stack moved out of the stacks map. */
struct kept_stack {
	uint64_t hash;
	uint64_t *ips; /* leaf first */
	size_t n;
	uint32_t end; /* enum fl_stack_end */
};

/* A process marked: its rows are to move; folded, under the identity of another. */
struct proc_mark {
	uint64_t id;	    /* (tgid << 16 | gen) + 1 */
	uint64_t into;	    /* folded: the id its rows take; 0: its own */
	size_t sum;	    /* folded: index + 1 of what it was charged, in sums */
	bool portable_only; /* folded: only its rows of stacks every process names alike */
	bool own;	    /* folded: a row kept its own key */
};

struct retired_rows {
	struct kept_stack *stacks;
	size_t nstacks, stacks_cap;
	struct index stack_ix;
	struct proc_mark *procs; /* by proc_ix */
	size_t nprocs, procs_cap;
	struct index proc_ix;
	struct retired_sum *sums;
	size_t nsums, sums_cap;
	struct fl_row *rows;
	size_t nrows, rows_cap;
	struct index row_ix;
	struct collector_hist *hists; /* of the allocation rows, by hist_ix */
	size_t nhists, hists_cap;
	struct index hist_ix;
};

struct retired_rows *retired_rows__new(void)
{
	return calloc(1, sizeof(struct retired_rows));
}

void retired_rows__free(struct retired_rows *r)
{
	if (!r)
		return;
	free(r->procs);
	free(r->proc_ix.slots);
	free(r->sums);
	free(r->rows);
	free(r->row_ix.slots);
	free(r->hists);
	free(r->hist_ix.slots);
	for (size_t i = 0; i < r->nstacks; i++)
		free(r->stacks[i].ips);
	free(r->stacks);
	free(r->stack_ix.slots);
	free(r);
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static uint64_t key_hash(const struct fl_key *k)
{
	return mix(k->stack ^ k->leaf_ret ^ k->map_file ^ ((uint64_t)k->tgid << 32 | k->tid) ^
		   ((uint64_t)k->origin << 48 | (uint64_t)k->map_class << 32 |
		    (uint64_t)k->call << 16 | k->gen));
}

/* The slot for an element of hash @h that @same() says is @want. */
static size_t *find_slot(const struct index *ix, uint64_t h,
			 bool (*same)(const void *set, size_t i, const void *want), const void *set,
			 const void *want)
{
	size_t i = (size_t)h & (ix->cap - 1);

	while (ix->slots[i] && !same(set, ix->slots[i] - 1, want))
		i = (i + 1) & (ix->cap - 1);
	return &ix->slots[i];
}

static bool same_proc(const void *set, size_t i, const void *want)
{
	return ((const struct proc_mark *)set)[i].id == *(const uint64_t *)want;
}

static bool same_row(const void *set, size_t i, const void *want)
{
	return !memcmp(&((const struct fl_row *)set)[i].key, want, sizeof(struct fl_key));
}

static bool same_hist(const void *set, size_t i, const void *want)
{
	return !memcmp(&((const struct collector_hist *)set)[i].key, want, sizeof(struct fl_key));
}

/* Makes room for one more element in @ix, whose @n elements are hashed by @hash_of. */
static int index_reserve(struct index *ix, const void *set, size_t n,
			 uint64_t (*hash_of)(const void *set, size_t i))
{
	struct index bigger;

	if ((n + 1) * 2 <= ix->cap)
		return 0;
	bigger.cap = ix->cap ? ix->cap * 2 : 256;
	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j = (size_t)hash_of(set, i) & (bigger.cap - 1);

		while (bigger.slots[j])
			j = (j + 1) & (bigger.cap - 1);
		bigger.slots[j] = i + 1;
	}
	free(ix->slots);
	*ix = bigger;
	return 0;
}

static uint64_t proc_hash_of(const void *set, size_t i)
{
	return mix(((const struct proc_mark *)set)[i].id);
}

static uint64_t row_hash_of(const void *set, size_t i)
{
	return key_hash(&((const struct fl_row *)set)[i].key);
}

static uint64_t hist_hash_of(const void *set, size_t i)
{
	return key_hash(&((const struct collector_hist *)set)[i].key);
}

static uint64_t proc_id(uint32_t tgid, uint16_t gen)
{
	return ((uint64_t)tgid << 16 | gen) + 1;
}

static struct proc_mark *find_mark(const struct retired_rows *r, uint64_t id)
{
	size_t i = r->proc_ix.cap ? *find_slot(&r->proc_ix, mix(id), same_proc, r->procs, &id) : 0;

	return i ? &r->procs[i - 1] : NULL;
}

static int mark_one(struct retired_rows *r, uint64_t id)
{
	struct proc_mark *v;
	size_t *slot;

	if (find_mark(r, id))
		return 0;
	if (index_reserve(&r->proc_ix, r->procs, r->nprocs, proc_hash_of))
		return -ENOMEM;
	v = grow__reserve(r->procs, &r->procs_cap, r->nprocs, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->procs = v;
	slot = find_slot(&r->proc_ix, mix(id), same_proc, r->procs, &id);
	r->procs[r->nprocs++] = (struct proc_mark){ .id = id };
	*slot = r->nprocs;
	return 0;
}

int retired_rows__mark(struct retired_rows *r, uint32_t tgid, uint16_t gen, bool gen0)
{
	int err = mark_one(r, proc_id(tgid, gen));

	return err || !gen0 || !gen ? err : mark_one(r, proc_id(tgid, 0));
}

int retired_rows__fold(struct retired_rows *r, uint32_t tgid, uint16_t gen, bool gen0,
		       uint32_t into_tgid, uint16_t into_gen, bool portable_only)
{
	struct proc_mark *m = find_mark(r, proc_id(tgid, gen));
	struct proc_mark *m0 = gen0 && gen ? find_mark(r, proc_id(tgid, 0)) : NULL;
	struct retired_sum *v;

	if (!m || (gen0 && gen && !m0))
		return -ENOENT;
	if (m->into)
		return 0;
	v = grow__reserve(r->sums, &r->sums_cap, r->nsums, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->sums = v;
	memset(&r->sums[r->nsums++], 0, sizeof(*v));
	m->into = proc_id(into_tgid, into_gen);
	m->sum = r->nsums;
	m->portable_only = portable_only;
	if (m0)
		*m0 = (struct proc_mark){ m0->id, m->into, m->sum, portable_only, false };
	return 0;
}

int retired_rows__forget(struct retired_rows *r, const struct retired_proc *procs, size_t n)
{
	bool *dead = calloc(r->nprocs ? r->nprocs : 1, sizeof(*dead));
	size_t *sum_to = calloc(r->nsums ? r->nsums : 1, sizeof(*sum_to));
	struct retired_sum *sums = malloc((r->nsums ? r->nsums : 1) * sizeof(*sums));
	size_t kept = 0, nsums = 0;

	if (!dead || !sum_to || !sums) {
		free(dead);
		free(sum_to);
		free(sums);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct proc_mark *m = find_mark(r, proc_id(procs[i].tgid, procs[i].gen));
		const struct proc_mark *m0 =
			m && procs[i].gen ? find_mark(r, proc_id(procs[i].tgid, 0)) : NULL;

		if (!m)
			continue;
		dead[m - r->procs] = true;
		if (m0 && m0->sum == m->sum)
			dead[m0 - r->procs] = true;
	}
	/* the marks left, and the sums they hold, closed up in order */
	for (size_t i = 0; i < r->nprocs; i++) {
		struct proc_mark m = r->procs[i];

		if (dead[i])
			continue;
		if (m.sum && !sum_to[m.sum - 1]) {
			sums[nsums] = r->sums[m.sum - 1];
			sum_to[m.sum - 1] = ++nsums;
		}
		if (m.sum)
			m.sum = sum_to[m.sum - 1];
		r->procs[kept++] = m;
	}
	free(r->sums);
	r->sums = sums;
	r->sums_cap = r->nsums ? r->nsums : 1;
	r->nsums = nsums;
	r->nprocs = kept;
	if (r->proc_ix.cap)
		memset(r->proc_ix.slots, 0, r->proc_ix.cap * sizeof(*r->proc_ix.slots));
	for (size_t i = 0; i < kept; i++)
		*find_slot(&r->proc_ix, mix(r->procs[i].id), same_proc, r->procs, &r->procs[i].id) =
			i + 1;
	free(dead);
	free(sum_to);
	return 0;
}

bool retired_rows__kept_own(const struct retired_rows *r, uint32_t tgid, uint16_t gen)
{
	const struct proc_mark *m = find_mark(r, proc_id(tgid, gen));
	const struct proc_mark *m0 = gen ? find_mark(r, proc_id(tgid, 0)) : NULL;

	return !m || !m->into || m->own || (m0 && m0->into == m->into && m0->own);
}

const struct retired_sum *retired_rows__folded(const struct retired_rows *r, uint32_t tgid,
					       uint16_t gen)
{
	const struct proc_mark *m = find_mark(r, proc_id(tgid, gen));

	return m && m->into ? &r->sums[m->sum - 1] : NULL;
}

bool retired_rows__portable_only(const struct retired_rows *r, const struct fl_key *key)
{
	const struct proc_mark *m = find_mark(r, proc_id(key->tgid, key->gen));

	return m && m->into && m->portable_only;
}

bool retired_rows__owns(const struct retired_rows *r, const struct fl_key *key)
{
	return find_mark(r, proc_id(key->tgid, key->gen)) != NULL;
}

static int add_hist(struct retired_rows *r, const struct fl_key *key,
		    const struct fl_alloc_hist *hist)
{
	struct collector_hist *v;
	size_t *slot;

	if (index_reserve(&r->hist_ix, r->hists, r->nhists, hist_hash_of))
		return -ENOMEM;
	slot = find_slot(&r->hist_ix, key_hash(key), same_hist, r->hists, key);
	if (*slot) {
		struct fl_alloc_hist *old = &r->hists[*slot - 1].hist;

		for (size_t i = 0; i < FL_HIST_BUCKETS; i++) {
			old->size[i] += hist->size[i];
			old->latency[i] += hist->latency[i];
		}
		return 0;
	}
	v = grow__reserve(r->hists, &r->hists_cap, r->nhists, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->hists = v;
	r->hists[r->nhists++] = (struct collector_hist){ .key = *key, .hist = *hist };
	*slot = r->nhists;
	return 0;
}

/* The key a row of @key moves to: the process it is folded into (its threads as that
 * process), unless it keeps its own (portable_only and not @portable). */
static struct fl_key moved_key(const struct proc_mark *m, const struct fl_key *key, bool portable)
{
	struct fl_key to = *key;

	if (m && m->into && !(m->portable_only && !portable)) {
		to.tgid = to.tid = (uint32_t)((m->into - 1) >> 16);
		to.gen = (uint16_t)(m->into - 1);
	}
	return to;
}

struct fl_key retired_rows__moves_to(const struct retired_rows *r, const struct fl_key *key,
				     bool portable)
{
	return moved_key(find_mark(r, proc_id(key->tgid, key->gen)), key, portable);
}

int retired_rows__add(struct retired_rows *r, const struct fl_row *row,
		      const struct fl_alloc_hist *hist, bool portable)
{
	struct proc_mark *m = find_mark(r, proc_id(row->key.tgid, row->key.gen));
	struct fl_row moved = *row;
	struct fl_row *v;
	size_t *slot;

	if (m && m->into) {
		struct retired_sum *sum = &r->sums[m->sum - 1];

		report__charge(&sum->attributed, &sum->hugetlb_faults, &row->key, &row->counts);
		m->own |= m->portable_only && !portable;
	}
	moved.key = moved_key(m, &row->key, portable);
	if (hist && add_hist(r, &moved.key, hist))
		return -ENOMEM;
	if (index_reserve(&r->row_ix, r->rows, r->nrows, row_hash_of))
		return -ENOMEM;
	slot = find_slot(&r->row_ix, key_hash(&moved.key), same_row, r->rows, &moved.key);
	if (*slot) {
		struct fl_row *old = &r->rows[*slot - 1];

		/* a late change (a teardown) made the row again after it moved, or a process
		 * folded into this one had the same */
		counts__add(&old->counts, &moved.counts);
		return 0;
	}
	v = grow__reserve(r->rows, &r->rows_cap, r->nrows, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->rows = v;
	r->rows[r->nrows++] = moved;
	*slot = r->nrows;
	return 0;
}

const struct collector_hist *retired_rows__hist(const struct retired_rows *r,
						const struct fl_key *key)
{
	size_t i = r->hist_ix.cap ?
			   *find_slot(&r->hist_ix, key_hash(key), same_hist, r->hists, key) :
			   0;

	return i ? &r->hists[i - 1] : NULL;
}

const struct fl_row *retired_rows__rows(const struct retired_rows *r, size_t *n)
{
	*n = r->nrows;
	return r->rows;
}

static bool same_stack(const void *set, size_t i, const void *want)
{
	return ((const struct kept_stack *)set)[i].hash == *(const uint64_t *)want;
}

static uint64_t stack_hash_of(const void *set, size_t i)
{
	return mix(((const struct kept_stack *)set)[i].hash);
}

int retired_rows__keep_stack(struct retired_rows *r, uint64_t stack, const uint64_t *ips, size_t n,
			     uint32_t end)
{
	struct kept_stack *v;
	size_t *slot;

	if (r->stack_ix.cap && *find_slot(&r->stack_ix, mix(stack), same_stack, r->stacks, &stack))
		return 0;
	if (index_reserve(&r->stack_ix, r->stacks, r->nstacks, stack_hash_of))
		return -ENOMEM;
	v = grow__reserve(r->stacks, &r->stacks_cap, r->nstacks, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->stacks = v;
	v = &r->stacks[r->nstacks];
	v->ips = malloc(n * sizeof(*ips));
	if (!v->ips)
		return -ENOMEM;
	memcpy(v->ips, ips, n * sizeof(*ips));
	v->n = n;
	v->end = end;
	v->hash = stack;
	slot = find_slot(&r->stack_ix, mix(stack), same_stack, r->stacks, &stack);
	*slot = ++r->nstacks;
	return 0;
}

size_t retired_rows__stack(const struct retired_rows *r, uint64_t stack, uint64_t *ips,
			   uint32_t *end)
{
	size_t i;

	if (!r->stack_ix.cap)
		return 0;
	i = *find_slot(&r->stack_ix, mix(stack), same_stack, r->stacks, &stack);
	if (!i)
		return 0;
	memcpy(ips, r->stacks[i - 1].ips, r->stacks[i - 1].n * sizeof(*ips));
	if (end)
		*end = r->stacks[i - 1].end;
	return r->stacks[i - 1].n;
}
