/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Stack ids named once: (process, stack id) -> frame names, root first. */
#ifndef FAULTLINE_FRAMES_H
#define FAULTLINE_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include "collector.h"
#include "symbolizer.h"

struct frames;

struct frames *frames__new(void);
void frames__free(struct frames *f); /* accepts NULL */

/*
 * The frame names of stack @id of process @tgid, outermost caller first, leaf last, named with
 * @sym (NULL: addresses only) on first use. A stack with a frame that could not be placed in any
 * mapping is named again next time (its library may be mapped by then). Returns the count and
 * sets *@out to an array owned by @f; 0 when the stack is unknown or memory ran out.
 */
size_t frames__get(struct frames *f, const struct collector *col, struct symbolizer *sym,
		   uint32_t tgid, int32_t id, const char *const **out);

#endif /* FAULTLINE_FRAMES_H */
