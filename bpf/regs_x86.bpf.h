/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* x86_64: the user registers a stack walk starts from. */
#ifndef FAULTLINE_REGS_X86_BPF_H
#define FAULTLINE_REGS_X86_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "legacy.bpf.h"

/* arch/x86/include/asm/page_64_types.h: 16 KiB (KASAN kernels, never a distribution's, 32) */
#define FL_THREAD_SIZE (4096 << 2)

struct fl_uregs {
	__u64 ip, sp, bp;
};

/* The user registers of @task, the current thread, as it entered the kernel. */
static __always_inline void fl_user_regs(struct task_struct *task, struct fl_uregs *r)
{
#ifdef FL_LEGACY
	/* task_pt_regs(): at the top of the task's kernel stack (no padding on x86_64) */
	struct pt_regs *regs =
		(struct pt_regs *)((__u64)BPF_CORE_READ(task, stack) + FL_THREAD_SIZE) - 1;

	r->ip = BPF_CORE_READ(regs, ip);
	r->sp = BPF_CORE_READ(regs, sp);
	r->bp = BPF_CORE_READ(regs, bp);
#else
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

	r->ip = regs->ip;
	r->sp = regs->sp;
	r->bp = regs->bp;
#endif
}

#endif /* FAULTLINE_REGS_X86_BPF_H */
