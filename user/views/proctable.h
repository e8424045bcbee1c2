/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The per-process table of a session with several processes (-p PID,PID or -f): one line per
 * process, heaviest first, so that a hundred forked backends fit on a screen.
 */
#ifndef FAULTLINE_PROCTABLE_H
#define FAULTLINE_PROCTABLE_H

#include <stddef.h>
#include <stdio.h>
#include "model/profile.h"
#include "model/report.h"

/* Lines of processes the live view shows; the rest are one "... N more processes" line. */
#define PROCTABLE_LIVE_LINES 10

/* The weight of process @s under @m: its attributed total (its RSS peak for peak). */
uint64_t proctable__weight(const struct fl_proc_summary *s, enum fl_metric m);

/*
 * Fills @order (room for @n) with the indices of @procs, heaviest by @m first; equal weights
 * keep the live ones first, then the lower pid. Returns 0 or -ENOMEM.
 */
int proctable__order(const struct fl_proc_summary *procs, size_t n, enum fl_metric m,
		     size_t *order);

/* The title: "processes by METRIC: N, A alive (...)", what the columns mean. */
void proctable__title(FILE *out, unsigned width, const struct fl_proc_summary *procs, size_t n,
		      enum fl_metric m);

/* The column heads of proctable__line(). */
void proctable__heads(FILE *out, unsigned width, enum fl_metric m);

/* The line of process @s: PID, NAME, STATE and the figures proctable__render() lists (with
 * @m new, its new memory where the others have RELEASED). */
void proctable__line(FILE *out, unsigned width, const struct fl_proc_summary *s, enum fl_metric m);

/*
 * Writes the title, the column heads and one line per process in @order (PID, NAME, alive or
 * exited, faultline's growth of anon, file and shmem, released, the kernel's RSS change since
 * attach, the gap between the two, the private cost Pss_Anon + VmPTE now), at most @max_lines
 * of them (0: all) and then "... N more processes". Figures the kernel could not give (a
 * child gone before it was seen, no smaps_rollup) are "-". Every line fits @width.
 */
void proctable__render(FILE *out, unsigned width, const struct fl_proc_summary *procs,
		       const size_t *order, size_t n, enum fl_metric m, size_t max_lines);

/*
 * One line when shared pages make the processes' resident growth overstate the machine's
 * cost (shared_pages__overstated(), or, too few left to compare, shared_pages__likely()):
 * their figures, and where to look instead (--metric new counts a page once, PSS splits it).
 * Nothing otherwise.
 */
void proctable__render_shared(FILE *out, unsigned width, const struct fl_proc_summary *procs,
			      size_t n);

#endif /* FAULTLINE_PROCTABLE_H */
