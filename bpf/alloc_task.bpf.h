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
#include "threads.bpf.h"

/* Whether the current thread, its user stack pointer at @sp, is inside an allocator call the
 * probes saw begin (fl_alloc_task.sp: the stack pointer at the outermost entry). */
static __always_inline __attribute__((unused)) bool fl_in_allocator(struct task_struct *task,
								    __u64 sp)
{
	struct fl_alloc_task *st = fl_thread_get(&alloc_task, task, false);

	return st && st->sp && sp < st->sp;
}

#endif /* FAULTLINE_ALLOC_TASK_BPF_H */
