// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/frames.h"
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "base/intern.h"
#include "trace/walkrepair.h"

/*
 * What names a stack: the code it runs through, the counts key's stack fields, and how its leaf
 * is read. The code is the symbolizer's layout, so that a forking server's children, which map
 * what their parent maps, share its named stacks instead of each holding a copy; without a
 * symbolizer (addresses only), the process itself; SHARED for a stack of objects' frames alone
 * (and no leaf to repair), the same in every process that runs that code, ASLR or not.
 */
#define SHARED 0

/* The image of a named frame of an object (FL_FRAME_OBJ): named once for every process. */
#define OBJECT_IMAGE UINT64_MAX

struct stack_id {
	uint64_t image;
	bool returns; /* an allocation row's: the leaf is a return address too */
	uint64_t stack;
	uint64_t leaf_ret;
};

/*
 * One code address named: the same return address is in many stacks (every stack of a server
 * passes through its main loop), so each is named once and stacks hold indexes. Names and files
 * are interned: a function's name is held once, however many addresses and lines name it.
 */
struct named_frame {
	uint64_t image; /* as in struct stack_id */
	uint64_t addr;	/* the address named: a return address less one, or the leaf's */
	unsigned epoch; /* the frames__rename_all() count when it was named */
	bool by_object; /* an object's frame no process placed: named without lines */
	const char *name;
	struct frame_line *lines; /* innermost inlined call first, the function last */
	size_t nlines;
};

struct named_stack {
	struct stack_id id;
	bool used;
	bool retry;	/* cut at a frame outside code, or named without its process's
			 * mappings: name it again next refresh */
	unsigned round; /* the refresh it was named in */
	unsigned epoch; /* the frames__rename_all() count when it was named */
	size_t n;
	uint32_t *frames; /* indexes into frames->named, root first */
	uint64_t *walk;	  /* the repaired walk, leaf first, to name it again */
	size_t nwalk;
	/* the address of each frame (root first) in the process of image addrs_image: the
	 * frames of objects are where that process maps them */
	uint64_t *addrs;
	uint64_t addrs_image;
};

/* Open addressing, linear probing; grown at half full. */
struct frames {
	struct named_stack *slots;
	size_t cap;
	size_t used;
	unsigned round; /* frames__next_round() count */
	unsigned epoch; /* frames__rename_all() count */
	struct named_frame *named;
	size_t nnamed, named_cap;
	uint32_t *named_ix; /* index + 1 into named by (image, addr); 0: free */
	size_t named_ix_cap;
	struct intern strings;
	const struct unwinder *unwind; /* whose tables the frames of objects name */
	struct elf_cache *elf;	       /* ... and the cache of their objects */
	/* what frames__get_info() returns: valid until its next call */
	const char *out_names[FL_MAX_STACK_DEPTH];
	uint64_t out_addrs[FL_MAX_STACK_DEPTH];
	struct frame_info out_info[FL_MAX_STACK_DEPTH];
};

void frames__set_unwinder(struct frames *f, const struct unwinder *u, struct elf_cache *cache)
{
	f->unwind = u;
	f->elf = cache;
}

void frames__next_round(struct frames *f)
{
	f->round++;
}

void frames__rename_all(struct frames *f)
{
	f->epoch++;
}

unsigned frames__epoch(const struct frames *f)
{
	return f->epoch;
}

struct frames *frames__new(void)
{
	struct frames *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	intern__init(&f->strings, 0);
	f->cap = 1024;
	f->slots = calloc(f->cap, sizeof(*f->slots));
	if (!f->slots) {
		free(f);
		return NULL;
	}
	return f;
}

void frames__free(struct frames *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->cap; i++) {
		if (f->slots[i].used) {
			free(f->slots[i].frames);
			free(f->slots[i].walk);
			free(f->slots[i].addrs);
		}
	}
	for (size_t i = 0; i < f->nnamed; i++)
		free(f->named[i].lines);
	free(f->named);
	free(f->named_ix);
	intern__fini(&f->strings);
	free(f->slots);
	free(f);
}

static bool same(const struct stack_id *a, const struct stack_id *b)
{
	return a->image == b->image && a->returns == b->returns && a->stack == b->stack &&
	       a->leaf_ret == b->leaf_ret;
}

