// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/frames.h"
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/x86.h"

/*
 * What names a stack: the code it runs through, the counts key's stack fields, and how its leaf
 * is read. The code is the symbolizer's layout, so that a forking server's children, which map
 * what their parent maps, share its named stacks instead of each holding a copy; without a
 * symbolizer (addresses only), the process itself.
 */
struct stack_id {
	uint64_t image;
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
	unsigned epoch; /* the frames__rename_all() count when it was named */
	size_t n;
	char **names;		 /* root first */
	uint64_t *addrs;	 /* the address each name is of, root first */
	struct frame_info *info; /* the lines of each frame, root first */
	uint64_t *walk;		 /* the repaired walk, leaf first, to name it again */
	size_t nwalk;
};

/* Open addressing, linear probing; grown at half full. */
struct frames {
	struct named_stack *slots;
	size_t cap;
	size_t used;
	unsigned round; /* frames__next_round() count */
	unsigned epoch; /* frames__rename_all() count */
};

void frames__next_round(struct frames *f)
{
	f->round++;
}

void frames__rename_all(struct frames *f)
{
	f->epoch++;
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

static void info_free(struct frame_info *fi)
{
	for (size_t k = 0; k < fi->nlines; k++) {
		free((char *)fi->lines[k].name);
		free((char *)fi->lines[k].file);
	}
	free((void *)fi->lines);
}

static void names_free(struct named_stack *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->names[i]);
		if (s->info)
			info_free(&s->info[i]);
	}
	free(s->names);
	free(s->addrs);
	free(s->info);
	s->names = NULL;
	s->addrs = NULL;
	s->info = NULL;
}

void frames__free(struct frames *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->cap; i++) {
		if (f->slots[i].used) {
			names_free(&f->slots[i]);
			free(f->slots[i].walk);
		}
	}
	free(f->slots);
	free(f);
}

static bool same(const struct stack_id *a, const struct stack_id *b)
{
	return a->image == b->image && a->returns == b->returns && a->stack == b->stack &&
	       a->leaf_ret == b->leaf_ret;
}

static size_t slot_of(const struct frames *f, const struct stack_id *id)
{
	uint64_t h = (id->stack ^ id->leaf_ret ^ id->image ^ id->returns) * 0x9e3779b97f4a7c15ull;
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
	size_t n = collector__stack(col, key->stack, ips, NULL), out = n ? 1 : 0;

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

/* The lines of @addr into @fi (innermost first, the function last); its name in *@name. */
static int name_frame(struct symbolizer *sym, uint64_t addr, struct frame_info *fi, char **name)
{
	struct symbolizer_frame fr[SYMBOLIZER_MAX_FRAMES];
	struct frame_line *lines;
	size_t n = 1;

	if (sym) {
		n = symbolizer__frames(sym, addr, fr, SYMBOLIZER_MAX_FRAMES);
	} else {
		snprintf(fr[0].name, sizeof(fr[0].name), "[unknown]+0x%" PRIx64, addr);
		fr[0].file = NULL;
		fr[0].line = 0;
	}
	lines = calloc(n, sizeof(*lines));
	*name = strdup(fr[n - 1].name);
	fi->lines = lines;
	fi->nlines = lines ? n : 0;
	if (!lines || !*name)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		lines[k].name = strdup(fr[k].name);
		lines[k].file = fr[k].file ? strdup(fr[k].file) : NULL;
		lines[k].line = fr[k].line;
		if (!lines[k].name || (fr[k].file && !lines[k].file))
			return -ENOMEM;
	}
	return 0;
}

/*
 * True when @ret is where a signal handler returns: the start of the signal trampoline
 * (__restore_rt), whose unwind entry begins one byte early so that "return address - 1" still
 * finds it. It is named from @ret itself, not from the byte before, which no function holds
 * (a call at the very end of a function, to a function that does not return, leaves a
 * return address at the next function's start too: but there the byte before is the
 * caller's).
 */
static bool is_trampoline_return(struct symbolizer *sym, uint64_t ret)
{
	uint64_t at, before;

	return !symbolizer__func_start(sym, ret, &at) && at == ret &&
	       (symbolizer__func_start(sym, ret - 1, &before) || before == ret - 1);
}

/* Names @ips (leaf first) into @s's names, addrs and info, root first, from the deepest frame
 * that lies in a mapping. Sets s->n, and *@cut when frames were dropped or the leaf is in no
 * mapping (or @sym is NULL): a process's mappings may be known later (at its exit). 0 or
 * -ENOMEM. */
