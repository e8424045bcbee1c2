/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The inventory section of the report: what a process holds resident, row by row, at attach
 * and at the end. A row is one thing: the heap, an arena, a thread's stack, a file (all its
 * mappings), a large anonymous mapping; small ones are grouped by kind.
 */
#ifndef FAULTLINE_INVENTORYTABLE_H
#define FAULTLINE_INVENTORYTABLE_H

#include <stdbool.h>
#include <stdio.h>
#include "model/inventory.h"
#include "model/report.h"

/* Rows of a process the final report shows; the rest are one "[N more ...]" line. */
#define INVENTORYTABLE_ROWS 25
/* A file or anonymous mapping holding less than this at both reads is grouped by kind. */
#define INVENTORYTABLE_SMALL (1ULL << 20)

#define INVENTORYTABLE_OWNER_MIXED (-1)

struct inv_row {
	enum map_kind kind;
	char name[256];
	size_t nmappings;
	bool grouped; /* "N small file mappings" */
	bool seen[INV_SIDES];
	struct inv_figures at[INV_SIDES]; /* sums (start and end 0) */
	int owner;			  /* enum inv_owner, or INVENTORYTABLE_OWNER_MIXED */
};

/*
 * The rows of @inv into *@rows (malloc'ed, *@n of them): mappings of the same kind and name
 * together (a file's segments, an arena and its reserve, a stack and its guard page), small
 * ones grouped by kind, the heaviest (the larger of the two reads' resident bytes) first.
 * Returns 0 or -ENOMEM.
 */
int inventorytable__rows(const struct inventory *inv, struct inv_row **rows, size_t *n);

/* The section of process @s (nothing when it has no inventory): at most @max_rows rows (0:
 * all) and the rest named in one line, then the totals against VmRSS. @final: the end side is
 * the end of the session ("END"), else the last live read ("NOW"), @now_ns its moment. */
void inventorytable__render(FILE *out, unsigned width, const struct fl_proc_summary *s,
			    size_t max_rows, bool final, uint64_t now_ns);

#endif /* FAULTLINE_INVENTORYTABLE_H */
