// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Uprobe placement on real allocator code, copied with objdump -d from Debian 12's binaries
 * (glibc 2.36-9+deb12u14 libc.so.6, jemalloc 5.3.0-1 libjemalloc.so.2, gperftools 2.10-1
 * libtcmalloc_minimal.so.4); the @address beside each array is the symbol's st_value, which is
 * also what the tests pass as the load address. Copied, not read at test time: the next
 * package update moves every byte.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include "probes/placement.h"

/* glibc malloc @0x98930: push %r12; push %rbp; push %rbx; mov %rdi,%rbx; sub $0x10,%rsp */
static const uint8_t glibc_malloc[] = {
	0x41, 0x54, 0x55, 0x53, 0x48, 0x89, 0xfb, 0x48,
	0x83, 0xec, 0x10, 0x80, 0x3d, 0x46, 0x1b, 0x14,
};

/*
 * glibc free @0x98ef0, the whole body (st_size 0x101), so the branch sweep meets real code:
 * test %rdi,%rdi; je +0xc8; push %rbp; ... ends with jmp back to +0x37.
 */
static const uint8_t glibc_free[] = {
	0x48, 0x85, 0xff, 0x0f, 0x84, 0xbf, 0x00, 0x00, 0x00, 0x55, 0x48, 0x8d, 0x77, 0xf0, 0x53,
	0x48, 0x83, 0xec, 0x18, 0x48, 0x8b, 0x1d, 0xd6, 0x9e, 0x13, 0x00, 0x48, 0x8b, 0x47, 0xf8,
	0x64, 0x8b, 0x2b, 0xa8, 0x02, 0x75, 0x5b, 0x48, 0x8b, 0x15, 0x5c, 0x9e, 0x13, 0x00, 0x64,
	0x48, 0x83, 0x3a, 0x00, 0x0f, 0x84, 0x99, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x3d, 0x32, 0xad,
	0x13, 0x00, 0xa8, 0x04, 0x74, 0x26, 0x48, 0x8b, 0x15, 0x37, 0xa4, 0x13, 0x00, 0x48, 0x8d,
	0x04, 0x95, 0x00, 0x00, 0x00, 0x00, 0x48, 0xf7, 0xd8, 0x48, 0x85, 0xd2, 0x48, 0xc7, 0xc2,
	0x00, 0x00, 0x00, 0xfc, 0x48, 0x0f, 0x44, 0xc2, 0x48, 0x21, 0xf0, 0x48, 0x8b, 0x38, 0x31,
	0xd2, 0xe8, 0xc1, 0xd1, 0xff, 0xff, 0x64, 0x89, 0x2b, 0x48, 0x83, 0xc4, 0x18, 0x5b, 0x5d,
	0xc3, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00, 0x8b, 0x15, 0x12, 0xa4, 0x13, 0x00, 0x85,
	0xd2, 0x75, 0x26, 0x48, 0x39, 0x05, 0xcf, 0xa3, 0x13, 0x00, 0x73, 0x1d, 0x48, 0x3d, 0x00,
	0x00, 0x00, 0x02, 0x77, 0x15, 0x48, 0x83, 0xe0, 0xf8, 0x48, 0x89, 0x05, 0xba, 0xa3, 0x13,
	0x00, 0x48, 0x01, 0xc0, 0x48, 0x89, 0x05, 0xa0, 0xa3, 0x13, 0x00, 0x48, 0x89, 0xf7, 0xe8,
	0x08, 0xba, 0xff, 0xff, 0x64, 0x89, 0x2b, 0x48, 0x83, 0xc4, 0x18, 0x5b, 0x5d, 0xc3, 0x66,
	0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00, 0x48, 0x8b,
	0x15, 0xb9, 0x9d, 0x13, 0x00, 0x48, 0x89, 0x3c, 0x24, 0x64, 0x80, 0x3a, 0x00, 0x0f, 0x85,
	0x52, 0xff, 0xff, 0xff, 0x48, 0x89, 0x74, 0x24, 0x08, 0xe8, 0x31, 0xf2, 0xff, 0xff, 0x48,
	0x8b, 0x3c, 0x24, 0x48, 0x8b, 0x74, 0x24, 0x08, 0x48, 0x8b, 0x47, 0xf8, 0xe9, 0x36, 0xff,
	0xff, 0xff,
};

