/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* --alloc per target: finds the allocator a process uses and attaches its probes to it. */
#ifndef FAULTLINE_ALLOCSETUP_H
#define FAULTLINE_ALLOCSETUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "probes/attach.h"

struct alloc_opts {
	const char *lib;    /* --alloc-lib PATH, or NULL: found per target */
	const char *prefix; /* --alloc-prefix PREFIX, or NULL */
	int verbose;	    /* -v: the probe plan; -vv: each probe's placement */
	bool churn;	    /* --alloc=churn: the allocating functions' entries alone */
	/* hashes of the allocators whose missing functions were said: once, not per child */
	uint64_t told[8];
};

/*
 * Finds the allocator of @pid (@o->lib, else from its mappings) and attaches its probes to
 * @pid alone. @launched: the command of a launched child that has not exec'd yet (its
 * mappings are still faultline's), else NULL. Prints what it found (more with -v) and one
 * clear line on failure. Returns 0 or -errno.
 */
int allocsetup__attach(struct tracer *t, struct alloc_opts *o, pid_t pid, const char *launched);

#endif /* FAULTLINE_ALLOCSETUP_H */
