/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * How whole the stacks are: the bytes of resident growth and of allocations, by how the walk
 * of their stack ended (enum fl_stack_end), or lost (no stack at all). A stack is whole when
 * the walk reached the outermost frame (the thread's or the process's start).
 */
#ifndef FAULTLINE_STACKSHARE_H
#define FAULTLINE_STACKSHARE_H

#include <stddef.h>
#include <stdint.h>
#include "faultline.h"

#define FL_SHARE_LOST FL_END__COUNT /* the change had no user stack (FL_ORIGIN_STACK_LOST) */
#define FL_SHARE__COUNT (FL_END__COUNT + 1)

struct fl_stack_share {
	uint64_t growth[FL_SHARE__COUNT]; /* bytes the RSS counters rose (anon, file, shmem) */
	uint64_t alloc[FL_SHARE__COUNT];  /* bytes asked of the allocator (--alloc) */
};

/* The figures of the unwind tables loaded (trace/unwind.c). */
struct fl_unwind_figures {
	size_t objects;	     /* object files with a table loaded */
	size_t rows;	     /* rows in all */
	uint64_t bytes;	     /* memory of the rows in the kernel */
	size_t no_table;     /* objects without one: no .eh_frame, or it could not be read */
	size_t over_budget;  /* objects left without one by the memory bound */
	size_t load_failed;  /* objects whose table the kernel refused */
	size_t maps_cut;     /* the most executable mappings past FL_UNWIND_MAPS in a process */
	char cut_names[160]; /* ... the files they map, comma-separated ("..." when more) */
	double compile_ms;   /* time spent compiling and loading tables */
};

/* Adds the counters @c of a row whose stack ended as @end (FL_SHARE_LOST: no stack). */
void stack_share__add(struct fl_stack_share *s, unsigned end, const struct fl_counts *c);

/* The share of @v (one of fl_stack_share's arrays) as a phrase, into @buf: "98.7% whole, 1.3%
 * cut (no unwind info 0.9%, depth 0.4%)", or "" when @v is all zero. Returns @buf. */
const char *stack_share__describe(const uint64_t v[FL_SHARE__COUNT], char *buf, size_t len);

#endif /* FAULTLINE_STACKSHARE_H */
