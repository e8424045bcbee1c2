/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The call tree kept from one refresh to the next. Building it anew at every refresh cost a
 * name hash and a string compare per frame of every row, and an allocation per node: 10% of a
 * core at a 1 s refresh for 4,096 stacks. Kept, a row finds the leaf its path reached before
 * by a signature of the path, adds its counts to that leaf's self, and the totals are summed
 * once per refresh. A round that does not bring every kept path again (a row gone, a stack
 * named anew) starts the tree over, so that it holds exactly the paths a new one would.
 */
#ifndef FAULTLINE_TREECACHE_H
#define FAULTLINE_TREECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/profile.h"
#include "trace/frames.h"

struct treecache;

/* An empty cache with an empty tree, or NULL (ENOMEM). */
struct treecache *treecache__new(void);
/* Frees @tc and its tree. Accepts NULL. */
void treecache__free(struct treecache *tc);

/*
 * A new round of rows. @stamp stands for what the paths depend on beyond the rows themselves
 * (the options that shape them, the naming epoch of the frames): another one than the last
 * round's starts the tree over. The counts are zeroed, the nodes kept. 0 or -ENOMEM.
 */
int treecache__begin(struct treecache *tc, uint64_t stamp);

/*
 * Adds @c at the end of @path (as stackpath__leaf() takes it: @infos[i] NULL for a frame
 * without lines, whose name is then compared by its text; a frame with lines is known by the
 * addresses of its name and lines, which frames.h keeps unchanged within a naming epoch).
 * 0, -EINVAL or -ENOMEM.
 */
int treecache__add(struct treecache *tc, const char *const *path,
		   const struct frame_info *const *infos, size_t depth, bool inline_frames,
		   const struct fl_counts *c);

/*
 * Ends the round: 0 when every kept path came again, the totals then summed; -EAGAIN when
 * some did not, the tree then emptied for the caller to add the round's rows again; -ENOMEM.
 */
int treecache__end(struct treecache *tc);

/* The tree: its counts are whole after treecache__end() gave 0, until the next round. */
struct profile *treecache__profile(const struct treecache *tc);

/* The tree, taken from @tc (which gets a new empty one), or NULL (ENOMEM: @tc keeps it). */
struct profile *treecache__take(struct treecache *tc);

#endif /* FAULTLINE_TREECACHE_H */
