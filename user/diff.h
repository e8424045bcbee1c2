/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * faultline diff BEFORE AFTER: two folded files compared stack by stack, the stacks that
 * changed most printed, and optionally a differential flame graph (svg.h).
 */
#ifndef FAULTLINE_DIFF_H
#define FAULTLINE_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "formats/jsonprofile.h"
#include "model/profile.h"

#define DIFF_DEFAULT_TOP 20

struct diff_config {
	const char *before; /* the two folded files */
	const char *after;
	const char *svg; /* --svg FILE, or NULL */
	unsigned top;	 /* --top N: rows printed */
	long width; /* --width N: lines cut at N columns, 0 none; UNITS_WIDTH_UNSET: not given */
	enum fl_metric metric; /* --metric: what the files' values are (bytes or a count) */
	bool metric_given;     /* ... on the command line, not the default */
};

/* One stack (a folded line) of either file. */
struct diff_row {
	char *stack; /* "frame;...;leaf" */
	uint64_t before, after;
};

struct diff {
	struct diff_row *rows; /* stacks whose value changed, the largest |after - before| first,
				* then by stack (strcmp) */
	size_t n;
	uint64_t total_before, total_after;
	size_t stacks_before, stacks_after; /* stacks with a value above 0 in each file */
	size_t grew, shrank, same;
	size_t added, gone;	/* 0 in one file (counted in grew or shrank too) */
	uint64_t grown, shrunk; /* sums of the positive and of the negative deltas (magnitude) */
	bool saturated;		/* a sum here or in either profile was held at its limit (2^64-1) */
};

/*
 * Parses the arguments after "faultline" (@argv[0] is "diff"). Returns 0, FL_CLI_DONE
 * (cli.h) after printing --help to stdout, or -EINVAL after a one-line usage error on stderr.
 */
int diff__parse_args(int argc, char **argv, struct diff_config *cfg);

/* Why a session that measured @scope has no @m to compare (a one-line reason), or NULL when
 * it has, or cannot tell. */
const char *diff__unmeasured(const struct jsonprofile_scope *scope, enum fl_metric m);

/* Compares the stacks (nodes with a self value of @m above 0) of @before and @after into @d.
 * Returns 0 or -ENOMEM (then @d holds nothing). */
int diff__compute(const struct profile *before, const struct profile *after, enum fl_metric m,
		  struct diff *d);

/* Prints the totals and the @cfg->top first rows of @d, each line within @width columns
 * (20..1000; a long stack keeps its first frame and as many leaf-side frames as fit).
 * Returns true when a stack was so shortened. */
bool diff__print(FILE *out, const struct diff *d, const struct diff_config *cfg, unsigned width);

void diff__fini(struct diff *d);

/* The subcommand: returns the exit status (0 success, 1 runtime failure, 2 usage error). */
int diff__main(int argc, char **argv);

#endif /* FAULTLINE_DIFF_H */
