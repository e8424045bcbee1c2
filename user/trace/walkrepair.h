/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A user stack's walk as its frames are named: repaired where the walk is known to go wrong,
 * and made of objects' frames (FL_FRAME_OBJ: an unwind table and an ELF address, the same in
 * every process that runs that code) where ASLR would set processes apart.
 */
#ifndef FAULTLINE_WALKREPAIR_H
#define FAULTLINE_WALKREPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "faultline.h"
#include "symbols/symbolizer.h"
#include "trace/unwind.h"

/* Where @sym's process maps the code of object frame @frame (a table of @u), into *@addr: 0,
 * or -ENOENT when its maps, as read, do not hold it (gone before they were read). */
int walk__place(const struct unwinder *u, const struct symbolizer *sym, uint64_t frame,
		uint64_t *addr);

/*
 * The walk @ips of @n frames of counts row @key, leaf first, repaired in place: the caller of
 * a frameless leaf that a frame-pointer walk skipped (key->leaf_ret) put back, repeats of one
 * address in a row folded (a walk looping on a bogus frame; direct recursion from one call
 * site folds too, as most profilers show it). The frames of objects stay so. Returns the count.
 */
size_t walk__repair(const struct unwinder *u, struct symbolizer *sym, const struct fl_key *key,
		    uint64_t ips[FL_MAX_STACK_DEPTH], size_t n);

/*
 * The walk @ips of @n frames (leaf first) of counts row @key, as @sym's process has it, into
 * @out with every frame its object's (by the tables of @u): repaired, and cut where frames__get()
 * cuts it (a frame outside code), so that it is named alike in every process and needs @sym
 * no more. Returns the count, 0 when a frame is in code without a table (or the leaf in no
 * code).
 */
size_t walk__portable(const struct unwinder *u, struct symbolizer *sym, const struct fl_key *key,
		      const uint64_t *ips, size_t n, uint64_t out[FL_MAX_STACK_DEPTH]);

/* True when @ips holds frames of objects alone: the same code, named alike, in every process. */
bool walk__all_objects(const uint64_t *ips, size_t n);

#endif /* FAULTLINE_WALKREPAIR_H */
