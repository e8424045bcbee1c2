/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The counts rows grouped across threads: rows alike but for their thread are one stack of
 * the tree without -T and one site of the tables, named once. A server's threads run the same
 * code: mariadbd under sysbench with 64 threads had 6,417 rows of 324 stacks.
 */
#ifndef FAULTLINE_ROWGROUPS_H
#define FAULTLINE_ROWGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include "trace/collector.h"

struct row_group {
	struct fl_key key; /* the row's key, thread 0 */
	size_t row;	   /* its index in the rows */
};

/*
 * The @nrows @rows that @keep (may be NULL: all) keeps, each as a row_group, sorted so that the
 * rows of a group are adjacent. Sets *@out (malloc'ed) and *@n. Returns 0 or -ENOMEM.
 */
int row_groups__build(const struct fl_row *rows, size_t nrows,
		      bool (*keep)(const struct fl_row *r, void *ctx), void *ctx,
		      struct row_group **out, size_t *n);

/* The index past the group that starts at @i among the @n @g. */
size_t row_groups__end(const struct row_group *g, size_t n, size_t i);

#endif /* FAULTLINE_ROWGROUPS_H */
