// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/frames.h"
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/x86.h"

/* What names a stack: the counts key's stack fields, and how its leaf is read. */
struct stack_id {
	uint32_t tgid;
	uint16_t gen; /* a pid's processes apart (fl_key.gen) */
	bool returns; /* an allocation row's: the leaf is a return address too */
	uint64_t stack;
	uint64_t leaf_ret;
};

struct named_stack {
	struct stack_id id;
	bool used;
	bool retry;	/* cut at a frame outside code, or named without its process's
			 * mappings: name it again next refresh */
	unsigned round; /* the refresh it was named in */
	size_t n;
	char **names;	 /* root first */
	uint64_t *addrs; /* the address each name is of, root first */
};

/* Open addressing, linear probing; grown at half full. */
struct frames {
	struct named_stack *slots;
	size_t cap;
	size_t used;
	unsigned round; /* frames__next_round() count */
};

void frames__next_round(struct frames *f)
{
	f->round++;
}

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

static void names_free(struct named_stack *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	free(s->addrs);
}

void frames__free(struct frames *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->cap; i++)
		if (f->slots[i].used)
			names_free(&f->slots[i]);
	free(f->slots);
	free(f);
}

static bool same(const struct stack_id *a, const struct stack_id *b)
{
	return a->tgid == b->tgid && a->gen == b->gen && a->returns == b->returns &&
	       a->stack == b->stack && a->leaf_ret == b->leaf_ret;
}

static size_t slot_of(const struct frames *f, const struct stack_id *id)
{
	uint64_t h =
		(id->stack ^ id->leaf_ret ^ id->tgid ^ ((uint64_t)id->gen << 32) ^ id->returns) *
		0x9e3779b97f4a7c15ull;
	size_t i = (h >> 32) & (f->cap - 1);

	while (f->slots[i].used && !same(&f->slots[i].id, id))
		i = (i + 1) & (f->cap - 1);
	return i;
}

static int grow(struct frames *f)
{
	struct frames bigger = { .cap = f->cap * 2, .used = f->used };

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < f->cap; i++) {
		const struct named_stack *s = &f->slots[i];

		if (s->used)
			bigger.slots[slot_of(&bigger, &s->id)] = *s;
	}
	free(f->slots);
	*f = bigger;
	return 0;
}

/*
 * True when @leaf_ret is the caller of a frameless leaf that the frame-pointer walk skipped:
 * the leaf function has no frame-pointer prologue (or has not run it yet) and the bytes before
 * @leaf_ret are a call.
 */
static bool leaf_caller_missing(struct symbolizer *sym, const uint64_t *ips, size_t n,
				uint64_t leaf_ret)
{
	uint8_t code[X86_PROLOGUE_MAX], before[7];
	uint64_t start;

	if (!sym || !leaf_ret || (n > 1 && ips[1] == leaf_ret))
		return false;
	if (symbolizer__func_start(sym, ips[0], &start) ||
	    symbolizer__read_code(sym, start, code, sizeof(code)) ||
	    symbolizer__read_code(sym, leaf_ret - sizeof(before), before, sizeof(before)))
		return false;
	if (x86__frame_setup_len(code, sizeof(code)) && ips[0] != start)
		return false;
	return x86__ends_with_call(before, sizeof(before));
}

/*
 * The repaired walk of @key into @ips (leaf first): the skipped caller put back, repeats of one
 * address in a row folded (a walk looping on a bogus frame; direct recursion from one call site
 * folds too, as most profilers show it). Returns the count.
 */
static size_t repaired_walk(const struct collector *col, struct symbolizer *sym,
			    const struct fl_key *key, uint64_t ips[FL_MAX_STACK_DEPTH])
{
	size_t n = collector__stack(col, key->stack, ips), out = n ? 1 : 0;

	if (n && n < FL_MAX_STACK_DEPTH && leaf_caller_missing(sym, ips, n, key->leaf_ret)) {
		memmove(&ips[2], &ips[1], (n - 1) * sizeof(ips[0]));
		ips[1] = key->leaf_ret;
		n++;
	}
	for (size_t i = 1; i < n; i++)
		if (ips[i] != ips[out - 1])
			ips[out++] = ips[i];
	return out;
}

