// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frames.h"

struct named_stack {
	uint32_t tgid;
	int32_t id;
	bool used;
	bool retry; /* a frame fell outside every mapping: name it again next time */
	size_t n;
	char **names; /* root first */
};

/* Open addressing, linear probing; grown at half full. */
struct frames {
	struct named_stack *slots;
	size_t cap;
	size_t used;
};

struct frames *frames__new(void)
{
	struct frames *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->cap = 1024;
	f->slots = calloc(f->cap, sizeof(*f->slots));
	if (!f->slots) {
		free(f);
		return NULL;
	}
	return f;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void frames__free(struct frames *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->cap; i++)
		if (f->slots[i].used)
			names_free(f->slots[i].names, f->slots[i].n);
	free(f->slots);
	free(f);
}

static size_t slot_of(const struct frames *f, uint32_t tgid, int32_t id)
{
	uint64_t h = ((uint64_t)tgid << 32 | (uint32_t)id) * 0x9e3779b97f4a7c15ull;
	size_t i = (h >> 32) & (f->cap - 1);

	while (f->slots[i].used && (f->slots[i].tgid != tgid || f->slots[i].id != id))
		i = (i + 1) & (f->cap - 1);
	return i;
}

static int grow(struct frames *f)
{
	struct frames bigger = { .cap = f->cap * 2, .used = f->used };

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < f->cap; i++)
		if (f->slots[i].used)
			bigger.slots[slot_of(&bigger, f->slots[i].tgid, f->slots[i].id)] = f->slots[i];
	free(f->slots);
	*f = bigger;
	return 0;
}

/* Names @ips (leaf first) root first. Returns false when a frame fell outside every mapping. */
static bool name_stack(struct symbolizer *sym, const uint64_t *ips, size_t n, char **names)
{
	bool placed = true;
	char buf[512];

	for (size_t i = 0; i < n; i++) {
		/* a return address points after the call: step back into it to name the caller */
		uint64_t addr = i > 0 ? ips[i] - 1 : ips[i];
		const char *name;

		if (sym) {
			name = symbolizer__name(sym, addr, buf, sizeof(buf));
		} else {
			snprintf(buf, sizeof(buf), "[unknown]+0x%" PRIx64, addr);
			name = buf;
		}
		if (strncmp(name, "[unknown]", 9) == 0)
			placed = false;
		names[n - 1 - i] = strdup(name);
		if (!names[n - 1 - i])
			placed = false;
	}
	return placed;
}

/*
 * Drops repeats of the same address in a row: a frame-pointer walk through code built without
 * frame pointers often loops on one bogus frame up to the depth limit. Direct recursion from one
 * call site collapses too, as most profilers show it. Returns the new count.
 */
static size_t dedup(uint64_t *ips, size_t n)
{
	size_t out = n ? 1 : 0;

	for (size_t i = 1; i < n; i++)
		if (ips[i] != ips[out - 1])
			ips[out++] = ips[i];
	return out;
}

size_t frames__get(struct frames *f, const struct collector *col, struct symbolizer *sym,
		   uint32_t tgid, int32_t id, const char *const **out)
{
	uint64_t ips[FL_MAX_STACK_DEPTH];
	struct named_stack *s;
	size_t n;
	bool placed;

	if (f->used * 2 >= f->cap && grow(f))
		return 0;
	s = &f->slots[slot_of(f, tgid, id)];
	if (s->used && !s->retry) {
		*out = (const char *const *)s->names;
		return s->n;
	}
	n = dedup(ips, collector__stack(col, id, ips));
	if (!n)
		return 0;
	if (s->used)
		names_free(s->names, s->n);
	s->names = calloc(n, sizeof(char *));
	if (!s->names) {
		s->n = 0;
		s->retry = true;
		return 0;
	}
	placed = name_stack(sym, ips, n, s->names);
	if (!s->used)
		f->used++;
	s->used = true;
	s->tgid = tgid;
	s->id = id;
	s->n = n;
	s->retry = !placed;
	for (size_t i = 0; i < n; i++)
		if (!s->names[i])
			s->names[i] = strdup("[?]"); /* out of memory: never hand out NULL */
	*out = (const char *const *)s->names;
	return n;
}
