/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The counts rows of processes that exited, and their stacks, kept in userspace: the collector
 * moves them out of the counts and stacks maps, so a storm of thousands of short-lived
 * children does not fill them (each exec'd child has stacks of its own: ASLR).
 */
#ifndef FAULTLINE_RETIRED_H
#define FAULTLINE_RETIRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "faultline.h"

struct fl_row;
struct collector_hist;
struct retired_rows;

/* What a folded process was charged (report__charge()), summed as its rows moved. */
struct retired_sum {
	struct fl_counts attributed;
	uint64_t hugetlb_faults;
};

struct retired_rows *retired_rows__new(void);	 /* NULL on -ENOMEM */
void retired_rows__free(struct retired_rows *r); /* accepts NULL */

/* Process @tgid of generation @gen (fl_key.gen) has exited: its rows are to move, and with
 * @gen0 those of generation 0 of @tgid too (its allocator and memory call rows, when it is the
 * newest process of the pid). Returns 0 or -ENOMEM. */
int retired_rows__mark(struct retired_rows *r, uint32_t tgid, uint16_t gen, bool gen0);

/*
 * Process @tgid of generation @gen, marked (and @gen0 as there), is folded into process
 * @into_tgid of generation @into_gen: its rows, as they move, take that one's key (its threads
 * too, as the process's), so exited processes that name every code address alike (the same
 * layout: forks that did not exec) share rows; what each was charged is summed apart, for
 * retired_rows__folded(). With @portable_only (processes of one program, exec'd: ASLR put
 * their code apart), only the rows whose stacks are named alike in every process (frames of
 * objects alone) take the other key; the rest keep their own. Folding a process into itself
 * freezes its sum the same way. Returns 0, -ENOENT when not marked, or -ENOMEM.
 */
int retired_rows__fold(struct retired_rows *r, uint32_t tgid, uint16_t gen, bool gen0,
		       uint32_t into_tgid, uint16_t into_gen, bool portable_only);

/* False when process @tgid of generation @gen is folded and every row that moved took the
 * other key: none of its own is left to name. */
bool retired_rows__kept_own(const struct retired_rows *r, uint32_t tgid, uint16_t gen);

/* What folded process @tgid of generation @gen was charged, or NULL when it is not folded: its
 * rows, and those of the processes folded into it, are then not its own. */
const struct retired_sum *retired_rows__folded(const struct retired_rows *r, uint32_t tgid,
					       uint16_t gen);

/* A process to forget (retired_rows__forget()). */
struct retired_proc {
	uint32_t tgid;
	uint16_t gen;
};

/*
 * Forgets the @n processes @procs, each folded with no row of its own left (not
 * retired_rows__kept_own()): their marks and sums go, and the mark of generation 0 of their pid
 * when it was theirs. Their rows are already another's; a row of theirs that came later would
 * stay in the maps as a process no one knows. Returns 0 or -ENOMEM (nothing forgotten).
 */
int retired_rows__forget(struct retired_rows *r, const struct retired_proc *procs, size_t n);

/* True when the row of @key belongs to a process folded with portable_only. */
bool retired_rows__portable_only(const struct retired_rows *r, const struct fl_key *key);

/* True when the row of @key belongs to a process marked. */
bool retired_rows__owns(const struct retired_rows *r, const struct fl_key *key);

/* Adds the counts of @row to the row of its key (created; folded: the key of the process it
 * is folded into), and its histograms @hist (NULL: none) to that row's. @portable: its stack
 * is named alike in every process (retired_rows__fold()). Returns 0 or -ENOMEM. */
int retired_rows__add(struct retired_rows *r, const struct fl_row *row,
		      const struct fl_alloc_hist *hist, bool portable);

/* The key the row of @key takes as retired_rows__add() moves it (@portable as there). */
struct fl_key retired_rows__moves_to(const struct retired_rows *r, const struct fl_key *key,
				     bool portable);

/* The histograms of retired row @key (oldest_ts 0: nothing of an exited process is live), or
 * NULL. */
const struct collector_hist *retired_rows__hist(const struct retired_rows *r,
						const struct fl_key *key);

/* The rows kept, in no order. */
const struct fl_row *retired_rows__rows(const struct retired_rows *r, size_t *n);

/* Keeps the @n frames @ips (leaf first) of stack @stack, which may then leave the stacks map.
 * Returns 0 or -ENOMEM. */
int retired_rows__keep_stack(struct retired_rows *r, uint64_t stack, const uint64_t *ips, size_t n,
			     uint32_t end);

/* The frames of stack @stack kept, into @ips (FL_MAX_STACK_DEPTH), how its walk ended into
 * *@end (NULL: not wanted); how many, 0 when none. */
size_t retired_rows__stack(const struct retired_rows *r, uint64_t stack, uint64_t *ips,
			   uint32_t *end);

#endif /* FAULTLINE_RETIRED_H */