/* Names @ips (leaf first) into @names and @addrs, root first, from the deepest frame that lies
 * in a mapping. Returns how many, and sets *@cut when frames were dropped or the leaf is in no
 * mapping (or @sym is NULL): a process's mappings may be known later (at its exit). */
static size_t name_stack(struct symbolizer *sym, const uint64_t *ips, size_t n, bool returns,
			 char **names, uint64_t *addrs, bool *cut)
{
	char buf[512];
	size_t kept = n;

	*cut = !sym;
	for (size_t i = 0; i < n; i++) {
		/* a return address points after the call: step back into it to name the caller */
		uint64_t addr = i > 0 || returns ? ips[i] - 1 : ips[i];
		const char *name = buf;

		if (sym)
			name = symbolizer__name(sym, addr, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "[unknown]+0x%" PRIx64, addr);
		if (i > 0 && sym && !symbolizer__is_code(sym, addr)) {
			kept = i;
			*cut = true;
			break;
		}
		if (!i && sym && !symbolizer__is_code(sym, addr))
			*cut = true;
		names[i] = strdup(name);
		addrs[i] = addr;
	}
	/* leaf first -> root first */
	for (size_t i = 0; i < kept / 2; i++) {
		char *t = names[i];
		uint64_t a = addrs[i];

		names[i] = names[kept - 1 - i];
		names[kept - 1 - i] = t;
		addrs[i] = addrs[kept - 1 - i];
		addrs[kept - 1 - i] = a;
	}
	return kept;
}

/* @s could not be named whole: it is named again at its next use, this round or not. */
static size_t out_of_memory(const struct frames *f, struct named_stack *s)
{
	s->retry = true;
	s->round = f->round - 1;
	return 0;
}

size_t frames__get(struct frames *f, const struct collector *col, struct symbolizer *sym,
		   const struct fl_key *key, const char *const **out)
{
	const uint64_t *addrs;

	return frames__get_addrs(f, col, sym, key, out, &addrs);
}

size_t frames__get_addrs(struct frames *f, const struct collector *col, struct symbolizer *sym,
			 const struct fl_key *key, const char *const **out, const uint64_t **addrs)
{
	uint64_t ips[FL_MAX_STACK_DEPTH];
	struct stack_id id = { .tgid = key->tgid,
			       .gen = key->gen,
			       .returns = fl_call_is_alloc(key->call),
			       .stack = key->stack,
			       .leaf_ret = key->leaf_ret };
	struct named_stack *s;
	size_t n;
	bool cut;

	if (f->used * 2 >= f->cap && grow(f))
		return 0;
	s = &f->slots[slot_of(f, &id)];
	/* a cut stack is named again once per refresh, not for every row that shares it: the
	 * maps it could be named from do not change within one */
	if (s->used && (!s->retry || s->round == f->round)) {
		*out = (const char *const *)s->names;
		*addrs = s->addrs;
		return s->n;
	}
	n = repaired_walk(col, sym, key, ips);
	if (!n)
		return 0;
	if (s->used)
		names_free(s);
	else
		f->used++;
	*s = (struct named_stack){ .id = id, .used = true, .round = f->round };
	s->names = calloc(n, sizeof(char *));
	s->addrs = calloc(n, sizeof(uint64_t));
	if (!s->names || !s->addrs)
		return out_of_memory(f, s);
	s->n = name_stack(sym, ips, n, id.returns, s->names, s->addrs, &cut);
	s->retry = cut;
	for (size_t i = 0; i < s->n; i++)
		if (!s->names[i])
			return out_of_memory(f, s);
	*out = (const char *const *)s->names;
	*addrs = s->addrs;
	return s->n;
}
