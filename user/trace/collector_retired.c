// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The collector's rows of exited processes: marked, folded, and moved out of the maps into the
 * retired rows (retired.h), their walks made alike in every process where they can be. */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include "trace/collector.h"
#include "trace/collector_state.h"
#include "trace/retired.h"
#include "trace/walkrepair.h"

int collector__retire(struct collector *c, uint32_t tgid, uint16_t gen, bool gen0)
{
	c->to_move = true;
	return retired_rows__mark(c->retired, tgid, gen, gen0);
}

int collector__fold(struct collector *c, uint32_t tgid, uint16_t gen, bool gen0, uint32_t into_tgid,
		    uint16_t into_gen, bool portable_only)
{
	return retired_rows__fold(c->retired, tgid, gen, gen0, into_tgid, into_gen, portable_only);
}

void collector__set_portable(struct collector *c, collector_portable_fn fn, void *ctx)
{
	c->portable_fn = fn;
	c->portable_ctx = ctx;
}

uint64_t collector__moves(const struct collector *c)
{
	return c->moves;
}

bool collector__kept_own(const struct collector *c, uint32_t tgid, uint16_t gen)
{
	return retired_rows__kept_own(c->retired, tgid, gen);
}

static int cmp_retired_proc(const void *a, const void *b)
{
	const struct retired_proc *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

int collector__forget(struct collector *c, struct retired_proc *procs, size_t n)
{
	size_t kept = 0;
	int err;

	if (!n)
		return 0;
	err = retired_rows__forget(c->retired, procs, n);
	if (err)
		return err;
	/* their last mm states, which each read carries over */
	qsort(procs, n, sizeof(*procs), cmp_retired_proc);
	for (size_t i = 0; i < c->nmms; i++) {
		struct retired_proc want = { c->mms[i].tgid, c->mms[i].gen };

		if (!bsearch(&want, procs, n, sizeof(*procs), cmp_retired_proc))
			c->mms[kept++] = c->mms[i];
	}
	c->nmms = kept;
	return 0;
}

const struct retired_sum *collector__folded(const struct collector *c, uint32_t tgid, uint16_t gen)
{
	return retired_rows__folded(c->retired, tgid, gen);
}

/* What one move of retired rows deletes from the maps, in one batch each. */
struct moved {
	struct fl_key *rows, *hists;
	uint64_t *stacks;
	size_t nrows, nhists, nstacks;
};

/*
 * Keeps the frames of stack @stack, to be deleted from the stacks map. Safe for a stack that
 * other rows name, or that a CPU remembers as stored (stack.bpf.h stack_seen): its frames are
 * here from now on, and a walk that finds it missing stores it again.
 */
static int move_stack(struct collector *c, uint64_t stack, struct moved *m)
{
	uint64_t ips[FL_MAX_STACK_DEPTH];
	size_t n;
	int err;

	uint32_t end;

	if (!stack || retired_rows__stack(c->retired, stack, ips, NULL))
		return 0;
	n = collector__stack(c, stack, ips, &end);
	if (!n)
		return 0;
	err = retired_rows__keep_stack(c->retired, stack, ips, n, end);
	if (!err)
		m->stacks[m->nstacks++] = stack;
	return err;
}

/* The key of a walk made of objects' frames in userspace: its frames and how it ended. */
static uint64_t portable_key(const uint64_t *ips, size_t n, uint32_t end)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ ips[i]) * 0x100000001b3ull;
	h ^= (uint64_t)(end + 1) << 56;
	return h ? h : 1;
}

/*
 * @row's key into @as, its walk made of objects' frames alone when the portable function
 * makes it so (see collector_portable_fn). True when it is named alike in every process: no
 * stack, or frames of objects alone (FL_FRAME_OBJ) and no leaf to repair. Only a process
 * folded with portable_only asks (retired_rows__add()): the others' walks are not read.
 */
static bool make_portable(struct collector *c, const struct fl_row *row, struct fl_row *as)
{
	uint64_t ips[FL_MAX_STACK_DEPTH], out[FL_MAX_STACK_DEPTH];
	uint32_t end = 0;
	size_t n, k;

	*as = *row;
	if (!row->key.stack)
		return true;
	if (!retired_rows__portable_only(c->retired, &row->key))
		return false;
	n = retired_rows__stack(c->retired, row->key.stack, ips, &end);
	if (n && !row->key.leaf_ret && walk__all_objects(ips, n))
		return true;
	k = n && c->portable_fn ? c->portable_fn(c->portable_ctx, &row->key, ips, n, out) : 0;
	if (!k)
		return false;
	as->key.stack = portable_key(out, k, end);
	as->key.leaf_ret = 0;
	return !retired_rows__keep_stack(c->retired, as->key.stack, out, k, end);
}

/* Moves one row of a retired process, and its histograms (--alloc), out of the maps (its
 * stack kept first). */
static int move_row(struct collector *c, const struct fl_row *row, struct moved *m)
{
	struct fl_alloc_hist hist;
	bool have = c->hists_fd >= 0 && fl_call_is_alloc(row->key.call) &&
		    !bpf_map_lookup_elem(c->hists_fd, &row->key, &hist);
	struct fl_row as;
	bool alike = make_portable(c, row, &as);
	struct fl_key to = retired_rows__moves_to(c->retired, alike ? &as.key : &row->key, alike);
	int err = retired_rows__add(c->retired, alike ? &as : row, have ? &hist : NULL, alike);

	/* --every: what the row held as the window began goes where it now counts */
	if (!err && c->windows)
		err = window_base__move(c->windows, &row->key, &to);
	if (err)
		return err;
	m->rows[m->nrows++] = row->key;
	if (have)
		m->hists[m->nhists++] = row->key;
	return 0;
}

/*
 * Moves the rows of retired processes out of the counts map (and their stacks out of the
 * stacks map) into the retired rows. A change made to such a row between its read and its
 * delete (the teardown of an exited process's mm by whoever held it last) is lost. The
 * deletes go in batches: a storm of short-lived children has thousands of rows a second.
 */
int collector_move_retired(struct collector *c)
{
	struct moved m = { 0 };
	size_t live = 0, n = 0;
	int err = 0;

	for (size_t i = 0; i < c->nrows; i++)
		n += retired_rows__owns(c->retired, &c->rows[i].key);
	m.rows = malloc(n * sizeof(*m.rows));
	m.hists = malloc(n * sizeof(*m.hists));
	m.stacks = malloc(n * sizeof(*m.stacks));
	if (n && (!m.rows || !m.hists || !m.stacks)) {
		/* the rows stay as read, to be moved at the next read */
		free(m.rows);
		free(m.hists);
		free(m.stacks);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nrows && !err; i++) {
		if (!retired_rows__owns(c->retired, &c->rows[i].key)) {
			c->rows[live++] = c->rows[i];
			continue;
		}
		err = move_stack(c, c->rows[i].key.stack, &m);
		if (!err)
			err = move_row(c, &c->rows[i], &m);
	}
	c->moves++;
	collector_delete_keys(c->counts_fd, m.rows, m.nrows, sizeof(*m.rows));
	collector_delete_keys(c->hists_fd, m.hists, m.nhists, sizeof(*m.hists));
	collector_delete_keys(c->stacks_fd, m.stacks, m.nstacks, sizeof(*m.stacks));
	free(m.rows);
	free(m.hists);
	free(m.stacks);
	c->nrows = live;
	c->to_move = false;
	return err;
}