/* The slot of @id among the @cap (a power of two) @slots, or the free one where it goes. */
static size_t slot_of(const struct named_stack *slots, size_t cap, const struct stack_id *id)
{
	uint64_t h = (id->stack ^ id->leaf_ret ^ id->image ^ id->returns) * 0x9e3779b97f4a7c15ull;
	size_t i = (h >> 32) & (cap - 1);

	while (slots[i].used && !same(&slots[i].id, id))
		i = (i + 1) & (cap - 1);
	return i;
}

static int grow(struct frames *f)
{
	size_t cap = f->cap * 2;
	struct named_stack *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < f->cap; i++)
		if (f->slots[i].used)
			slots[slot_of(slots, cap, &f->slots[i].id)] = f->slots[i];
	free(f->slots);
	f->slots = slots;
	f->cap = cap;
	return 0;
}

/* The repaired walk of @key into @ips (leaf first). Returns the count. */
static size_t repaired_walk(const struct frames *f, const struct collector *col,
			    struct symbolizer *sym, const struct fl_key *key,
			    uint64_t ips[FL_MAX_STACK_DEPTH])
{
	return walk__repair(f->unwind, sym, key, ips, collector__stack(col, key->stack, ips, NULL));
}

/* Where @sym's process maps the code of object frame @frame (walk__place()). */
static int place(const struct frames *f, const struct symbolizer *sym, uint64_t frame,
		 uint64_t *addr)
{
	return walk__place(f->unwind, sym, frame, addr);
}

/* @str held once for the session (NULL stays NULL); NULL when out of memory. */
const char *frames__keep(struct frames *f, const char *str)
{
	uint64_t id;

	if (!str)
		return NULL;
	id = intern__id(&f->strings, str);
	return id ? intern__get(&f->strings, id) : NULL;
}

/* Names @fr with @sym at its address: its lines (innermost first, the function last) and the
 * function's name. Returns 0 or -ENOMEM. */
static int name_frame(struct frames *f, struct symbolizer *sym, struct named_frame *fr)
{
	struct symbolizer_frame out[SYMBOLIZER_MAX_FRAMES];
	struct frame_line *lines;
	const struct elfsyms *elf;
	const char *module;
	size_t n = 1;

	uint64_t at;

	fr->by_object = fr->image == OBJECT_IMAGE && place(f, sym, fr->addr, &at);
	if (fr->by_object) { /* no process placed it: its object names it */
		elf = unwinder__object(f->unwind, fl_frame_table(fr->addr), &module);
		symbolizer__object_name(f->elf, (struct elfsyms *)elf, module,
					fl_frame_vaddr(fr->addr), out[0].name, sizeof(out[0].name));
		out[0].file = NULL;
		out[0].line = 0;
	} else if (fr->image == OBJECT_IMAGE) {
		n = symbolizer__frames(sym, at, out, SYMBOLIZER_MAX_FRAMES);
	} else if (sym) {
		n = symbolizer__frames(sym, fr->addr, out, SYMBOLIZER_MAX_FRAMES);
	} else {
		snprintf(out[0].name, sizeof(out[0].name), "[unknown]+0x%" PRIx64, fr->addr);
		out[0].file = NULL;
		out[0].line = 0;
	}
	lines = calloc(n, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		lines[k].name = frames__keep(f, out[k].name);
		lines[k].file = frames__keep(f, out[k].file);
		lines[k].line = out[k].line;
		if (!lines[k].name || (out[k].file && !lines[k].file)) {
			free(lines);
			return -ENOMEM;
		}
	}
	free(fr->lines);
	fr->lines = lines;
	fr->nlines = n;
	fr->name = lines[n - 1].name;
	fr->epoch = f->epoch;
	return 0;
}

/* The slot of (@image, @addr) in index @ix of @cap (a power of two) slots over @named, or the
 * free one where it goes. */
