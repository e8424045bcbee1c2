/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * What every BPF object of faultline has: the target set, one map that the loader creates and
 * gives to each object (the exit mappings' object is loaded apart from the main one), and the
 * drop counters, each object's own (the loader adds them up).
 */
#ifndef FAULTLINE_TARGETS_BPF_H
#define FAULTLINE_TARGETS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "faultline.h"

/* The target set: tgid -> per-process baseline state. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FL_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct fl_proc);
} procs SEC(".maps") __weak;

extern struct fl_stats stats;

static __always_inline void fl_drop(enum fl_drop why)
{
	if (why < FL_DROP__COUNT)
		__sync_fetch_and_add(&stats.drops[why], 1);
}

#endif /* FAULTLINE_TARGETS_BPF_H */
