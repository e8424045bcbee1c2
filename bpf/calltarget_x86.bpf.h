/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * x86-64: whether the call instruction that ends at a return address went to a given function
 * entry, read from its bytes and the thread's registers. At a fault on a function's first
 * instruction nothing has run in the function yet: the registers a register-indirect call
 * used still hold what they held, and its return address is at the stack pointer.
 */
#ifndef FAULTLINE_CALLTARGET_X86_BPF_H
#define FAULTLINE_CALLTARGET_X86_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "legacy.bpf.h"
#include "regs_x86.bpf.h"

/* General register @n of ModRM's numbering (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8...). */
static __always_inline __u64 fl_reg(struct pt_regs *r, __u32 n)
{
	switch (n & 15) {
	case 0:
		return FL_REG(r, ax);
	case 1:
		return FL_REG(r, cx);
	case 2:
		return FL_REG(r, dx);
	case 3:
		return FL_REG(r, bx);
	case 4:
		return FL_REG(r, sp);
	case 5:
		return FL_REG(r, bp);
	case 6:
		return FL_REG(r, si);
	case 7:
		return FL_REG(r, di);
	case 8:
		return FL_REG(r, r8);
	case 9:
		return FL_REG(r, r9);
	case 10:
		return FL_REG(r, r10);
	case 11:
		return FL_REG(r, r11);
	case 12:
		return FL_REG(r, r12);
	case 13:
		return FL_REG(r, r13);
	case 14:
		return FL_REG(r, r14);
	default:
		return FL_REG(r, r15);
	}
}

/* The user word at @addr is @want. */
static __always_inline bool fl_word_is(__u64 addr, __u64 want)
{
	__u64 v;

	return !bpf_probe_read_user(&v, sizeof(v), (void *)addr) && v == want;
}

static __always_inline __s32 fl_rel32(const __u8 *b)
{
	return (__s32)((__u32)b[0] | (__u32)b[1] << 8 | (__u32)b[2] << 16 | (__u32)b[3] << 24);
}

enum fl_call {
	FL_CALL_NONE = 0,      /* no call instruction ends at the address */
	FL_CALL_UNKNOWN = 1,   /* a call ends there, its target not read from its bytes */
	FL_CALL_ELSEWHERE = 2, /* a call ends there, and went elsewhere */
	FL_CALL_PROVEN = 3,    /* the call that ends there went to @entry */
};

/*
 * What the instruction before @ret says of a call to @entry, with the registers @regs of a
 * thread stopped at @entry's first instruction: E8 rel32, FF 15 (through a pointer beside the
 * code, -fno-plt), and FF /2 through a register, or a pointer a register (plus a byte) points
 * to: ld.so's calls of DT_INIT (call *%rax) and of the init and fini arrays (call *(%rax),
 * call *(%rbx)). Other forms of FF /2 (2 to 7 bytes) are calls whose target is unread.
 */
static __always_inline enum fl_call fl_call_to_regs(struct pt_regs *regs, __u64 ret, __u64 entry)
{
	__u8 b[8], modrm, rm;
	bool call = false;

	if (ret < 8 || bpf_probe_read_user(b, sizeof(b), (void *)(ret - 8)))
		return FL_CALL_NONE;
	if (b[3] == 0xe8) {
		if (ret + fl_rel32(&b[4]) == entry)
			return FL_CALL_PROVEN;
		call = true;
	}
	if (b[2] == 0xff && b[3] == 0x15) { /* call *rel32(%rip) */
		if (fl_word_is(ret + fl_rel32(&b[4]), entry))
			return FL_CALL_PROVEN;
		call = true;
	}
	modrm = b[7];
	if (b[6] == 0xff && (modrm & 0x38) == 0x10 && (modrm >> 6 == 3 || modrm >> 6 == 0)) {
		rm = (modrm & 7) | ((b[5] & 0xf1) == 0x41 ? 8 : 0); /* REX.B */
		if (modrm >> 6 == 3 && fl_reg(regs, rm) == entry)   /* call *%reg */
			return FL_CALL_PROVEN;
		if (modrm >> 6 == 0 && (rm & 7) != 4 && (rm & 7) != 5 && /* call *(%reg) */
		    fl_word_is(fl_reg(regs, rm), entry))
			return FL_CALL_PROVEN;
		call = true;
	}
	modrm = b[6];
	if (b[5] == 0xff && (modrm & 0xf8) == 0x50 && (modrm & 7) != 4) { /* call *d8(%reg) */
		rm = (modrm & 7) | ((b[4] & 0xf1) == 0x41 ? 8 : 0);
		if (fl_word_is(fl_reg(regs, rm) + (__s8)b[7], entry))
			return FL_CALL_PROVEN;
		call = true;
	}
	if (call)
		return FL_CALL_ELSEWHERE;
#pragma unroll
	for (int k = 3; k <= 7; k++) /* the other forms of FF /2, read no further */
		if (b[8 - k] == 0xff && (b[9 - k] & 0x38) == 0x10)
			return FL_CALL_UNKNOWN;
	return FL_CALL_NONE;
}

/*
 * fl_call_to_regs() with the current thread's user registers: a global function, checked once
 * a program (inlined, its register switch was checked for each state a step reached it in).
 * Scalar arguments alone, which any kernel with global functions takes.
 */
__weak __noinline int fl_call_to(__u64 ret, __u64 entry)
{
	return fl_call_to_regs(fl_task_regs(fl_current_task()), ret, entry);
}

#endif /* FAULTLINE_CALLTARGET_X86_BPF_H */