static size_t named_slot(const struct named_frame *named, const uint32_t *ix, size_t cap,
			 uint64_t image, uint64_t addr)
{
	size_t i = (size_t)(((image ^ addr) * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);

	while (ix[i] && (named[ix[i] - 1].image != image || named[ix[i] - 1].addr != addr))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Room for one more named frame in the index. 0 or -ENOMEM. */
static int named_reserve(struct frames *f)
{
	size_t cap = f->named_ix_cap ? f->named_ix_cap * 2 : 4096;
	uint32_t *ix;

	if ((f->nnamed + 1) * 2 <= f->named_ix_cap)
		return 0;
	ix = calloc(cap, sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < f->nnamed; i++)
		ix[named_slot(f->named, ix, cap, f->named[i].image, f->named[i].addr)] =
			(uint32_t)i + 1;
	free(f->named_ix);
	f->named_ix = ix;
	f->named_ix_cap = cap;
	return 0;
}

/* True when @fr was named before debug files came, or from its object alone where @sym's
 * process places it now (its lines are there). */
static bool must_rename(const struct frames *f, const struct symbolizer *sym,
			const struct named_frame *fr)
{
	uint64_t at;

	return fr->epoch != f->epoch || (fr->by_object && !place(f, sym, fr->addr, &at));
}

/* The index of @addr named in @image, named now when new or named before debug files came.
 * Returns 0 or -ENOMEM. */
static int frame_at(struct frames *f, struct symbolizer *sym, uint64_t image, uint64_t addr,
		    uint32_t *ix)
{
	struct named_frame *v;
	size_t slot;

	if (named_reserve(f))
		return -ENOMEM;
	slot = named_slot(f->named, f->named_ix, f->named_ix_cap, image, addr);
	if (!f->named_ix[slot]) {
		v = grow__reserve(f->named, &f->named_cap, f->nnamed, sizeof(*v));
		if (!v)
			return -ENOMEM;
		f->named = v;
		v[f->nnamed] = (struct named_frame){ .image = image, .addr = addr };
		if (name_frame(f, sym, &v[f->nnamed]))
			return -ENOMEM;
		f->named_ix[slot] = (uint32_t)++f->nnamed;
	} else if (must_rename(f, sym, &f->named[f->named_ix[slot] - 1]) &&
		   name_frame(f, sym, &f->named[f->named_ix[slot] - 1])) {
		return -ENOMEM;
	}
	*ix = f->named_ix[slot] - 1;
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

/* Names @ips (leaf first) into @s's frames, root first, from the deepest frame that lies in a
 * mapping. Sets s->n, and *@cut when frames were dropped or the leaf is in no mapping (or
 * @sym is NULL): a process's mappings may be known later (at its exit). 0 or -ENOMEM. */
static int name_stack(struct frames *f, struct symbolizer *sym, const uint64_t *ips, size_t n,
		      struct named_stack *s, bool *cut)
{
	size_t kept = n;
	int err = 0;

	*cut = !sym;
	for (size_t i = 0; i < n; i++) {
		/* a return address points after the call: step back into it to name the caller */
		uint64_t addr = i > 0 || s->id.returns ? ips[i] - 1 : ips[i];

		/* an object's frame is code, named once for every process that maps it */
		if (ips[i] & FL_FRAME_OBJ) {
			uint64_t at;
			bool placed = !place(f, sym, ips[i], &at);

			if (addr != ips[i] && placed && is_trampoline_return(sym, at))
				addr = ips[i];
			/* from its object alone: named again later, when a process's maps are read */
			*cut |= !placed;
			err = frame_at(f, sym, OBJECT_IMAGE, addr, &s->frames[i]);
			if (err) {
				kept = i;
				break;
			}
			continue;
		}
		if (addr != ips[i] && sym && is_trampoline_return(sym, ips[i]))
			addr = ips[i];
		if (i > 0 && sym && !symbolizer__is_code(sym, addr)) {
			kept = i;
			*cut = true;
			break;
		}
		if (!i && sym && !symbolizer__is_code(sym, addr))
			*cut = true;
		err = frame_at(f, sym, s->id.image, addr, &s->frames[i]);
		if (err) {
			kept = i;
			break;
		}
	}
	/* leaf first -> root first */
	for (size_t i = 0; i < kept / 2; i++) {
		uint32_t t = s->frames[i];

		s->frames[i] = s->frames[kept - 1 - i];
		s->frames[kept - 1 - i] = t;
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
	uint32_t *v = realloc(s->frames, (s->nwalk ? s->nwalk : 1) * sizeof(*v));
	bool cut;

	s->round = f->round;
	s->epoch = f->epoch;
	free(s->addrs); /* named anew: the frames' addresses are found again */
	s->addrs = NULL;
	if (!v)
		return out_of_memory(f, s);
	s->frames = v;
	if (name_stack(f, sym, s->walk, s->nwalk, s, &cut))
		return out_of_memory(f, s);
	s->retry = cut;
	return s->n;
}

/* The address of each frame of @s in the process of @sym and @image, root first: an object's
 * where that process maps it (0: not at all). Kept for the last image asked. 0 or -ENOMEM. */
static int addrs_in(struct frames *f, struct symbolizer *sym, uint64_t image, struct named_stack *s)
{
	uint64_t *v;

	if (s->addrs && s->addrs_image == image)
		return 0;
	v = realloc(s->addrs, (s->n ? s->n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->addrs = v;
	s->addrs_image = image;
	for (size_t i = 0; i < s->n; i++) {
		const struct named_frame *fr = &f->named[s->frames[i]];

		if (fr->image != OBJECT_IMAGE)
			v[i] = fr->addr;
		else if (place(f, sym, fr->addr, &v[i]))
			v[i] = 0;
	}
	return 0;
}

/* The frames of @s as frames__get_info() returns them, in @f's buffers, the addresses as the
 * process of @sym and @image has them. */
static size_t give(struct frames *f, struct symbolizer *sym, uint64_t image, struct named_stack *s,
		   const char *const **names, const uint64_t **addrs,
		   const struct frame_info **info)
{
	if (addrs_in(f, sym, image, s))
		return out_of_memory(f, s);
	for (size_t i = 0; i < s->n; i++) {
		const struct named_frame *fr = &f->named[s->frames[i]];

		f->out_names[i] = fr->name;
		f->out_addrs[i] = s->addrs[i];
		f->out_info[i] = (struct frame_info){ fr->lines, fr->nlines };
	}
	*names = f->out_names;
	*addrs = f->out_addrs;
	*info = f->out_info;
	return s->n;
}

/* The slot of the named stack of @id, or the free one where it goes: first among the stacks
 * every process shares. */
static struct named_stack *stack_slot(struct frames *f, struct stack_id *id)
{
	struct stack_id shared = *id;
	struct named_stack *s;

	shared.image = SHARED;
	s = &f->slots[slot_of(f->slots, f->cap, &shared)];
	return s->used ? s : &f->slots[slot_of(f->slots, f->cap, id)];
}

size_t frames__get_info(struct frames *f, const struct collector *col, struct symbolizer *sym,
			const struct fl_key *key, const char *const **out, const uint64_t **addrs,
			const struct frame_info **info)
{
	uint64_t ips[FL_MAX_STACK_DEPTH];
	uint64_t image = sym ? symbolizer__layout(sym) :
			       1ull << 63 | (uint64_t)key->gen << 32 | key->tgid;
	struct stack_id id = { .image = image,
			       .returns = fl_call_is_alloc(key->call),
			       .stack = key->stack,
			       .leaf_ret = key->leaf_ret };
	struct named_stack *s;
	size_t n;

	if (f->used * 2 >= f->cap && grow(f))
		return 0;
	s = stack_slot(f, &id);
	/* a cut stack is named again once per refresh, not for every row that shares it: the
	 * maps it could be named from do not change within one; every stack is named again
	 * once after debug files arrived (from its kept walk: the BPF map may have lost it) */
	if (s->used && s->epoch == f->epoch && (!s->retry || s->round == f->round))
		goto named;
	if (!s->used || s->retry) {
		/* walked again: repairing the walk needs the maps a retry may have now */
		n = repaired_walk(f, col, sym, key, ips);
		if (!n && !s->used)
			return 0;
		if (!s->used) {
			if (walk__all_objects(ips, n) && !key->leaf_ret) {
				id.image = SHARED;
				s = &f->slots[slot_of(f->slots, f->cap, &id)];
			}
			*s = (struct named_stack){ .id = id, .used = true };
			f->used++;
		}
		if (n && keep_walk(s, ips, n))
			return out_of_memory(f, s);
	}
	if (!name_again(f, sym, s))
		return 0;
named:
	return give(f, sym, image, s, out, addrs, info);
}
