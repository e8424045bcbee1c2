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

#define VM_EXEC 0x00000004 /* include/linux/mm.h */

static long fl_vma_exec(struct task_struct *task, struct vm_area_struct *vma, void *exec)
{
	*(bool *)exec = BPF_CORE_READ(vma, vm_flags) & VM_EXEC;
	return 0;
}

/* The word at the user stack pointer when it points into executable code (see fl_key). */
static __always_inline __u64 fl_leaf_ret(struct task_struct *task, __u64 sp)
{
	bool exec = false;
	__u64 word;

	if (bpf_probe_read_user(&word, sizeof(word), (void *)sp) || word < 4096)
		return 0;
	/* fails with -EBUSY when mmap_lock is contended: then the frame is just not added */
	if (bpf_find_vma(task, word, fl_vma_exec, &exec, 0) || !exec)
		return 0;
	return word;
}

/* Fills the stack fields of @key from a fresh walk. */
static __always_inline void fl_walk(void *ctx, struct task_struct *task, __u64 sp,
				    struct fl_key *key)
{
	long id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);

	__sync_fetch_and_add(&stats.stack_walks, 1);
	if (id >= 0) {
		key->stack_id = id;
		key->origin = FL_ORIGIN_USER;
		key->leaf_ret = fl_leaf_ret(task, sp);
		return;
	}
	fl_drop(id == -17 /* EEXIST */ ? FL_DROP_STACK_COLLISION : FL_DROP_STACK_FAILED);
	key->stack_id = -1;
	key->origin = FL_ORIGIN_STACK_LOST;
	key->leaf_ret = 0;
}

/*
 * Fills stack_id, origin and leaf_ret of @key with the current thread's user stack (stack_id
 * -1 and origin FL_ORIGIN_STACK_LOST when it cannot be taken). @fault: called for a new page
 * fault, which always walks and fills the cache; other callers use the cache when it holds the
 * current fault.
 */
static __noinline void fl_user_stack(void *ctx, struct fl_key *key, bool fault)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 ip = BPF_CORE_READ(regs, ip), sp = BPF_CORE_READ(regs, sp);
	__u64 bp = BPF_CORE_READ(regs, bp);
	struct fl_stack_cache *c;

	c = bpf_task_storage_get(&stack_cache, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c) {
		fl_drop(FL_DROP_TASK_STORAGE);
		fl_walk(ctx, task, sp, key);
		return;
	}
	if (!fault) {
		if (c->ip == ip && c->sp == sp && c->bp == bp) {
			key->stack_id = c->stack_id;
			key->origin = c->origin;
			key->leaf_ret = c->leaf_ret;
		} else {
			fl_walk(ctx, task, sp, key);
		}
		return;
	}
	fl_walk(ctx, task, sp, key);
	c->stack_id = key->stack_id;
	c->origin = key->origin;
	c->leaf_ret = key->leaf_ret;
	c->ip = ip;
	c->sp = sp;
	c->bp = bp;
}

#endif /* FAULTLINE_STACK_BPF_H */
