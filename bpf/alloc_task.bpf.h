/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Each thread's allocator call in progress (--alloc), shared by the allocator probes that keep
 * it and the region records (regions.bpf.c) that ask whether an mmap is the allocator's.
 */
#ifndef FAULTLINE_ALLOC_TASK_BPF_H
#define FAULTLINE_ALLOC_TASK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "faultline.h"

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fl_alloc_task);
} alloc_task SEC(".maps") __weak;

/* Whether the current thread, its user stack pointer at @sp, is inside an allocator call the
 * probes saw begin (fl_alloc_task.sp: the stack pointer at the outermost entry). */
static __always_inline __attribute__((unused)) bool fl_in_allocator(struct task_struct *task,
								    __u64 sp)
{
	struct fl_alloc_task *st = bpf_task_storage_get(&alloc_task, task, NULL, 0);

	return st && st->sp && sp < st->sp;
}

#endif /* FAULTLINE_ALLOC_TASK_BPF_H */
