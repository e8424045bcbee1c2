// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "base/grow.h"
#include <stdlib.h>

void *grow__reserve(void *arr, size_t *cap, size_t n, size_t size)
{
	size_t bigger = *cap ? *cap * 2 : 8;
	void *p;

	if (n < *cap)
		return arr;
	p = realloc(arr, bigger * size);
	if (p)
		*cap = bigger;
	return p;
}
