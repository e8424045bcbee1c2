/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The live flame-style table: header figures, optional per-thread table, the call tree. */
#ifndef FAULTLINE_TABLE_H
#define FAULTLINE_TABLE_H

#include <stdbool.h>
#include <stdio.h>
#include "model/profile.h"
#include "model/report.h"

struct table_opts {
	unsigned width;	       /* columns to fit in (0: 80; kept within 20..1000) */
	unsigned top;	       /* at most this many leaf stacks (0: all); the rest collapse into
				* one "[other stacks]" line */
	enum fl_metric metric; /* sort key and the bytes/percent/bar column */
	bool threads;	       /* -T: add the per-thread table */
	bool peak_column;      /* the second column shows bytes held at the RSS peak, not faults */
	bool by_mapping_only;  /* --by mapping: the tree's frames are mappings, not a stack */
	double min_share;      /* children below this share of the total collapse into one
				* "[N more]" line (e.g. 0.01; 0: never) */
};

/*
 * Writes the header of @r (title, per process: current RSS, the kernel's change since attach,
 * faultline's growth and release and the gap, by kind; the drops; the note), the per-thread
 * table with o->threads (at most 20 rows of r->threads, in the caller's order), then the tree
 * of @p as flametree__render() describes (it orders children itself; sorting @p is not
 * needed). Every line fits o->width. No cursor movement: redrawing in place is the caller's
 * job.
 */
void table__render(FILE *out, const struct fl_report *r, const struct profile *p,
		   const struct table_opts *o);

/* Everything table__render() writes between its title line and the tree (the interactive
 * view draws its own title and tree). */
void table__render_figures(FILE *out, const struct fl_report *r, const struct table_opts *o);

/* What the interactive view shows above its tree: the figures, or one table of them alone
 * (on a screen the figures leave no room for the tables below them). */
enum table_panel {
	TABLE_PANEL_FIGURES, /* table__render_figures() */
	TABLE_PANEL_THREADS, /* the per-thread table, with -T or not */
	TABLE_PANEL_SITES,   /* the allocation sites (--alloc) */
	TABLE_PANEL_CALLS,   /* the memory call sites (--vm) */
	TABLE_PANEL__COUNT,
};

/* True when @r has what panel @p shows. */
bool table__has_panel(const struct fl_report *r, enum table_panel p);

/* Panel @p of @r. */
void table__render_panel(FILE *out, const struct fl_report *r, const struct table_opts *o,
			 enum table_panel p);

#endif /* FAULTLINE_TABLE_H */
