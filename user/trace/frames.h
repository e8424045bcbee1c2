/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Stacks named once: (process, stack, leaf return address) -> frame names, root first. */
#ifndef FAULTLINE_FRAMES_H
#define FAULTLINE_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include "symbols/symbolizer.h"
#include "trace/collector.h"
#include "trace/unwind.h"

struct frames;

struct frames *frames__new(void);
void frames__free(struct frames *f); /* accepts NULL */

/* The unwind tables whose frames the walk writes as (object, ELF address): each is turned
 * back into the address in the process whose row it names, or, where that process's maps do
 * not place it (gone before they were read), named from its object in @cache. NULL: none
 * (every frame is an address). */
void frames__set_unwinder(struct frames *f, const struct unwinder *u, struct elf_cache *cache);

/* @str held once for as long as @f lives (a name the tree keeps between refreshes); NULL
 * when out of memory. */
const char *frames__keep(struct frames *f, const char *str);

/* A new refresh: stacks that were cut may be named again (once each). */
void frames__next_round(struct frames *f);

/* Debug files arrived: every stack is named again at its next use. */
void frames__rename_all(struct frames *f);
/* The frames__rename_all() count: within one, a frame's name and lines keep their addresses. */
unsigned frames__epoch(const struct frames *f);

/* A frame's source line: a function inlined at the frame's address, or the function itself. */
struct frame_line {
	const char *name; /* as the frame is named (inlined calls: their DWARF name) */
	const char *file; /* the source file; NULL: unknown */
	unsigned line;	  /* 0: unknown */
};

/* The lines of one frame: innermost inlined call first, the function holding the address last
 * (one line, maybe without file, when there is no DWARF). */
struct frame_info {
	const struct frame_line *lines;
	size_t nlines;
};

/*
 * The frame names of the user stack of counts row @key, outermost caller first, leaf last,
 * named with @sym (NULL: addresses only) on first use. The walk is repaired where it is known
 * to go wrong: the caller of a frameless leaf (key->leaf_ret) is put back, repeats of one frame
 * are folded, and frames from the first return address outside executable code on are cut (a
 * walk gone astray through code without frame pointers). A stack cut that way is named again
 * in the next round (frames__next_round()), in case a library was mapped since. Allocation
 * rows (fl_call_is_alloc(key->call)) are named with every frame read as a return address.
 * Returns the count and sets *@out to an array owned by @f, valid until the next call (the
 * names themselves last as long as @f: each distinct one is held once); 0 when the stack is
 * unknown or memory ran out.
 */
size_t frames__get(struct frames *f, const struct collector *col, struct symbolizer *sym,
		   const struct fl_key *key, const char *const **out);

/*
 * frames__get, and in *@addrs (owned by @f, as many) the address each frame was named from,
 * root first: a return address less one, inside the call instruction, for every frame read as
 * a return address; the fault or call address itself for the leaf of other rows.
 */
size_t frames__get_addrs(struct frames *f, const struct collector *col, struct symbolizer *sym,
			 const struct fl_key *key, const char *const **out, const uint64_t **addrs);

/* frames__get_addrs, and in *@info (owned by @f, as many) the lines of each frame. */
size_t frames__get_info(struct frames *f, const struct collector *col, struct symbolizer *sym,
			const struct fl_key *key, const char *const **out, const uint64_t **addrs,
			const struct frame_info **info);

#endif /* FAULTLINE_FRAMES_H */
