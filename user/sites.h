/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The call sites of one refresh: the allocation table (--alloc) and the memory-call table
 * (--vm), each row a stack and the call it makes, summed over threads. */
#ifndef FAULTLINE_SITES_H
#define FAULTLINE_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include "model/profile.h"
#include "model/report.h"
#include "trace/collector.h"
#include "trace/frames.h"
#include "trace/targets.h"

/*
 * The rows @col last read of allocator calls (or, @vm, of memory syscalls) summed over threads
 * into sites named by their callers, heaviest first by @metric when it means something for
 * them (live bytes for allocation sites otherwise; for memory calls, their bytes). Sets *@out
 * (malloc'ed) and *@nout. Returns 0 or -ENOMEM.
 */
int sites__build(enum fl_metric metric, bool vm, const struct collector *col, struct frames *frames,
		 struct target_set *set, struct fl_call_site **out, size_t *nout);

/*
 * The last @want of the @depth frames @names, "outer > ... > leaf": two for an allocation
 * site (a wrapper such as xmalloc alone would name every site alike), three for a memory
 * call, whose leaf is the libc syscall wrapper.
 */
void sites__name_caller(char *buf, size_t len, const char *const *names, size_t depth, size_t want);

#endif /* FAULTLINE_SITES_H */
