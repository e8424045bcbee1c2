/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* x86_64: the user registers a stack walk starts from, and what a call and a syscall leave in
 * them (the arguments and return value go through bpf_tracing.h's PT_REGS_*()). */
#ifndef FAULTLINE_REGS_X86_BPF_H
#define FAULTLINE_REGS_X86_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "legacy.bpf.h"

/* arch/x86/include/asm/page_64_types.h: 16 KiB (KASAN kernels, never a distribution's, 32) */
#define FL_THREAD_SIZE (4096 << 2)

/* A return pops its address off the stack: sp at the return is the entry's + 8. */
#define FL_RET_POP 8

/* The number of the syscall a thread is in (raw_syscalls' saved registers). */
static __always_inline long fl_syscall_nr(struct pt_regs *regs)
{
	return BPF_CORE_READ(regs, orig_ax);
}

/* A register of the thread's saved ones (fl_task_regs()): loaded in the full programs, read
 * in the legacy ones. */
#ifdef FL_LEGACY
#define FL_REG(r, f) BPF_CORE_READ(r, f)
#else
#define FL_REG(r, f) ((r)->f)
#endif

struct fl_uregs {
	__u64 ip, sp, bp;
};

/* Where @task, the current thread, saved its user registers as it entered the kernel: a
 * pointer for BPF_CORE_READ(), which only the full programs may also load through. */
static __always_inline struct pt_regs *fl_task_regs(struct task_struct *task)
{
#ifdef FL_LEGACY
	/* task_pt_regs(): at the top of the task's kernel stack (no padding on x86_64) */
	__u64 top = (__u64)BPF_CORE_READ(task, stack) + FL_THREAD_SIZE;

	return (struct pt_regs *)top - 1;
#else
	return (struct pt_regs *)bpf_task_pt_regs(task);
#endif
}

/* The user registers of @task, the current thread, as it entered the kernel. */
static __always_inline void fl_user_regs(struct task_struct *task, struct fl_uregs *r)
{
	struct pt_regs *regs = fl_task_regs(task);

	r->ip = FL_REG(regs, ip);
	r->sp = FL_REG(regs, sp);
	r->bp = FL_REG(regs, bp);
}

#endif /* FAULTLINE_REGS_X86_BPF_H */
