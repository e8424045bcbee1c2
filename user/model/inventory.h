/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The inventory of what a process holds resident: every mapping of its smaps, classified
 * (mapkind.h), as read at attach and at the end (or, live, at the last read), paired so that
 * a mapping shows what it held then and now. Each mapping also carries who owns it (the
 * allocator, the application, or unknown) and the stack that mapped it, when known: the
 * session notes those as it learns them (inventory__note_origin()).
 */
#ifndef FAULTLINE_INVENTORY_H
#define FAULTLINE_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/smaps.h"
#include "model/mapkind.h"

enum inv_side {
	INV_AT_ATTACH,
	INV_AT_END, /* the end of the session, or live the last read */
	INV_SIDES
};

enum inv_owner {
	INV_OWNER_UNKNOWN,     /* made before attach by code not known, or not told yet */
	INV_OWNER_ALLOCATOR,   /* the heap, malloc's arenas, what the allocator mapped */
	INV_OWNER_APPLICATION, /* mapped by the application's own code */
};

/* What a mapping held at one read, in bytes. */
struct inv_figures {
	uint64_t start, end; /* its range then (a heap or a stack moves an end) */
	uint64_t rss;
	uint64_t anon;
	uint64_t swap;
	uint64_t pss;
	uint64_t anon_huge; /* of anon, in transparent huge pages */
	uint64_t hugetlb;   /* hugetlbfs pages, outside rss */
};

struct inv_mapping {
	uint64_t start, end; /* as last seen */
	struct map_kind_of kind;
	uint32_t perms; /* SMAPS_READ ..., as last seen */
	char *name;	/* as smaps names it ("" for an unnamed anonymous mapping) */
	bool seen[INV_SIDES];
	struct inv_figures at[INV_SIDES];
	enum inv_owner owner;
	uint64_t mapped_by; /* the stack key of the call that mapped it; 0: unknown */
};

/* A read of smaps: when, at what cost, and the VmRSS read right after it. */
struct inv_read {
	bool taken;
	uint64_t at_ns;	  /* CLOCK_MONOTONIC */
	uint64_t cost_ns; /* CPU time of the reads (smaps, the threads, status) */
	bool have_vm_rss;
	uint64_t vm_rss;
	size_t nmappings;
	size_t nthreads; /* threads whose stack pointers were read */
};

/* An ownership noted by the session, applied to every read. */
struct inv_origin {
	uint64_t start, end;
	enum inv_owner owner;
	uint64_t stack;
};

/* The name of a stack that mapped something, "outer > ... > leaf". */
struct inv_caller {
	uint64_t stack;
	char *text;
};

struct inventory {
	struct inv_mapping *v; /* sorted by start */
	size_t n, cap;
	struct inv_read reads[INV_SIDES];
	struct inv_origin *origins;
	size_t norigins, origins_cap;
	struct inv_caller *callers; /* named by the session (inventory__name_caller()) */
	size_t ncallers, callers_cap;
};

/*
 * Takes the mappings of @m, classified as @kinds says (m->n of them), as side @side of @inv,
 * @read what the read was. A mapping already there from the other side is paired by its
 * start (the heap and the main stack by their kind: their ends move): it holds both sides.
 * The default owner is the allocator for the heap and arenas, unknown for the rest; the
 * origins noted so far apply on top. Returns 0 or -ENOMEM (@inv as it was).
 */
int inventory__take(struct inventory *inv, enum inv_side side, const struct smaps *m,
		    const struct map_kind_of *kinds, const struct inv_read *read);

/*
 * The session learned that [@start, @end) was mapped by @owner (enum inv_owner) from the
 * call whose stack key is @stack (0: unknown): the anonymous mappings of @inv it is the
 * origin of (the noted range with the highest start at or below the mapping's that reaches
 * into it, else the first that starts inside it) take that owner and stack, now and in the
 * reads to come; the heap and arenas stay the allocator's, taking the stack alone. Returns
 * 0, -EINVAL for an empty range or an unknown owner, or -ENOMEM.
 */
int inventory__note_origin(struct inventory *inv, uint64_t start, uint64_t end, int owner,
			   uint64_t stack);

/* inventory__note_origin() of the @n origins @v at once (the mappings' owners are worked
 * out once, not once per origin). Returns 0, -EINVAL (nothing noted) or -ENOMEM. */
int inventory__note_origins(struct inventory *inv, const struct inv_origin *v, size_t n);

/* Names stack @stack (a mapping's mapped_by) @text, once: later names of it are ignored.
 * Returns 0 or -ENOMEM. */
int inventory__name_caller(struct inventory *inv, uint64_t stack, const char *text);
/* The name of @stack, or NULL when it has none. */
const char *inventory__caller(const struct inventory *inv, uint64_t stack);

/* Forgets every origin noted: each mapping's owner is its default again (the session notes
 * what it knows now, which may have lost what an unmap took). */
void inventory__forget_origins(struct inventory *inv);

/* The sums over the mappings of @inv seen at @side into @sum (its start and end 0). */
void inventory__totals(const struct inventory *inv, enum inv_side side, struct inv_figures *sum);

/* VmRSS read beside @side less the sum of the mappings' rss: what smaps did not explain
 * (pages faulted in or freed between the two reads). 0 when either is missing. */
int64_t inventory__gap(const struct inventory *inv, enum inv_side side);

/*
 * The name a mapping is shown by, into @buf: the path of a file or shared memory ("/memfd:x
 * (deleted)"), "[heap]", "[stack] main (TID)", "thread NAME (TID)" (or "thread stack, no
 * live thread"), "arena 0x7f0000000000", "[anon:NAME] 0xSTART-0xEND (SIZE)" or "0xSTART-0xEND (SIZE)" of
 * anonymous memory. Returns @buf.
 */
const char *inventory__name(const struct inv_mapping *m, char *buf, size_t len);

/* "unknown", "allocator", "application". */
const char *inv_owner__name(enum inv_owner o);

void inventory__free(struct inventory *inv);

#endif /* FAULTLINE_INVENTORY_H */
