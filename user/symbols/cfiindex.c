// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The page index of an unwind table (cfi.h cfi__page_index), which the BPF walk finds its rows
 * by. */
#include <stdlib.h>
#include "symbols/cfi.h"

size_t cfi__page_index(const struct cfi_table *t, uint32_t **out)
{
	uint64_t pages;
	uint32_t *ix;
	size_t j = 0;

	*out = NULL;
	if (!t->n)
		return 0;
	/* one entry more than the last row's page: a page's search ends at the next entry */
	pages = ((uint64_t)(t->rows[t->n - 1].addr - t->rows[0].addr) >> FL_UNWIND_PAGE_SHIFT) + 2;
	if (pages > CFI_PAGES_MAX)
		return 0;
	ix = calloc((size_t)(pages + 3) / 4 * 4, sizeof(*ix));
	if (!ix)
		return 0;
	for (uint64_t p = 0; p < pages; p++) {
		uint64_t start = t->rows[0].addr + (p << FL_UNWIND_PAGE_SHIFT);

		while (j + 1 < t->n && t->rows[j + 1].addr <= start)
			j++;
		ix[p] = (uint32_t)j;
	}
	*out = ix;
	return (size_t)(pages + 3) / 4;
}
