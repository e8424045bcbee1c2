/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The profile model: a call tree of named frames with per-kind counters, independent of BPF.
 * Stacks are added root first (process, [thread], outermost caller ... leaf); identical names
 * at the same depth merge, as in a flame graph.
 */
#ifndef FAULTLINE_PROFILE_H
#define FAULTLINE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "faultline.h"

/* What a view sorts by and what --folded writes. All are non-negative. */
enum fl_metric {
	FL_METRIC_RESIDENT = 0, /* anon + file + shmem growth, bytes */
	FL_METRIC_ANON,
	FL_METRIC_FILE,
	FL_METRIC_SHMEM,
	FL_METRIC_SWAP,
	FL_METRIC_FAULTS,      /* count */
	FL_METRIC_RELEASED,    /* anon + file + shmem released, bytes */
	FL_METRIC_ALLOC_BYTES, /* --alloc: bytes allocated since attach */
	FL_METRIC_ALLOC_COUNT,
	FL_METRIC_LIVE_BYTES, /* --alloc: allocated since attach and not freed */
	FL_METRIC_LIVE_COUNT,
	FL_METRIC_PEAK,	    /* net resident bytes held when the process's RSS was highest */
	FL_METRIC_RESERVED, /* --vm: virtual bytes mapped by mmap, mremap and brk growth */
	FL_METRIC_UNMAPPED, /* --vm: virtual bytes given back by munmap, mremap, brk shrink */
	FL_METRIC_NEW,	    /* pages the kernel allocated for the stack: shared pages count 0 */
	FL_METRIC__COUNT,
};

/* Parses a --metric name; returns 0 or -EINVAL. */
int metric__parse(const char *name, enum fl_metric *out);
/* The --metric spelling of @m. */
const char *metric__name(enum fl_metric m);
/* True when @m counts bytes (false: a plain count). */
bool metric__is_bytes(enum fl_metric m);
/* True for the metrics only --alloc fills. */
bool metric__needs_alloc(enum fl_metric m);
/* True for the metrics that need the frees traced: --alloc's exact mode, not --alloc=churn. */
bool metric__needs_frees(enum fl_metric m);
/* True for the metrics that are a level at a moment (the live heap), not a flow over a time:
 * a --every window takes them as it ends, not as what came in it. */
bool metric__is_level(enum fl_metric m);
/* True for the metrics only --vm fills. */
bool metric__needs_vm(enum fl_metric m);
/* True for the metric only a session run with it fills (new: its program costs every page
 * allocation of the machine, so it is loaded when chosen). */
bool metric__needs_new(enum fl_metric m);
/* The value of @m in @c (a sum of kinds held at UINT64_MAX). */
uint64_t metric__value(const struct fl_counts *c, enum fl_metric m);
/* Counts whose value of metric @m is @v, every other field 0 (@v <= INT64_MAX): the inverse of
 * metric__value(), for values read back from a file. */
struct fl_counts metric__counts(enum fl_metric m, uint64_t v);
/* @dst += @src, field by field, each sum held at its type's limit instead of wrapping (values
 * read from files can be anything). Returns true when some field was held so. */
bool counts__add(struct fl_counts *dst, const struct fl_counts *src);
/* @c less @base, field by field (held at 0: counters only grow, but a row moved since may
 * have less): what came since @base was read. The peak fields go to 0: a peak is a moment of
 * the whole session, not of a part of it. */
void counts__since(struct fl_counts *c, const struct fl_counts *base);
/* True when every count of @c is 0 (peak_seq, bookkeeping, aside): a row that says nothing. */
bool counts__is_zero(const struct fl_counts *c);

struct pnode {
	char *name;		/* NULL for the root; owned by the node */
	struct fl_counts total; /* this node and everything below it */
	struct fl_counts self;	/* stacks that end here */
	struct pnode *parent;	/* NULL for the root */
	struct pnode **children;
	size_t nchildren;
	size_t cap;
	bool leaf; /* some added stack ended here (its self may still be all zero) */
	char *src; /* "file:line" every stack through it gave, or NULL (none, or they differ) */
	bool src_seen, src_mixed;
};

struct profile {
	struct pnode root; /* unnamed; its total is the whole profile */
	size_t nstacks;	   /* distinct leaf paths added */
	bool saturated;	   /* some sum of counts was held at its limit (counts__add) */
	/*
	 * Private: every node but the root, in an open-addressing table keyed by (parent, name),
	 * so that finding a child is O(1) whatever the fan-out and whatever order the children
	 * array is in (profile__sort reorders it).
	 */
	struct pnode **slots;
	size_t nslots; /* 0 or a power of two */
	size_t nnodes;
};

/* An empty profile, or NULL (ENOMEM). */
struct profile *profile__new(void);
/* Frees @p and every node. Accepts NULL. */
void profile__free(struct profile *p);
/*
 * Adds one stack: @frames[0] is the root-most frame, @frames[n-1] the leaf; @c is added to
 * the total of every node on the path (the root included) and to the leaf's self. A NULL frame
 * is named "[unknown]". A sum that would pass its limit is held there and sets @p->saturated.
 * Returns 0, -EINVAL when @n is 0, or -ENOMEM (then no count was added;
 * nodes already created stay, with zero counts).
 */
int profile__add(struct profile *p, const char *const *frames, size_t n, const struct fl_counts *c);
/*
 * profile__add, with the source line of each frame, "file:line" or NULL (@srcs NULL: none): a
 * node keeps the line while every stack through it gives the same one.
 */
int profile__add_src(struct profile *p, const char *const *frames, const char *const *srcs,
		     size_t n, const struct fl_counts *c);
/*
 * The node at the end of @frames (with @srcs as profile__add_src() gives them), created with
 * zero counts where missing and marked as a stack's end, in *@leaf, without adding counts:
 * for a tree whose counts are set again at every refresh (the leaves' selves zeroed, then
 * profile__add_self() and profile__sum()). Returns 0, -EINVAL when @n is 0, or -ENOMEM.
 */
int profile__path(struct profile *p, const char *const *frames, const char *const *srcs, size_t n,
		  struct pnode **leaf);
/* @c added to the self of @leaf alone: the totals wait for profile__sum(). */
void profile__add_self(struct profile *p, struct pnode *leaf, const struct fl_counts *c);
/* Every node's total made its self (a stack's end's; the others' is zero) plus its children's
 * totals: after profile__add_self(), the counts profile__add() would have given. */
void profile__sum(struct profile *p);
/* Orders every node's children by total of @m, heaviest first, ties by name. */
void profile__sort(struct profile *p, enum fl_metric m);

/* qsort_r() order of pnode pointers: by total of *(enum fl_metric *)@metric, heaviest first,
 * ties by name (profile__sort's order). */
int pnode__cmp_weight(const void *a, const void *b, void *metric);

/* The children of @n (NULL: none) in name order, in a new array (*@out, NULL when there are
 * none) of *@count: writers whose output must not depend on insertion order. 0 or -ENOMEM. */
int pnode__children_by_name(const struct pnode *n, const struct pnode ***out, size_t *count);

#endif /* FAULTLINE_PROFILE_H */
