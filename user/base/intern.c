// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "base/intern.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"

void intern__init(struct intern *t, size_t size)
{
	memset(t, 0, sizeof(*t));
	t->size = size;
}

void intern__fini(struct intern *t)
{
	for (size_t i = 0; !t->size && i < t->n; i++)
		free(((char **)t->vals)[i]);
	free(t->vals);
	free(t->slots);
	intern__init(t, t->size);
}

const void *intern__get(const struct intern *t, uint64_t id)
{
	if (!t->size)
		return ((char *const *)t->vals)[id - 1];
	return (const char *)t->vals + (id - 1) * t->size;
}

static uint32_t hash_bytes(const void *data, size_t len)
{
	const uint8_t *b = data;
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return (uint32_t)(h ^ h >> 32);
}

/* Doubles the slots (from 64) when half full. Returns 0 or -ENOMEM. */
static int grow_slots(struct intern *t)
{
	size_t cap = t->nslots ? t->nslots * 2 : 64;
	struct intern_slot *slots;

	if (t->n * 2 < t->nslots)
		return 0;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->nslots; i++) {
		size_t j = t->slots[i].hash & (cap - 1);

		if (!t->slots[i].id)
			continue;
		while (slots[j].id)
			j = (j + 1) & (cap - 1);
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = cap;
	return 0;
}

static bool equal(const struct intern *t, uint64_t id, const void *key)
{
	if (!t->size)
		return !strcmp(intern__get(t, id), key);
	return !memcmp(intern__get(t, id), key, t->size);
}

/* Appends a copy of @key as id n + 1. Returns 0 or -ENOMEM. */
static int append(struct intern *t, const void *key)
{
	size_t size = t->size ? t->size : sizeof(char *);
	void *vals = grow__reserve(t->vals, &t->cap, t->n, size);
	char *copy;

	if (!vals)
		return -ENOMEM;
	t->vals = vals;
	if (t->size) {
		memcpy((char *)vals + t->n * size, key, size);
		return 0;
	}
	copy = strdup(key);
	if (!copy)
		return -ENOMEM;
	((char **)vals)[t->n] = copy;
	return 0;
}

uint64_t intern__find(const struct intern *t, const void *key)
{
	uint32_t h = hash_bytes(key, t->size ? t->size : strlen(key));

	for (size_t i = h & (t->nslots - 1); t->nslots && t->slots[i].id;
	     i = (i + 1) & (t->nslots - 1))
		if (t->slots[i].hash == h && equal(t, t->slots[i].id, key))
			return t->slots[i].id;
	return 0;
}

uint64_t intern__id(struct intern *t, const void *key)
{
	uint32_t h = hash_bytes(key, t->size ? t->size : strlen(key));
	size_t i;

	if (grow_slots(t))
		return 0;
	for (i = h & (t->nslots - 1); t->slots[i].id; i = (i + 1) & (t->nslots - 1))
		if (t->slots[i].hash == h && equal(t, t->slots[i].id, key))
			return t->slots[i].id;
	if (append(t, key))
		return 0;
	t->slots[i] = (struct intern_slot){ .id = (uint32_t)++t->n, .hash = h };
	return t->n;
}
