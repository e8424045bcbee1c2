/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The executable mappings of each target, which the stack walk looks its pc up in
 * (unwind.bpf.h); here alone so that procs.bpf.c can copy a parent's to its child. */
#ifndef FAULTLINE_UNWIND_PROCS_BPF_H
#define FAULTLINE_UNWIND_PROCS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "faultline.h"

/* 8 KiB each, allocated as targets come */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, FL_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct fl_unwind_proc);
} unwind_procs SEC(".maps") __weak;

#endif /* FAULTLINE_UNWIND_PROCS_BPF_H */
