/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The walks of the live table (--alloc), each a read of every live block: when one is due, and
 * what the last one found, kept for the reads between walks (the oldest live block of each row,
 * the blocks execs left behind). Bookkeeping only, no BPF: collector_alloc.c walks.
 */
#ifndef FAULTLINE_LIVEWALK_H
#define FAULTLINE_LIVEWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/pace.h"
#include "trace/collector.h"

/* True when a walk is due at @now (CLOCK_MONOTONIC ns) for a read asking @w: always for
 * COLLECTOR_WALK_NOW, when @p says so (base/pace.h) for COLLECTOR_WALK_PACED. */
bool livewalk__due(const struct pace *p, enum collector_walk w, uint64_t now);

/* The oldest live block of one row at the last walk. */
struct livewalk_age {
	struct fl_key row;
	uint64_t oldest_ts; /* bpf_ktime_get_ns() at its allocation */
};

/* Sets the oldest_ts of each of the @nh histograms @h from the @na @ages (0 when it has
 * none). Both are sorted by key (collector_cmp_key). */
void livewalk__apply_ages(struct collector_hist *h, size_t nh, const struct livewalk_age *ages,
			  size_t na);

/* Sorts the @n @drops by row and sums those of one row into one; returns how many rows. */
size_t livewalk__merge_drops(struct collector_drop *drops, size_t n);

/* Adds the @nd merged @drops to the frees of their rows among the @nrows @rows. */
void livewalk__charge_drops(struct fl_row *rows, size_t nrows, const struct collector_drop *drops,
			    size_t nd);

/*
 * Whether the @nd merged @drops, which the last walk told apart by the exec ids @was (sorted by
 * tgid), may have missed blocks an exec left behind since: true for a process whose exec id in
 * @now (sorted) is not its id in @was and whose @rows hold more (allocations less frees, in
 * count or bytes) than its drops. The blocks of an image left behind can never be freed, and
 * one that left none changes nothing; so no walk is needed for an exec that left nothing live.
 * Returns 1, 0 or -ENOMEM.
 */
int livewalk__drops_moved(const struct collector_gen *was, size_t nwas,
			  const struct collector_gen *now, size_t nnow, const struct fl_row *rows,
			  size_t nrows, const struct collector_drop *drops, size_t nd);

/* Keeps the drops of the processes that have an exec id in @now (sorted by tgid), as a walk
 * would count them; returns how many are left (in order). */
size_t livewalk__keep_drops(struct collector_drop *drops, size_t nd,
			    const struct collector_gen *now, size_t nnow);

/*
 * Keeps of the @n exec ids @kept (of exited processes, in any order) those whose process has a
 * drop among the @nd @drops a whole walk found: the others have no block left behind to tell
 * apart (the walk deleted their last image's), and each would cost every read a turn for the
 * rest of the session. Returns how many are left (in order), or -ENOMEM (@kept unchanged).
 */
ssize_t livewalk__prune_kept(struct collector_gen *kept, size_t n,
			     const struct collector_drop *drops, size_t nd);

/* Orders struct collector_gen by tgid. */
int livewalk__cmp_gen(const void *a, const void *b);

#endif /* FAULTLINE_LIVEWALK_H */
