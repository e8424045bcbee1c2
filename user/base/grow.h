/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The one way a growing array is grown. */
#ifndef FAULTLINE_GROW_H
#define FAULTLINE_GROW_H

#include <stddef.h>

/*
 * Makes room for one more element in @arr, which holds @n elements of @size and has room for
 * *@cap: doubles it when full (from 8). Returns the array to use from now on, or NULL when out
 * of memory (then @arr and *@cap are unchanged and still valid).
 */
void *grow__reserve(void *arr, size_t *cap, size_t n, size_t size);

#endif /* FAULTLINE_GROW_H */
