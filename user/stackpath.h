/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* A row's path into the profile tree with its source lines, inlined calls expanded or not. */
#ifndef FAULTLINE_STACKPATH_H
#define FAULTLINE_STACKPATH_H

#include <stdbool.h>
#include <stddef.h>
#include "model/profile.h"
#include "trace/frames.h"

/*
 * The node of @p at the end of @path (@depth frames, root first) in *@leaf, created where
 * missing (profile__path()): @infos[i] is the lines of frame i, or NULL for a frame without
 * (process, thread, pseudo-frames). Each frame's node gets the line of the function itself
 * ("file:line"); with @inline_frames, the calls inlined at a frame's address follow it as
 * frames of their own, outermost first, each with its line. Returns 0, -EINVAL, or -ENOMEM.
 */
int stackpath__leaf(struct profile *p, const char *const *path,
		    const struct frame_info *const *infos, size_t depth, bool inline_frames,
		    struct pnode **leaf);

#endif /* FAULTLINE_STACKPATH_H */