/* glibc posix_memalign @0x9a280: cmpb $0x0,0x140201(%rip); push %r12; mov %rdx,%r12; ... */
static const uint8_t glibc_posix_memalign[] = {
	0x80, 0x3d, 0x01, 0x02, 0x14, 0x00, 0x00, 0x41, 0x54, 0x49, 0x89, 0xd4,
	0x55, 0x48, 0x89, 0xfd, 0x53, 0x48, 0x89, 0xf3, 0x74, 0x5a, 0x48, 0x89,
};

/*
 * glibc reallocarray @0x9a7e0, the whole body: mov %rsi,%rax; mul %rdx; mov %rax,%rsi;
 * jo +0x10; jmp realloc@plt (0x26030); ...
 */
static const uint8_t glibc_reallocarray[] = {
	0x48, 0x89, 0xf0, 0x48, 0xf7, 0xe2, 0x48, 0x89, 0xc6, 0x70, 0x05,
	0xe9, 0x40, 0xb8, 0xf8, 0xff, 0x48, 0x8b, 0x05, 0xe9, 0x85, 0x13,
	0x00, 0x64, 0xc7, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x31, 0xc0, 0xc3,
};

/* glibc memalign @0x99610: cmpb $0x0,0x140e71(%rip); je +0x10; jmp 0x98c50 (_mid_memalign) */
static const uint8_t glibc_memalign[] = {
	0x80, 0x3d, 0x71, 0x0e, 0x14, 0x00, 0x00, 0x74,
	0x07, 0xe9, 0x32, 0xf6, 0xff, 0xff, 0x66, 0x90,
};

/* jemalloc malloc @0x23910: cmp $0x1000,%rdi; ja +0xa0; lea ...(%rip),%rdx; lea 0x7(%rdi),%rax */
static const uint8_t je_malloc[] = {
	0x48, 0x81, 0xff, 0x00, 0x10, 0x00, 0x00, 0x0f, 0x87, 0x93, 0x00, 0x00,
	0x00, 0x48, 0x8d, 0x15, 0x5c, 0x7f, 0x2c, 0x00, 0x48, 0x8d, 0x47, 0x07,
};

/*
 * jemalloc free @0x27c60: mov %rdi,%rax; mov ...(%rip),%rdx; mov %rdi,%rcx; shr $0x1a,%rax;
 * and $0xffffffffc0000000,%rcx; and $0xf0,%eax; add %fs:0x0,%rax; add %rdx,%rax;
 * cmp 0x1b0(%rax),%rcx; jne +0xc0 (at +0x30); mov %rdi,%rsi; ...
 */
static const uint8_t je_free[] = {
	0x48, 0x89, 0xf8, 0x48, 0x8b, 0x15, 0x0e, 0x53, 0x0a, 0x00, 0x48, 0x89, 0xf9, 0x48, 0xc1,
	0xe8, 0x1a, 0x48, 0x81, 0xe1, 0x00, 0x00, 0x00, 0xc0, 0x25, 0xf0, 0x00, 0x00, 0x00, 0x64,
	0x48, 0x03, 0x04, 0x25, 0x00, 0x00, 0x00, 0x00, 0x48, 0x01, 0xd0, 0x48, 0x3b, 0x88, 0xb0,
	0x01, 0x00, 0x00, 0x0f, 0x85, 0x8a, 0x00, 0x00, 0x00, 0x48, 0x89, 0xfe, 0x4c, 0x8b, 0x80,
};

/* jemalloc operator delete(void *) (_ZdlPv) @0xae0d0: jmp free@plt */
static const uint8_t je_zdlpv[] = {
	0xe9, 0xeb, 0xaf, 0xf5, 0xff,
};

/* jemalloc rallocx @0x2bdc0: xor %ecx,%ecx; jmp do_rallocx */
static const uint8_t je_rallocx[] = {
	0x31, 0xc9, 0xe9, 0xe9, 0x1c, 0xff, 0xff,
};

