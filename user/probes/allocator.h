/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --alloc: which loaded object is a process's allocator, and where each of its malloc-family
 * functions is probed. Pure ELF reading and decoding: no BPF, testable without root.
 */
#ifndef FAULTLINE_ALLOCATOR_H
#define FAULTLINE_ALLOCATOR_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "faultline.h"
#include "probes/placement.h"

#define ALLOC_MAX_PROBES 48

enum alloc_probe_state {
	ALLOC_PROBE_ATTACH = 0, /* probed at site */
	ALLOC_PROBE_MISSING,	/* the object does not define it */
	ALLOC_PROBE_ALIAS,	/* same address as an earlier function: that probe counts it */
	ALLOC_PROBE_TAIL_JUMP,	/* starts with a jmp: the function it jumps to counts it */
};

struct alloc_probe {
	char symbol[64];	/* the name looked up (with the prefix for the C functions) */
	enum fl_alloc_fn fn;	/* the cookie: what the arguments mean */
	uint64_t vaddr;		/* ELF virtual address of the entry */
	uint64_t size;		/* st_size */
	uint64_t entry_off;	/* file offset of the entry */
	struct probe_site site; /* where the probe goes, from the entry */
	enum alloc_probe_state state;
};

struct alloc_plan {
	char path[PATH_MAX]; /* the allocator object, as the target's root names it */
	struct alloc_probe probes[ALLOC_MAX_PROBES];
	size_t nprobes;
};

/* True for the free side (free, operator delete): one entry probe, no return probe. */
bool alloc_fn__is_free(enum fl_alloc_fn fn);

/*
 * The allocator among the objects @paths (under @rootfd): the first that defines
 * @prefix"malloc", except that any libc.so comes last (it always defines malloc, and an
 * allocator loaded beside it wins). Returns its index, or -ENOENT when none defines it.
 */
int allocator__choose(int rootfd, const char *const *paths, size_t n, const char *prefix);

/*
 * Resolves every malloc-family function in @path (under @rootfd) and chooses where each is
 * probed (placement.h), refusing sites that another probed function branches into. @keep:
 * PLACE_* registers every probe must see as at the entry besides the arguments it reads
 * (PLACE_RBP for a probe that walks the stack, --alloc=churn). Returns 0, -ENODATA when
 * @path does not define @prefix"malloc", -ENOENT when there is no @path, -EISDIR when it is a
 * directory, -ENOEXEC when it is not ELF, or another -errno.
 */
int allocator__plan(int rootfd, const char *path, const char *prefix, unsigned keep,
		    struct alloc_plan *plan);

#endif /* FAULTLINE_ALLOCATOR_H */
