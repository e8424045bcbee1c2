/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * What each mapping of a process is, from its smaps line and its neighbours alone (no /proc
 * read here, so tests feed fixtures): the heap, a glibc malloc arena, the main stack, a
 * thread's stack (by the thread's stack pointer, else by the guard page below it), a file,
 * shared memory, hugetlb pages, an anonymous mapping.
 */
#ifndef FAULTLINE_MAPKIND_H
#define FAULTLINE_MAPKIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/mountinfo.h"
#include "base/smaps.h"
#include "base/threadstacks.h"

/* glibc's HEAP_MAX_SIZE on 64-bit (2 * DEFAULT_MMAP_THRESHOLD_MAX): each non-main arena heap
 * is a mapping of this size aligned to it, read-write up to its top, PROT_NONE above. */
#define MAPKIND_ARENA_SIZE ((uint64_t)64 << 20)
/* A guard page below a thread stack is this small or smaller (glibc: one page by default,
 * pthread_attr_setguardsize() more). */
#define MAPKIND_GUARD_MAX ((uint64_t)1 << 20)

enum map_kind {
	MAPKIND_HEAP,	      /* [heap]: brk, malloc's main arena */
	MAPKIND_ARENA,	      /* a glibc malloc arena heap (its PROT_NONE reserve included) */
	MAPKIND_STACK,	      /* [stack]: the main thread's */
	MAPKIND_THREAD_STACK, /* a thread's stack and its guard page */
	MAPKIND_ANON,	      /* any other private anonymous mapping (named or not) */
	MAPKIND_FILE,	      /* a file, by path */
	MAPKIND_SHMEM,	      /* shared memory: MAP_SHARED anonymous, SysV, memfd, tmpfs files */
	MAPKIND_HUGETLB,      /* hugetlbfs pages (outside RSS) */
	MAPKIND_NO_ACCESS,    /* PROT_NONE reservations that belong to nothing above */
	MAPKIND_KERNEL,	      /* [vdso], [vvar], [vsyscall], [uprobes] */
	MAPKIND__COUNT
};

/* What one mapping is. */
struct map_kind_of {
	enum map_kind kind;
	pid_t tid;     /* a thread stack's thread (0: a stack shaped one no live thread uses) */
	char comm[16]; /* ... and its name */
};

/* What the classifier knows beside the mappings: the threads (their stack pointers, some
 * unknown) and the tmpfs devices. Either may be empty. */
struct map_kind_hints {
	const struct thread_sp *threads;
	size_t nthreads;
	const struct shmem_dev *shmem_devs;
	size_t nshmem_devs;
};

/* Classifies every mapping of @m (sorted by start, as smaps is) into @out (m->n of them). */
void mapkind__classify(const struct smaps *m, const struct map_kind_hints *h,
		       struct map_kind_of *out);

/* The kind's name in JSON and in the table: "heap", "arena", "stack", "thread_stack", "anon",
 * "file", "shmem", "hugetlb", "no_access", "kernel". */
const char *mapkind__name(enum map_kind k);

#endif /* FAULTLINE_MAPKIND_H */