static int name_stack(struct symbolizer *sym, const uint64_t *ips, size_t n, bool returns,
		      struct named_stack *s, bool *cut)
{
	size_t kept = n;
	int err = 0;

	*cut = !sym;
	for (size_t i = 0; i < n; i++) {
		/* a return address points after the call: step back into it to name the caller */
		uint64_t addr = i > 0 || returns ? ips[i] - 1 : ips[i];

		if (addr != ips[i] && sym && is_trampoline_return(sym, ips[i]))
			addr = ips[i];

		if (i > 0 && sym && !symbolizer__is_code(sym, addr)) {
			kept = i;
			*cut = true;
			break;
		}
		if (!i && sym && !symbolizer__is_code(sym, addr))
			*cut = true;
		s->addrs[i] = addr;
		err = name_frame(sym, addr, &s->info[i], &s->names[i]);
		if (err) {
			kept = i + 1;
			break;
		}
	}
	/* leaf first -> root first */
	for (size_t i = 0; i < kept / 2; i++) {
		size_t j = kept - 1 - i;
		char *t = s->names[i];
		uint64_t a = s->addrs[i];
		struct frame_info fi = s->info[i];

		s->names[i] = s->names[j];
		s->names[j] = t;
		s->addrs[i] = s->addrs[j];
		s->addrs[j] = a;
		s->info[i] = s->info[j];
		s->info[j] = fi;
	}
	s->n = kept;
	return err;
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
	const struct frame_info *info;

	return frames__get_info(f, col, sym, key, out, addrs, &info);
}

/* Keeps the walk @ips of @n frames in @s. 0 or -ENOMEM. */
static int keep_walk(struct named_stack *s, const uint64_t *ips, size_t n)
{
	uint64_t *w = realloc(s->walk, n * sizeof(*w));

	if (!w)
		return -ENOMEM;
	memcpy(w, ips, n * sizeof(*w));
	s->walk = w;
	s->nwalk = n;
	return 0;
}

/* Names @s (its walk in s->walk) again. Returns the count, 0 when memory ran out. */
static size_t name_again(struct frames *f, struct symbolizer *sym, struct named_stack *s)
{
	bool cut;

	names_free(s);
	s->round = f->round;
	s->epoch = f->epoch;
	s->names = calloc(s->nwalk, sizeof(char *));
	s->addrs = calloc(s->nwalk, sizeof(uint64_t));
	s->info = calloc(s->nwalk, sizeof(struct frame_info));
	if (!s->names || !s->addrs || !s->info ||
	    name_stack(sym, s->walk, s->nwalk, s->id.returns, s, &cut))
		return out_of_memory(f, s);
	s->retry = cut;
	return s->n;
}

size_t frames__get_info(struct frames *f, const struct collector *col, struct symbolizer *sym,
			const struct fl_key *key, const char *const **out, const uint64_t **addrs,
			const struct frame_info **info)
{
	uint64_t ips[FL_MAX_STACK_DEPTH];
	struct stack_id id = { .image = sym ? symbolizer__layout(sym) :
					      1ull << 63 | (uint64_t)key->gen << 32 | key->tgid,
			       .returns = fl_call_is_alloc(key->call),
			       .stack = key->stack,
			       .leaf_ret = key->leaf_ret };
	struct named_stack *s;
	size_t n;

	if (f->used * 2 >= f->cap && grow(f))
		return 0;
	s = &f->slots[slot_of(f, &id)];
	/* a cut stack is named again once per refresh, not for every row that shares it: the
	 * maps it could be named from do not change within one; every stack is named again
	 * once after debug files arrived (from its kept walk: the BPF map may have lost it) */
	if (s->used && s->epoch == f->epoch && (!s->retry || s->round == f->round))
		goto named;
	if (!s->used || s->retry) {
		/* walked again: repairing the walk needs the maps a retry may have now */
		n = repaired_walk(col, sym, key, ips);
		if (!n && !s->used)
			return 0;
		if (!s->used) {
			*s = (struct named_stack){ .id = id, .used = true };
			f->used++;
		}
		if (n && keep_walk(s, ips, n))
			return out_of_memory(f, s);
	}
	if (!name_again(f, sym, s))
		return 0;
named:
	*out = (const char *const *)s->names;
	*addrs = s->addrs;
	*info = s->info;
	return s->n;
}
