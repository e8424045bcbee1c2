// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The decoding behind the frameless-leaf stack repair, on real code bytes: Debian 12's glibc
 * 2.36 (libc.so.6) and gcc 12 output with -fno-omit-frame-pointer. */
#include <criterion/criterion.h>
#include "trace/x86.h"

/* __munmap: mov $0xb,%eax; syscall; ... : no frame of its own */
static const uint8_t glibc_munmap[] = { 0xb8, 0x0b, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x48 };
/* memset (IFUNC resolver's first bytes): mov 0x136651(%rip),%rdx; lea ... */
static const uint8_t glibc_memset[] = { 0x48, 0x8b, 0x15, 0x51, 0x66, 0x13, 0x00, 0x48 };
/* gcc -O1 -fno-omit-frame-pointer: push %rbp; mov %rsp,%rbp; sub ... */
static const uint8_t gcc_framed[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10 };
/* with -fcf-protection: endbr64; push %rbp; mov %rsp,%rbp */
static const uint8_t gcc_cet_framed[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5 };
/* the other encoding of mov %rsp,%rbp */
static const uint8_t framed_8b[] = { 0x55, 0x48, 0x8b, 0xec, 0x90, 0x90, 0x90, 0x90 };
/* push %rbp, then something else: a saved register, not a frame */
static const uint8_t push_only[] = { 0x55, 0x53, 0x48, 0x83, 0xec, 0x08, 0x90, 0x90 };

Test(x86, frame_setup)
{
	cr_expect_eq(x86__frame_setup_len(glibc_munmap, sizeof(glibc_munmap)), 0);
	cr_expect_eq(x86__frame_setup_len(glibc_memset, sizeof(glibc_memset)), 0);
	cr_expect_eq(x86__frame_setup_len(gcc_framed, sizeof(gcc_framed)), 4);
	cr_expect_eq(x86__frame_setup_len(gcc_cet_framed, sizeof(gcc_cet_framed)), 8);
	cr_expect_eq(x86__frame_setup_len(framed_8b, sizeof(framed_8b)), 4);
	cr_expect_eq(x86__frame_setup_len(push_only, sizeof(push_only)), 0);
	/* too short to tell: not a frame */
	cr_expect_eq(x86__frame_setup_len(gcc_framed, 3), 0);
}

Test(x86, calls_before_a_return_address)
{
	/* unmap_memory+0xa: e8 8f fa ff ff  call munmap@plt */
	static const uint8_t rel32[] = { 0x48, 0x89, 0xe5, 0xe8, 0x8f, 0xfa, 0xff, 0xff };
	/* libc: ff d0  call *%rax */
	static const uint8_t reg[] = { 0x00, 0x00, 0x48, 0x89, 0xc7, 0xff, 0xd0 };
	/* libc: 41 ff d7  call *%r15 */
	static const uint8_t rex_reg[] = { 0x90, 0x90, 0x90, 0x90, 0x41, 0xff, 0xd7 };
	/* libc: 41 ff 54 24 38  call *0x38(%r12) */
	static const uint8_t sib_disp8[] = { 0x90, 0x90, 0x41, 0xff, 0x54, 0x24, 0x38 };
	/* ff 15 disp32: call *disp(%rip) */
	static const uint8_t rip[] = { 0x90, 0xff, 0x15, 0x10, 0x20, 0x30, 0x00 };

	cr_expect(x86__ends_with_call(rel32, sizeof(rel32)));
	cr_expect(x86__ends_with_call(reg, sizeof(reg)));
	cr_expect(x86__ends_with_call(rex_reg, sizeof(rex_reg)));
	cr_expect(x86__ends_with_call(sib_disp8, sizeof(sib_disp8)));
	cr_expect(x86__ends_with_call(rip, sizeof(rip)));
}

Test(x86, not_calls)
{
	/* jmp rel32 (e9), a plain mov, and ff /4 (jmp *%rax) are not calls */
	static const uint8_t jmp[] = { 0x90, 0x90, 0xe9, 0x8f, 0xfa, 0xff, 0xff };
	static const uint8_t mov[] = { 0x48, 0x89, 0xe5, 0x48, 0x89, 0xc7, 0x90 };
	static const uint8_t jmp_reg[] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0xe0 };
	/* ff 55 08 is call *8(%rbp) (3 bytes) but as the last 2 bytes it must not match */
	static const uint8_t cut[] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0x55 };

	cr_expect_not(x86__ends_with_call(jmp, sizeof(jmp)));
	cr_expect_not(x86__ends_with_call(mov, sizeof(mov)));
	cr_expect_not(x86__ends_with_call(jmp_reg, sizeof(jmp_reg)));
	cr_expect_not(x86__ends_with_call(cut, sizeof(cut)));
	cr_expect_not(x86__ends_with_call(jmp, 4));
}
