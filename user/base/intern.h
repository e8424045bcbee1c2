/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Interning: each distinct value gets a dense id from 1 and is found again by its content in
 * O(1) (open addressing), so a table of 100k entries costs hash lookups, not scans. Values are
 * either fixed-size records compared as memory (so they must hold no padding) or strings.
 */
#ifndef FAULTLINE_INTERN_H
#define FAULTLINE_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct intern_slot {
	uint32_t id; /* 0: empty */
	uint32_t hash;
};

struct intern {
	void *vals; /* the records, or the strings (char *), by id - 1 */
	size_t n;   /* ids 1..n are taken */
	size_t cap;
	size_t size; /* a record's size; 0 for strings */
	struct intern_slot *slots;
	size_t nslots; /* 0 or a power of two */
};

/* An empty table of records of @size bytes, or of strings when @size is 0. */
void intern__init(struct intern *t, size_t size);
/* Frees what @t holds (the copies of the strings too) and leaves it empty. */
void intern__fini(struct intern *t);
/* The id of the value equal to @key (a record, or a NUL-terminated string), copied in when
 * new. Returns 0 when out of memory. */
uint64_t intern__id(struct intern *t, const void *key);
/* The id of the value equal to @key, 0 when it has none (nothing added). */
uint64_t intern__find(const struct intern *t, const void *key);
/* The value with id @id (1..n): the record, or the string. */
const void *intern__get(const struct intern *t, uint64_t id);

#endif /* FAULTLINE_INTERN_H */
