/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The call tree part of the live table (table.c), one line per shown frame. */
#ifndef FAULTLINE_FLAMETREE_H
#define FAULTLINE_FLAMETREE_H

#include <stdio.h>
#include "model/profile.h"
#include "views/table.h"

/*
 * Writes the column titles and the tree of @p to @out, every line within @width (20..1000):
 *  - root to leaf, children heaviest first by @o->metric (whatever order @p is in), 2 columns
 *    of indentation per depth (capped so a name keeps at least 16 columns);
 *  - children below @o->min_share of the total collapse into one "[N more]" line;
 *  - at most @o->top (0: no limit) of the heaviest stack ends are shown (a node's self value,
 *    or a "[N more]" group); the rest is summed in one final "[other stacks]" line, so that
 *    the shown ends, the groups and that line add up to the total;
 *  - "(no growth attributed yet)" when the total is 0.
 */
void flametree__render(FILE *out, const struct profile *p, const struct table_opts *o,
		       unsigned width);

#endif /* FAULTLINE_FLAMETREE_H */