/* tcmalloc malloc @0x1ed40: mov 0xab59(%rip),%rax; test %rax,%rax; jne +0x81; ... */
static const uint8_t tc_malloc[] = {
	0x48, 0x8b, 0x05, 0x59, 0xab, 0x00, 0x00, 0x48, 0x85, 0xc0, 0x75, 0x75,
	0x48, 0x8b, 0x05, 0x05, 0xa1, 0x00, 0x00, 0x64, 0x4c, 0x8b, 0x00, 0x4d,
};

/* tcmalloc calloc @0x1dae0: push %r13; mov %rdi,%rax; push %r12; sub $0x8,%rsp; mul %rsi */
static const uint8_t tc_calloc[] = {
	0x41, 0x55, 0x48, 0x89, 0xf8, 0x41, 0x54, 0x48,
	0x83, 0xec, 0x08, 0x48, 0xf7, 0xe6, 0x49, 0x89,
};

#define ALL_ARGS (PLACE_RDI | PLACE_RSI | PLACE_RDX | PLACE_RCX | PLACE_R8 | PLACE_R9)

static struct probe_site choose(const uint8_t *code, size_t len, uint64_t addr, unsigned regs)
{
	struct probe_site site = { .offset = 99, .emulated = true, .reason = NULL };

	cr_assert_eq(placement__choose(code, len, addr, regs, &site), 0);
	cr_assert_not_null(site.reason);
	return site;
}

static void expect_site(const uint8_t *code, size_t len, uint64_t addr, unsigned regs,
			uint32_t offset, bool emulated)
{
	struct probe_site site = choose(code, len, addr, regs);

	cr_expect_eq(site.offset, offset, "offset %u, want %u (%s)", site.offset, offset,
		     site.reason);
	cr_expect_eq(site.emulated, emulated, "emulated %d, want %d (%s)", site.emulated, emulated,
		     site.reason);
}

Test(placement, glibc)
{
	struct probe_site site = choose(glibc_malloc, sizeof(glibc_malloc), 0x98930, PLACE_RDI);

	/* push %r12: 41 54, the one prefix the kernel's push emulation takes */
	cr_expect_eq(site.offset, 0);
	cr_expect(site.emulated);
	cr_expect_str_eq(site.reason, "entry: push (emulated)");

	site = choose(glibc_free, sizeof(glibc_free), 0x98ef0, PLACE_RDI);
	cr_expect_eq(site.offset, 3);
	cr_expect(site.emulated);
	cr_expect_str_eq(site.reason, "jcc after a straight run (emulated)");

	/* the cmpb writes only flags; the push after it is where the probe goes */
	expect_site(glibc_posix_memalign, sizeof(glibc_posix_memalign), 0x9a280,
		    PLACE_RDI | PLACE_RSI | PLACE_RDX, 7, true);
	expect_site(glibc_memalign, sizeof(glibc_memalign), 0x99610, PLACE_RDI | PLACE_RSI, 7,
		    true);
}

Test(placement, glibc_reallocarray_writes_what_it_reads)
{
	/* mul %rdx writes rdx (and rax): reallocarray(ptr, nmemb, size) reads rdx */
	struct probe_site site = choose(glibc_reallocarray, sizeof(glibc_reallocarray), 0x9a7e0,
					PLACE_RDI | PLACE_RSI | PLACE_RDX);

	cr_expect_eq(site.offset, 0);
	cr_expect_not(site.emulated);
	/* the mov %rax,%rsi after it still spoils rsi */
	expect_site(glibc_reallocarray, sizeof(glibc_reallocarray), 0x9a7e0, PLACE_RDI | PLACE_RSI,
		    0, false);
	/* a probe reading only rdi may go as far as the jo */
	expect_site(glibc_reallocarray, sizeof(glibc_reallocarray), 0x9a7e0, PLACE_RDI, 9, true);
}

