/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Where a uprobe has moved what a stack walk reads: the pc of an instruction it single-steps out
 * of line, the return trampoline, and the return addresses its uretprobes replaced.
 */
#ifndef FAULTLINE_UPROBE_FRAMES_BPF_H
#define FAULTLINE_UPROBE_FRAMES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "pages.bpf.h"

/*
 * @ip, or where it really is while the thread single-steps a probed instruction out of line: a
 * uprobe copies the instruction it replaced to the [uprobes] page and runs it there, so a fault
 * in malloc's first instruction has its pc in that page. utask->vaddr is the instruction's own
 * address.
 */
static __always_inline __u64 fl_xol_fixup(struct uprobe_task *ut, __u64 ip)
{
	__u64 xol = BPF_CORE_READ(ut, xol_vaddr);

	if (ip < xol || ip - xol >= 16) /* within the copied instruction */
		return ip;
	return BPF_CORE_READ(ut, vaddr) + (ip - xol);
}

/* True when @ip is in the [uprobes] page: with no instruction being single-stepped, the return
 * trampoline (a page fault as it pushes onto a fresh stack page). */
static __always_inline bool fl_in_trampoline(struct task_struct *task, __u64 ip)
{
	struct xol_area *xa = BPF_CORE_READ(task, mm, uprobes_state.xol_area);
	__u64 base;

	if (!xa)
		return false;
	base = BPF_CORE_READ(xa, vaddr);
	return ip >= base && ip - base < fl_page_bytes(); /* the area is one page */
}

/*
 * The innermost pending uretprobe whose return address is still on the user stack at @sp, or
 * NULL. Inside a return probe's program, 6.1 keeps that probe's own instance at the head of the
 * list (its address already popped: below sp); 6.12 and later unlink it first.
 */
static __always_inline struct return_instance *fl_pending_ri(struct uprobe_task *ut, __u64 sp)
{
	struct return_instance *ri = BPF_CORE_READ(ut, return_instances);

	if (ri && BPF_CORE_READ(ri, stack) < sp)
		ri = BPF_CORE_READ(ri, next);
	return ri;
}

#endif /* FAULTLINE_UPROBE_FRAMES_BPF_H */
