/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The one source of user stacks. Today: frame-pointer walks by bpf_get_stack. Aggregation and
 * output only see (stack, origin, leaf_ret), so another unwinder can replace this file alone.
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

/* Where a walk is written before it is hashed: too big for the 512-byte BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fl_stack);
} stack_scratch SEC(".maps") __weak;

/* FNV-1a over whole words, then a final avalanche; never 0 (0 means "no stack"). */
static __always_inline __u64 fl_stack_hash(const struct fl_stack *st, long n)
{
	__u64 h = 0xcbf29ce484222325ull;

	for (int i = 0; i < FL_MAX_STACK_DEPTH; i++) {
		if (i >= n)
			break;
		h = (h ^ st->ips[i]) * 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h ? h : 1;
}

/* The stacks-map key of the current user stack, stored when new; 0 when it is lost. */
static __always_inline __u64 fl_take_stack(void *ctx)
{
	__u32 zero = 0;
	struct fl_stack *st = bpf_map_lookup_elem(&stack_scratch, &zero);
	long bytes;
	__u64 h;

	if (!st)
		return 0;
	/* fills the rest of the buffer with zeros */
	bytes = bpf_get_stack(ctx, st->ips, sizeof(st->ips), BPF_F_USER_STACK);
	__sync_fetch_and_add(&stats.stack_walks, 1);
	if (bytes <= 0) {
		fl_drop(FL_DROP_STACK_FAILED);
		return 0;
	}
	h = fl_stack_hash(st, bytes / sizeof(__u64));
	if (!bpf_map_lookup_elem(&stacks, &h)) {
		long err = bpf_map_update_elem(&stacks, &h, st, BPF_NOEXIST);

		if (err && err != -17 /* EEXIST: stored by another CPU meanwhile */) {
			fl_drop(FL_DROP_STACKS_FULL);
			return 0;
		}
	}
	return h;
}

/* Fills the stack fields of @key from a fresh walk. */
static __always_inline void fl_walk(void *ctx, struct task_struct *task, __u64 sp,
				    struct fl_key *key)
{
	key->stack = fl_take_stack(ctx);
	key->origin = key->stack ? FL_ORIGIN_USER : FL_ORIGIN_STACK_LOST;
	key->leaf_ret = key->stack ? fl_leaf_ret(task, sp) : 0;
}

/*
 * Fills stack, origin and leaf_ret of @key with the current thread's user stack (stack 0 and
 * origin FL_ORIGIN_STACK_LOST when it cannot be taken). @fault: called for a new page
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
			key->stack = c->stack;
			key->origin = c->origin;
			key->leaf_ret = c->leaf_ret;
		} else {
			fl_walk(ctx, task, sp, key);
		}
		return;
	}
	fl_walk(ctx, task, sp, key);
	c->stack = key->stack;
	c->origin = key->origin;
	c->leaf_ret = key->leaf_ret;
	c->ip = ip;
	c->sp = sp;
	c->bp = bp;
}

#endif /* FAULTLINE_STACK_BPF_H */