Test(placement, jemalloc)
{
	expect_site(je_malloc, sizeof(je_malloc), 0x23910, PLACE_RDI, 7, true);
	/* ten instructions writing rax, rcx, rdx and flags, then jne at +0x30 */
	expect_site(je_free, sizeof(je_free), 0x27c60, PLACE_RDI, 48, true);
	/* mov %rdi,%rcx is the third instruction */
	expect_site(je_free, sizeof(je_free), 0x27c60, PLACE_RDI | PLACE_RCX, 0, false);
	/* operator delete is only a jmp: emulated where it stands, and a tail call */
	expect_site(je_zdlpv, sizeof(je_zdlpv), 0xae0d0, PLACE_RDI, 0, true);
	cr_expect(placement__is_tail_jump(je_zdlpv, sizeof(je_zdlpv)));
	/* xor %ecx,%ecx spoils rcx only: rallocx(ptr, size, flags) does not read it */
	expect_site(je_rallocx, sizeof(je_rallocx), 0x2bdc0, PLACE_RDI | PLACE_RSI | PLACE_RDX, 2,
		    true);
	cr_expect_not(placement__is_tail_jump(je_rallocx, sizeof(je_rallocx)));
}

Test(placement, tcmalloc)
{
	/* a rip-relative load into rax and a test write nothing the probe reads */
	expect_site(tc_malloc, sizeof(tc_malloc), 0x1ed40, PLACE_RDI, 10, true);
	expect_site(tc_calloc, sizeof(tc_calloc), 0x1dae0, PLACE_RDI | PLACE_RSI, 0, true);
}

Test(placement, argument_register_written)
{
	/* xor %edi,%edi; je: a 32-bit write clears the top of rdi too */
	static const uint8_t xor_edi[] = { 0x31, 0xff, 0x74, 0x00 };
	/* mov %sil,%dil; je */
	static const uint8_t mov_dil[] = { 0x40, 0x88, 0xf7, 0x74, 0x00 };
	/* mov %eax,%r8d; mov %cl,%r9b; jne */
	static const uint8_t r8_r9[] = { 0x41, 0x89, 0xc0, 0x41, 0x88, 0xc9, 0x75, 0x00 };
	/* mov $0,%dh; jne */
	static const uint8_t dh[] = { 0xb6, 0x00, 0x75, 0x00 };

	expect_site(xor_edi, sizeof(xor_edi), 0x1000, PLACE_RDI, 0, false);
	expect_site(xor_edi, sizeof(xor_edi), 0x1000, PLACE_RSI, 2, true);
	expect_site(mov_dil, sizeof(mov_dil), 0x1000, PLACE_RDI, 0, false);
	expect_site(mov_dil, sizeof(mov_dil), 0x1000, PLACE_RSI, 3, true);
	expect_site(r8_r9, sizeof(r8_r9), 0x1000, PLACE_R8, 0, false);
	expect_site(r8_r9, sizeof(r8_r9), 0x1000, PLACE_R9, 0, false);
	expect_site(r8_r9, sizeof(r8_r9), 0x1000, PLACE_RDI | PLACE_RCX, 6, true);
	expect_site(dh, sizeof(dh), 0x1000, PLACE_RDX, 0, false);
	expect_site(dh, sizeof(dh), 0x1000, ALL_ARGS & ~PLACE_RDX, 2, true);
}

Test(placement, branch_target_inside_the_function)
{
	/* test %rdi,%rdi; je +10; mov %rdi,%rax; jmp +3: a loop back onto the je */
	static const uint8_t loop[] = { 0x48, 0x85, 0xff, 0x74, 0x05, 0x48,
					0x89, 0xf8, 0xeb, 0xf9, 0xc3 };
	/* the same with the jmp going back to the entry: an entry probe fires twice as well */
	static const uint8_t to_entry[] = { 0x48, 0x85, 0xff, 0x74, 0x05, 0x48,
					    0x89, 0xf8, 0xeb, 0xf6, 0xc3 };
	struct probe_site site = choose(loop, sizeof(loop), 0x1000, PLACE_RDI);

	cr_expect_eq(site.offset, 0);
	cr_expect_not(site.emulated);
	/* cut before the jmp, nothing lands on +3 */
	expect_site(loop, 8, 0x1000, PLACE_RDI, 3, true);
	expect_site(to_entry, sizeof(to_entry), 0x1000, PLACE_RDI, 3, true);
}

