/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The one source of user stacks. Today: frame-pointer walks by bpf_get_stackid. Aggregation and
 * output only see (stack_id, origin), so another unwinder can replace this file alone.
 */
#ifndef FAULTLINE_STACK_BPF_H
#define FAULTLINE_STACK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "maps.bpf.h"

/*
 * The stack of each thread's last page fault with the user registers it was taken at. A fault
 * is seen twice (page_fault_user, then rss_stat while the fault is handled) with the same user
 * registers: the second event reuses the walk instead of repeating it. Only faults fill the
 * cache and each fault walks afresh, so a hit is never stale: a syscall's user registers point
 * after its syscall instruction, which no fault has as its ip. Two calls of a frameless libc
 * wrapper from different callers can share ip, sp and bp, which is why syscall walks are never
 * cached.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fl_stack_cache);
} stack_cache SEC(".maps") __weak;

static __always_inline __s32 fl_walk(void *ctx, __u32 *origin)
{
	long id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);

	__sync_fetch_and_add(&stats.stack_walks, 1);
	if (id >= 0) {
		*origin = FL_ORIGIN_USER;
		return id;
	}
	fl_drop(id == -17 /* EEXIST */ ? FL_DROP_STACK_COLLISION : FL_DROP_STACK_FAILED);
	*origin = FL_ORIGIN_STACK_LOST;
	return -1;
}

/*
 * The current thread's user stack id, or -1 with *origin = FL_ORIGIN_STACK_LOST. @fault: called
 * for a new page fault, which always walks and fills the cache; other callers use the cache
 * when it holds the current fault.
 */
static __noinline __s32 fl_user_stack(void *ctx, __u32 *origin, bool fault)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 ip = BPF_CORE_READ(regs, ip), sp = BPF_CORE_READ(regs, sp);
	__u64 bp = BPF_CORE_READ(regs, bp);
	struct fl_stack_cache *c;

	c = bpf_task_storage_get(&stack_cache, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c) {
		fl_drop(FL_DROP_TASK_STORAGE);
		return fl_walk(ctx, origin);
	}
	if (!fault) {
		if (c->ip == ip && c->sp == sp && c->bp == bp) {
			*origin = c->origin;
			return c->stack_id;
		}
		return fl_walk(ctx, origin);
	}
	c->stack_id = fl_walk(ctx, origin);
	c->origin = *origin;
	c->ip = ip;
	c->sp = sp;
	c->bp = bp;
	return c->stack_id;
}

#endif /* FAULTLINE_STACK_BPF_H */
