/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The executable mappings of each target, which the stack walk looks its pc up in
 * (unwind.bpf.h); here alone so that procs.bpf.c can copy a parent's to its child. */
#ifndef FAULTLINE_UNWIND_PROCS_BPF_H
#define FAULTLINE_UNWIND_PROCS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "legacy.bpf.h"

/* 16 KiB each, allocated as targets come */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, FL_NO_PREALLOC);
	__uint(max_entries, FL_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct fl_unwind_proc);
} unwind_procs SEC(".maps") __weak;

/*
 * Bumped after every change of unwind_procs, by the loader (through the skeleton's .bss) and
 * by the BPF side: a cached walk (fl_stack_cache) made while it had another value may have used
 * tables that are gone. One global read is cheaper on every fault than looking up the
 * process's entry to compare its generation; a change anywhere costs each thread one walk.
 */
extern __u32 unwind_epoch;

static __always_inline __attribute__((unused)) void fl_unwind_changed(void)
{
	__sync_fetch_and_add(&unwind_epoch, 1);
}

#endif /* FAULTLINE_UNWIND_PROCS_BPF_H */