/* --alloc=churn walks the stack from the site: the caller's rbp must reach it untouched. */
Test(placement, frame_pointer_kept_for_a_stack_walk)
{
	/* mov %rdi,%rbp; push %rbx */
	static const uint8_t mov_rbp[] = { 0x48, 0x89, 0xfd, 0x53 };
	/* xor %ebp,%ebp; jne: the 32-bit write clears rbp too */
	static const uint8_t xor_ebp[] = { 0x31, 0xed, 0x75, 0x00 };

	expect_site(mov_rbp, sizeof(mov_rbp), 0x1000, PLACE_RDI, 3, true);
	expect_site(mov_rbp, sizeof(mov_rbp), 0x1000, PLACE_RDI | PLACE_RBP, 0, false);
	expect_site(xor_ebp, sizeof(xor_ebp), 0x1000, PLACE_RDI, 2, true);
	expect_site(xor_ebp, sizeof(xor_ebp), 0x1000, PLACE_RDI | PLACE_RBP, 0, false);
	/* what Debian 12's allocators do first leaves rbp alone: the same sites either way */
	expect_site(glibc_posix_memalign, sizeof(glibc_posix_memalign), 0x9a280,
		    PLACE_RDI | PLACE_RDX | PLACE_RBP, 7, true);
	expect_site(je_malloc, sizeof(je_malloc), 0x23910, PLACE_RDI | PLACE_RBP, 7, true);
	expect_site(tc_malloc, sizeof(tc_malloc), 0x1ed40, PLACE_RDI | PLACE_RBP, 10, true);
}

Test(placement, rsp_and_control_flow)
{
	/* sub $8,%rsp; je */
	static const uint8_t sub_rsp[] = { 0x48, 0x83, 0xec, 0x08, 0x74, 0x00 };
	/* mov %rax,(%rsp); je: a store that could hit the return address */
	static const uint8_t store[] = { 0x48, 0x89, 0x04, 0x24, 0x74, 0x00 };
	/* syscall; je */
	static const uint8_t syscall[] = { 0x0f, 0x05, 0x74, 0x00 };
	/* ud2; je */
	static const uint8_t ud2[] = { 0x0f, 0x0b, 0x74, 0x00 };
	/* jmp *%rax: single-stepped, and nothing after it is on the straight path */
	static const uint8_t jmp_reg[] = { 0xff, 0xe0, 0x74, 0x00 };
	/* endbr64; test %rdi,%rdi; je: what a CET build of glibc's free looks like */
	static const uint8_t cet[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x85, 0xff, 0x74, 0x00 };

	expect_site(sub_rsp, sizeof(sub_rsp), 0x1000, PLACE_RDI, 0, false);
	expect_site(store, sizeof(store), 0x1000, PLACE_RDI, 0, false);
	expect_site(syscall, sizeof(syscall), 0x1000, PLACE_RDI, 0, false);
	expect_site(ud2, sizeof(ud2), 0x1000, PLACE_RDI, 0, false);
	expect_site(jmp_reg, sizeof(jmp_reg), 0x1000, PLACE_RDI, 0, false);
	expect_site(cet, sizeof(cet), 0x1000, PLACE_RDI, 7, true);
}

Test(placement, prefixed_sites_are_single_stepped)
{
	/* data16 nop: capstone says "nop", the kernel single-steps it */
	static const uint8_t nop66[] = { 0x66, 0x90 };
	/* push %ax: a push, but not one the kernel emulates; it also moves rsp */
	static const uint8_t push66[] = { 0x66, 0x50, 0x74, 0x00 };
	/* test %rdi,%rdi; bnd je */
	static const uint8_t bnd_je[] = { 0x48, 0x85, 0xff, 0xf2, 0x74, 0x00 };
	/* notrack jmp *%rax */
	static const uint8_t notrack[] = { 0x3e, 0xff, 0xe0 };
	/* bnd jmp rel32 */
	static const uint8_t bnd_jmp[] = { 0xf2, 0xe9, 0x00, 0x00, 0x00, 0x00 };
	/* push %rbx with an empty REX (40 53): the kernel takes only 41 */
	static const uint8_t rex40_push[] = { 0x40, 0x53 };

	expect_site(nop66, sizeof(nop66), 0x1000, PLACE_RDI, 0, false);
	expect_site(push66, sizeof(push66), 0x1000, PLACE_RDI, 0, false);
	expect_site(bnd_je, sizeof(bnd_je), 0x1000, PLACE_RDI, 0, false);
	expect_site(notrack, sizeof(notrack), 0x1000, PLACE_RDI, 0, false);
	expect_site(bnd_jmp, sizeof(bnd_jmp), 0x1000, PLACE_RDI, 0, false);
	expect_site(rex40_push, sizeof(rex40_push), 0x1000, PLACE_RDI, 0, false);
}

