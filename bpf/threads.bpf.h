/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Every map of per-thread state, in one place. Task storage where the kernel has it (Linux
 * 5.11): the kernel frees an entry with its thread. The legacy object (FL_LEGACY, for kernels
 * without it: legacy.bpf.h) keeps them in hash maps by thread id instead, bounded by
 * FL_LEGACY_THREADS, whose entries a thread's exit deletes (fl_thread_forget()).
 */
#ifndef FAULTLINE_THREADS_BPF_H
#define FAULTLINE_THREADS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "legacy.bpf.h"

#ifdef FL_LEGACY
#define FL_LEGACY_THREADS 16384

/* preallocated (legacy.bpf.h): the loader sizes those a session does not use down to one */
#define FL_PER_THREAD(value_type)               \
	__uint(type, BPF_MAP_TYPE_HASH);        \
	__uint(max_entries, FL_LEGACY_THREADS); \
	__type(key, int);                       \
	__type(value, value_type)

/* Zeroes for a new entry of any of the maps below: the largest value, never written. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fl_alloc_task);
} thread_zero SEC(".maps") __weak;
_Static_assert(sizeof(struct fl_alloc_task) >= sizeof(struct fl_stack_cache) &&
		       sizeof(struct fl_alloc_task) >= sizeof(struct fl_churn_task) &&
		       sizeof(struct fl_alloc_task) >= sizeof(struct fl_vm_task) &&
		       sizeof(struct fl_alloc_task) >= sizeof(struct fl_map_probe),
	       "thread_zero holds the largest per-thread value");
#else
#define FL_PER_THREAD(value_type)                \
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE); \
	__uint(map_flags, BPF_F_NO_PREALLOC);    \
	__type(key, int);                        \
	__type(value, value_type)
#endif

/*
 * The stack of each thread's last page fault (or traced memory syscall, --vm) with the user
 * registers it was taken at. A fault is seen twice (page_fault_user, then rss_stat while the
 * fault is handled) with the same user registers: the second event reuses the walk instead of
 * repeating it. Only faults and traced syscall entries fill the cache, so a hit is never
 * stale: a syscall's user registers point after its syscall instruction, which no fault has
 * as its ip, and a traced syscall forgets its walk when it returns. A fault walks afresh
 * unless the last one had the same registers and every stack word its walk read is unchanged
 * (fl_cache_check): a loop that faults page after page is walked once. Two calls of a
 * frameless libc wrapper from different callers can share ip, sp and bp, which is why the
 * walks of untraced syscalls are never cached.
 */
struct {
	FL_PER_THREAD(struct fl_stack_cache);
} stack_cache SEC(".maps") __weak;

/*
 * Each thread's last lookup of its mapping (--by mapping). bpf_find_vma() costs about 5 us
 * inside the page fault handler (interrupts are off there, so it releases mmap_lock through an
 * irq_work), but a thread faults through one mapping many times in a row: the last answer
 * holds while the mm's mmap_lock sequence, which every change of the mappings bumps, stays the
 * same.
 */
struct {
	FL_PER_THREAD(struct fl_map_probe);
} map_cache SEC(".maps") __weak;

/* Each thread's allocator call in progress (--alloc). */
struct {
	FL_PER_THREAD(struct fl_alloc_task);
} alloc_task SEC(".maps") __weak;

/* --alloc=churn: the allocator call each thread's churn probe counted last. */
struct {
	FL_PER_THREAD(struct fl_churn_task);
} churn_task SEC(".maps") __weak;

/* The arguments of the memory syscall each target thread is inside, from entry to exit. */
struct {
	FL_PER_THREAD(struct fl_vm_task);
} vm_task SEC(".maps") __weak;

/* The entry of @map for @task, the current thread; made (zeroed) when @create and missing.
 * NULL: none, or it could not be made (the caller counts the drop). */
static __always_inline void *fl_thread_get(void *map, struct task_struct *task, bool create)
{
#ifdef FL_LEGACY
	int tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	void *v = bpf_map_lookup_elem(map, &tid), *z;

	if (v || !create || !(z = bpf_map_lookup_elem(&thread_zero, &zero)))
		return v;
	bpf_map_update_elem(map, &tid, z, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, &tid);
#else
	return bpf_task_storage_get(map, task, NULL, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
#endif
}

/* The thread @tid exits: its entries go (task storage frees them itself). */
static __always_inline void fl_thread_forget(int tid)
{
#ifdef FL_LEGACY
	bpf_map_delete_elem(&stack_cache, &tid);
	bpf_map_delete_elem(&map_cache, &tid);
	bpf_map_delete_elem(&alloc_task, &tid);
	bpf_map_delete_elem(&churn_task, &tid);
	bpf_map_delete_elem(&vm_task, &tid);
#endif
}

#endif /* FAULTLINE_THREADS_BPF_H */
