// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Memory syscalls (--vm): mmap, munmap, mremap, brk and madvise of the targets, counted on the
 * caller's stack by what they do (enum fl_vm_call). The entry walks the stack into the
 * per-thread cache with the call, so that the RSS changes made inside it (faults.bpf.c) are
 * charged to the call's row too: who gave memory back, and who populated it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "faultline.h"
#include "legacy.bpf.h"
#include "mapping.bpf.h"
#include "maps.bpf.h"
#include "pages.bpf.h"
#include "regs_x86.bpf.h"
#include "stack.bpf.h"
#include "syscalls_x86.h"
#include "threads.bpf.h"
#include "vm_math.h"

/*
 * Notes a call of the current thread, a target's, and walks its stack for what follows.
 * @class: the class of the mapping the call makes (mmap, brk), or 0 to look up the one at
 * @addr (--by mapping).
 */
static __always_inline void fl_vm_enter(void *ctx, __u32 call, __u32 class, __u64 addr, __u64 len,
					__u64 arg, __u64 old_brk)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fl_key key = { .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid };
	struct fl_vm_task *v;

	if (!call || !fl_target(key.tgid))
		return;
	v = fl_thread_get(&vm_task, fl_current_task(), true);
	if (!v) {
		fl_drop(FL_DROP_VM_STATE);
		return;
	}
	v->call = call;
	v->len = len;
	v->arg = arg;
	v->old_brk = old_brk;
	key.call = call;
	if (map_classes && class)
		key.map_class = class;
	else if (map_classes)
		fl_classify(&key, addr);
	/* refills the stack cache with the call: the RSS changes inside it are charged to it */
	fl_user_stack(ctx, &key, true, false);
}

/* Charges the call the thread is leaving, with the syscall's return value @ret. */
static __always_inline void fl_vm_exit(void *ctx, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fl_key key = { .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid };
	struct fl_vm_task *v;
	struct fl_vm_bytes b;
	struct fl_counts *c;

	v = fl_thread_get(&vm_task, fl_current_task(), false);
	if (!v || !v->call)
		return;
	key.call = v->call;
	fl_user_stack(ctx, &key, false, false);
	/* a later syscall through the same wrapper may come from another caller */
	fl_stack_cache_forget();
	/* after the walk: each outcome known here would have the verifier walk it anew (4x
	 * its instructions, 0.23 s of --vm's start-up) */
	b = fl_vm_result(v, ret, fl_page_bytes());
	v->call = 0;
	c = fl_counts_get(&key);
	if (!c)
		return;
	__sync_fetch_and_add(&c->vm_calls, 1);
	if (b.failed)
		__sync_fetch_and_add(&c->vm_failed, 1);
	if (b.reserved)
		__sync_fetch_and_add(&c->reserved, b.reserved);
	if (b.unmapped)
		__sync_fetch_and_add(&c->unmapped, b.unmapped);
	if (b.advised)
		__sync_fetch_and_add(&c->advised, b.advised);
}

static __always_inline bool fl_vm_nr(long nr)
{
	return nr == NR_MMAP || nr == NR_MUNMAP || nr == NR_BRK || nr == NR_MREMAP ||
	       nr == NR_MADVISE;
}

/*
 * Raw sys_enter and sys_exit, one program each, rather than the ten syscalls:sys_enter_* and
 * sys_exit_* events: every syscall of the machine passes either way (any syscall event turns
 * the tracing path on for all), but each perf-event tracepoint waits for a grace period when
 * it is detached, under one mutex: ten of them took 0.45 s of SIGINT-to-exit.
 */
SEC("raw_tp/sys_enter")
int fl_sys_enter(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];
	long nr = (long)ctx[1];
	__u64 a0, a1, a2, a3, old;

	if (!fl_vm_nr(nr) || !fl_target(bpf_get_current_pid_tgid() >> 32))
		return 0;
	a0 = PT_REGS_PARM1_CORE_SYSCALL(regs);
	a1 = PT_REGS_PARM2_CORE_SYSCALL(regs);
	a2 = PT_REGS_PARM3_CORE_SYSCALL(regs);
	a3 = PT_REGS_PARM4_CORE_SYSCALL(regs); /* the syscall ABI's 4th argument */
	switch (nr) {
	case NR_MMAP:
		fl_vm_enter(ctx, fl_mmap_call(a3), fl_mmap_class(a3), 0, a1, 0, 0);
		break;
	case NR_MUNMAP:
		fl_vm_enter(ctx, FL_VM_MUNMAP, 0, a0, a1, 0, 0);
		break;
	case NR_MREMAP:
		fl_vm_enter(ctx, FL_VM_MREMAP, 0, a0, a1, a2, 0);
		break;
	case NR_BRK:
		old = BPF_CORE_READ(fl_current_task(), mm, brk);
		fl_vm_enter(ctx, fl_brk_call(a0, old), FL_MAP_HEAP, 0, 0, a0, old);
		break;
	case NR_MADVISE:
		fl_vm_enter(ctx, fl_madvise_call(a2), 0, a0, a1, 0, 0);
		break;
	}
	return 0;
}

SEC("raw_tp/sys_exit")
int fl_sys_exit(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];

	if (fl_vm_nr(fl_syscall_nr(regs)))
		fl_vm_exit(ctx, (long)ctx[1]);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