Test(placement, unsure)
{
	/* test %rdi,%rdi; then 06 (push %es), invalid in 64-bit mode; je */
	static const uint8_t invalid[] = { 0x48, 0x85, 0xff, 0x06, 0x74, 0x00 };
	/* test %rdi,%rdi; then a mov cut in half */
	static const uint8_t cut[] = { 0x48, 0x85, 0xff, 0x48, 0x8b };
	uint8_t run[PLACE_MAX_INSNS * 7 + 2];
	size_t i;

	expect_site(invalid, sizeof(invalid), 0x1000, PLACE_RDI, 0, false);
	expect_site(cut, sizeof(cut), 0x1000, PLACE_RDI, 0, false);

	/* 15 x test %rdi,%rdi then je: the 16th instruction, the last one we take */
	for (i = 0; i < PLACE_MAX_INSNS; i++)
		memcpy(run + 3 * i, (const uint8_t[]){ 0x48, 0x85, 0xff }, 3);
	memcpy(run + 3 * (PLACE_MAX_INSNS - 1), (const uint8_t[]){ 0x74, 0x00 }, 2);
	expect_site(run, 3 * (PLACE_MAX_INSNS - 1) + 2, 0x1000, PLACE_RDI, 45, true);
	/* 16 x test then je: too many */
	for (i = 0; i < PLACE_MAX_INSNS; i++)
		memcpy(run + 3 * i, (const uint8_t[]){ 0x48, 0x85, 0xff }, 3);
	memcpy(run + 3 * PLACE_MAX_INSNS, (const uint8_t[]){ 0x74, 0x00 }, 2);
	expect_site(run, 3 * PLACE_MAX_INSNS + 2, 0x1000, PLACE_RDI, 0, false);

	/* 9 x cmpb $0,0(%rip) then je at +63; 10 of them put the je at +70: too far */
	for (i = 0; i < 10; i++)
		memcpy(run + 7 * i, (const uint8_t[]){ 0x80, 0x3d, 0, 0, 0, 0, 0 }, 7);
	memcpy(run + 63, (const uint8_t[]){ 0x74, 0x00 }, 2);
	expect_site(run, 65, 0x1000, PLACE_RDI, 63, true);
	for (i = 0; i < 10; i++)
		memcpy(run + 7 * i, (const uint8_t[]){ 0x80, 0x3d, 0, 0, 0, 0, 0 }, 7);
	memcpy(run + 70, (const uint8_t[]){ 0x74, 0x00 }, 2);
	expect_site(run, 72, 0x1000, PLACE_RDI, 0, false);
}

Test(placement, bad_input)
{
	struct probe_site site = { .offset = 99, .emulated = true, .reason = NULL };

	cr_expect_eq(placement__choose(glibc_free, 0, 0x98ef0, PLACE_RDI, &site), -EINVAL);
	cr_expect_eq(site.offset, 0);
	cr_expect_not(site.emulated);
	cr_expect_not_null(site.reason);
	cr_expect_eq(placement__choose(NULL, 8, 0x98ef0, PLACE_RDI, &site), -EINVAL);
	cr_expect_eq(placement__choose(glibc_free, sizeof(glibc_free), 0x98ef0, PLACE_RDI, NULL),
		     -EINVAL);
}

