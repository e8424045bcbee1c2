/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The --alloc part of the live table and the final report (see table.h). */
#ifndef FAULTLINE_ALLOCTABLE_H
#define FAULTLINE_ALLOCTABLE_H

#include <stdio.h>
#include "model/profile.h"
#include "model/report.h"

/* Two lines for process @s: allocations, frees and unmatched frees since attach; the live
 * heap against the anon RSS change, and the difference the allocator retains. Between them,
 * when an exec dropped live blocks, how many (not among the frees). --alloc=churn: one line,
 * the calls, the bytes asked and the calls per second, and that frees are not traced. */
void alloctable__render_heap(FILE *out, unsigned width, const struct fl_proc_summary *s,
			     const struct fl_report *r);

/* The heaviest allocation sites of @r: live bytes and blocks, the age of the oldest live
 * block, allocated bytes and calls, median size, median and 99th percentile latency.
 * --alloc=churn: bytes asked, calls, calls per second and mean size, under a title that says
 * what is not traced. */
void alloctable__render_sites(FILE *out, unsigned width, const struct fl_report *r);

/* The size and latency histograms of the three heaviest sites (none with --alloc=churn). */
void alloctable__render_hists(FILE *out, unsigned width, const struct fl_report *r);

#endif /* FAULTLINE_ALLOCTABLE_H */
