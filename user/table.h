/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The live flame-style table: header figures, optional per-thread table, the call tree. */
#ifndef FAULTLINE_TABLE_H
#define FAULTLINE_TABLE_H

#include <stdio.h>
#include "profile.h"
#include "report.h"

struct table_opts {
	unsigned width;	       /* columns to fit in (80 when unknown) */
	unsigned top;	       /* at most this many leaf stacks; the rest collapse into one line */
	enum fl_metric metric; /* sort key and the bytes/percent/bar column */
	bool threads;	       /* -T: add the per-thread table */
	double min_share;      /* children below this share of the total collapse (e.g. 0.01) */
};

/* Writes the header of @r and the tree of @p (sorted by the caller) to @out. No cursor
 * movement: redrawing in place is the caller's job. */
void table__render(FILE *out, const struct fl_report *r, const struct profile *p,
		   const struct table_opts *o);

#endif /* FAULTLINE_TABLE_H */