Test(placement, branches_to)
{
	/* memalign's jmp to _mid_memalign, free's je, reallocarray's jmp to realloc@plt */
	cr_expect(placement__branches_to(glibc_memalign, sizeof(glibc_memalign), 0x99610, 0x98c50));
	cr_expect(placement__branches_to(glibc_free, sizeof(glibc_free), 0x98ef0, 0x98fb8));
	cr_expect(placement__branches_to(glibc_reallocarray, sizeof(glibc_reallocarray), 0x9a7e0,
					 0x26030));
	/* the call at free+0x6a, to _int_free */
	cr_expect(placement__branches_to(glibc_free, sizeof(glibc_free), 0x98ef0, 0x96120));

	cr_expect_not(
		placement__branches_to(glibc_memalign, sizeof(glibc_memalign), 0x99610, 0x98930));
	cr_expect_not(placement__branches_to(glibc_free, sizeof(glibc_free), 0x98ef0, 0x98ef3));
	/* a rip-relative load is no branch */
	cr_expect_not(placement__branches_to(tc_malloc, sizeof(tc_malloc), 0x1ed40, 0x298a0));
	cr_expect_not(placement__branches_to(glibc_free, 0, 0x98ef0, 0x98fb8));

	/* free's final jmp lands on +0x37 */
	cr_expect(placement__branches_into(glibc_free, sizeof(glibc_free), 0x98ef0, 0x98f20,
					   0x98f30));
	cr_expect_not(placement__branches_into(glibc_free, sizeof(glibc_free), 0x98ef0, 0x98ef1,
					       0x98ef4));
}

/* The byte scan finds every branch the decoder finds (a superset), and nothing far away. */
Test(placement, may_branch_to)
{
	static const uint64_t free_sites[] = { 0x96120, 0x98fb8 };
	static const uint64_t one[] = { 0x98c50 }, none[] = { 0x1, 0x7fffffff0000 };

	cr_expect(
		placement__may_branch_to(glibc_memalign, sizeof(glibc_memalign), 0x99610, one, 1));
	cr_expect(placement__may_branch_to(glibc_free, sizeof(glibc_free), 0x98ef0, free_sites, 2));
	cr_expect(placement__may_branch_to(glibc_free, sizeof(glibc_free), 0x98ef0, &free_sites[1],
					   1));
	cr_expect_not(placement__may_branch_to(glibc_free, sizeof(glibc_free), 0x98ef0, none, 2));
	cr_expect_not(placement__may_branch_to(glibc_free, sizeof(glibc_free), 0x98ef0, one, 0));
	cr_expect_not(placement__may_branch_to(NULL, 0, 0x98ef0, one, 1));
	/* a rel32 at the very end, cut: no read past the code */
	cr_expect_not(placement__may_branch_to((const uint8_t[]){ 0x90, 0xe8, 0x00, 0x00 }, 4,
					       0x1000, one, 1));
}

Test(placement, is_tail_jump)
{
	static const uint8_t cet_jmp[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xe9, 0x00, 0x00, 0x00, 0x00 };
	/* jmp *0x10(%rip): a tail call through the GOT (-fno-plt) */
	static const uint8_t got_jmp[] = { 0xff, 0x25, 0x10, 0x00, 0x00, 0x00 };
	static const uint8_t short_jmp[] = { 0xeb, 0x10 };
	static const uint8_t endbr_only[] = { 0xf3, 0x0f, 0x1e, 0xfa };

	cr_expect(placement__is_tail_jump(cet_jmp, sizeof(cet_jmp)));
	cr_expect(placement__is_tail_jump(got_jmp, sizeof(got_jmp)));
	cr_expect(placement__is_tail_jump(short_jmp, sizeof(short_jmp)));
	cr_expect_not(placement__is_tail_jump(endbr_only, sizeof(endbr_only)));
	cr_expect_not(placement__is_tail_jump(glibc_malloc, sizeof(glibc_malloc)));
	cr_expect_not(placement__is_tail_jump(glibc_free, sizeof(glibc_free)));
	cr_expect_not(placement__is_tail_jump(glibc_memalign, sizeof(glibc_memalign)));
	cr_expect_not(placement__is_tail_jump(je_zdlpv, 0));
	cr_expect_not(placement__is_tail_jump(je_zdlpv, 3));
}
