/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Folded stacks (Brendan Gregg's flamegraph.pl input): "root;...;leaf VALUE" per line. */
#ifndef FAULTLINE_FOLDED_H
#define FAULTLINE_FOLDED_H

#include <stdio.h>
#include "profile.h"

/* One line per node whose self value of @m is above 0, root first. Frame names have ';' and
 * newlines replaced so that every line parses. Returns 0 or -errno of the failed write. */
int folded__write(FILE *out, const struct profile *p, enum fl_metric m);

#endif /* FAULTLINE_FOLDED_H */
