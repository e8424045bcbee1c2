// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/retired.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "model/profile.h"
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

struct retired_rows {
	struct kept_stack *stacks;
	size_t nstacks, stacks_cap;
	struct index stack_ix;
	uint64_t *procs; /* (tgid << 16 | gen) + 1 of the processes marked, by struct index */
	size_t nprocs, procs_cap;
	struct index proc_ix;
	struct fl_row *rows;
	size_t nrows, rows_cap;
	struct index row_ix;
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
	free(r->rows);
	free(r->row_ix.slots);
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
	return ((const uint64_t *)set)[i] == *(const uint64_t *)want;
}

static bool same_row(const void *set, size_t i, const void *want)
{
	return !memcmp(&((const struct fl_row *)set)[i].key, want, sizeof(struct fl_key));
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
	return mix(((const uint64_t *)set)[i]);
}

static uint64_t row_hash_of(const void *set, size_t i)
{
	return key_hash(&((const struct fl_row *)set)[i].key);
}

static int mark_one(struct retired_rows *r, uint64_t id)
{
	uint64_t *v;
	size_t *slot;

	if (r->proc_ix.cap && *find_slot(&r->proc_ix, mix(id), same_proc, r->procs, &id))
		return 0;
	if (index_reserve(&r->proc_ix, r->procs, r->nprocs, proc_hash_of))
		return -ENOMEM;
	v = grow__reserve(r->procs, &r->procs_cap, r->nprocs, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->procs = v;
	slot = find_slot(&r->proc_ix, mix(id), same_proc, r->procs, &id);
	r->procs[r->nprocs++] = id;
	*slot = r->nprocs;
	return 0;
}

int retired_rows__mark(struct retired_rows *r, uint32_t tgid, uint16_t gen, bool gen0)
{
	int err = mark_one(r, ((uint64_t)tgid << 16 | gen) + 1);

	return err || !gen0 || !gen ? err : mark_one(r, ((uint64_t)tgid << 16) + 1);
}

bool retired_rows__owns(const struct retired_rows *r, const struct fl_key *key)
{
	uint64_t id = ((uint64_t)key->tgid << 16 | key->gen) + 1;

	return r->proc_ix.cap && *find_slot(&r->proc_ix, mix(id), same_proc, r->procs, &id);
}

int retired_rows__add(struct retired_rows *r, const struct fl_row *row)
{
	struct fl_row *v;
	size_t *slot;

	if (index_reserve(&r->row_ix, r->rows, r->nrows, row_hash_of))
		return -ENOMEM;
	slot = find_slot(&r->row_ix, key_hash(&row->key), same_row, r->rows, &row->key);
	if (*slot) {
		struct fl_row *old = &r->rows[*slot - 1];

		/* a late change (a teardown) made the row again after it moved */
		counts__add(&old->counts, &row->counts);
		return 0;
	}
	v = grow__reserve(r->rows, &r->rows_cap, r->nrows, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->rows = v;
	r->rows[r->nrows++] = *row;
	*slot = r->nrows;
	return 0;
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
