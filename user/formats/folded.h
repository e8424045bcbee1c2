/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Folded stacks (Brendan Gregg's flamegraph.pl input): "root;...;leaf VALUE" per line. */
#ifndef FAULTLINE_FOLDED_H
#define FAULTLINE_FOLDED_H

#include <stdbool.h>
#include <stdio.h>
#include "model/profile.h"

/*
 * One line "frame;frame;...;leaf VALUE\n" per node whose self value of @m is above 0, root-most
 * frame first, VALUE a decimal integer (bytes, or a count for faults). The values add up to
 * the profile's total of @m. Lines come in pre-order with siblings in strcmp() order, so the
 * output depends only on the profile's content. In frame names ';' is written as ':' and
 * every control character (newline, tab, ...) as a space, so that every line parses.
 * Flushes @out. Returns 0, -ENOMEM, or -errno of the failed write (-EIO when unknown).
 */
int folded__write(FILE *out, const struct profile *p, enum fl_metric m);

/*
 * What a folded file holds, so that faultline diff compares like with like: its metric and
 * the layout of its frames. Written as the file's first line, "# faultline folded metric=peak
 * by=stack threads=no", which flame graph tools skip: flamegraph.pl and inferno take a line
 * only when its last word is a count, and this one never ends in digits.
 */
#define FOLDED_LAYOUT_PREFIX "# faultline folded "
struct folded_layout {
	enum fl_metric metric;
	char by[32]; /* --by: "stack", "mapping" or "stack,mapping", maybe after "process," or "cgroup," */
	bool threads; /* -T: the thread is the second frame */
};

/* The layout line of @l, newline included. Returns 0 or -errno of the failed write. */
int folded__write_layout(FILE *out, const struct folded_layout *l);

#endif /* FAULTLINE_FOLDED_H */
