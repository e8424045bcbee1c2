// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "rowgroups.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int cmp_group(const void *a, const void *b)
{
	return memcmp(&((const struct row_group *)a)->key, &((const struct row_group *)b)->key,
		      sizeof(struct fl_key));
}

int row_groups__build(const struct fl_row *rows, size_t nrows,
		      bool (*keep)(const struct fl_row *r, void *ctx), void *ctx,
		      struct row_group **out, size_t *n)
{
	struct row_group *g = malloc((nrows ? nrows : 1) * sizeof(*g));

	*n = 0;
	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < nrows; i++) {
		if (keep && !keep(&rows[i], ctx))
			continue;
		g[*n].key = rows[i].key;
		g[*n].key.tid = 0;
		g[(*n)++].row = i;
	}
	qsort(g, *n, sizeof(*g), cmp_group);
	*out = g;
	return 0;
}

size_t row_groups__end(const struct row_group *g, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && !cmp_group(&g[i], &g[j]))
		j++;
	return j;
}
