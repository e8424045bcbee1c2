/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The legacy object: the same sources built with FL_LEGACY for kernels without the BTF task
 * helpers (Linux 5.11/5.15), bpf_loop and bpf_find_vma (5.17), global functions that take
 * pointers and atomic exchange (5.12), or hash maps that tracing programs may fill as they go
 * (6.1): Debian 11's 5.10, Ubuntu 22.04's 5.15. What it does another way is here (and the
 * per-thread maps in threads.bpf.h): its walk is the same, in bounded loops, of FL_WALK_STEPS
 * steps; it learns no mapping itself (no bpf_find_vma()). The loader picks it when the kernel
 * lacks any of those.
 */
#ifndef FAULTLINE_LEGACY_BPF_H
#define FAULTLINE_LEGACY_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#ifdef FL_LEGACY
#define FL_IS_LEGACY 1
/* the walk's steps by table: 32 verify in a bounded loop (64 take 5.10's verifier past its
 * million instructions), where bpf_loop() checks one and runs FL_MAX_STACK_DEPTH - 1 */
#define FL_WALK_STEPS 32
/* a tracing program may use hash maps allocated as they fill from Linux 6.1 on; before, it
 * loads with a kernel warning (tainting the kernel), or not at all (RT kernels) */
#define FL_NO_PREALLOC 0
/* a plain address there: each field is read with bpf_probe_read_kernel() */
#define fl_current_task() ((struct task_struct *)bpf_get_current_task())
#define FL_TASK(task, field) BPF_CORE_READ(task, field)
/* a static subprogram is checked with each of its callers' states, a global one alone */
#define FL_SUBPROG static __noinline __attribute__((unused))
/* without atomic exchange, fetch or or: two CPUs updating one word at once may each take the
 * same old value (rss_stat of two threads of one mm; their counters are batched on these
 * kernels), or one flag set beside another may be lost (a process's exit and its last mm) */
#define fl_xchg(p, v)                          \
	({                                     \
		__typeof__(*(p)) __old = *(p); \
		*(p) = (v);                    \
		__old;                         \
	})
#define fl_fetch_add(p, v)                     \
	({                                     \
		__typeof__(*(p)) __old = *(p); \
		*(p) = __old + (v);            \
		__old;                         \
	})
#define fl_or(p, v) (*(p) |= (v))
/* bpf_loop() as a bounded loop: the verifier goes through the body once a turn */
#define fl_loop(n, fn, ctx)                           \
	({                                            \
		for (__u32 __i = 0; __i < (n); __i++) \
			if (fn(__i, ctx))             \
				break;                \
		0;                                    \
	})
#else
#define FL_IS_LEGACY 0
#define FL_WALK_STEPS (FL_MAX_STACK_DEPTH - 1)
#define FL_NO_PREALLOC BPF_F_NO_PREALLOC
#define fl_current_task() bpf_get_current_task_btf()
#define FL_TASK(task, field) ((task)->field) /* a load, not a helper call */
#define FL_SUBPROG __weak __noinline
#define fl_xchg(p, v) __sync_lock_test_and_set(p, v)
#define fl_fetch_add(p, v) __sync_fetch_and_add(p, v)
#define fl_or(p, v) __sync_fetch_and_or(p, v)
#define fl_loop(n, fn, ctx) bpf_loop(n, fn, ctx, 0)
#endif

#endif /* FAULTLINE_LEGACY_BPF_H */
