/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Rows read from a function's own instructions (symbols/coderows.c): crtstuff's
 * __do_global_dtors_aux as GCC builds it (with and without CET, for PIE and not), a row for
 * each stack depth along every path; none at all for code with an instruction outside the
 * known forms, a return with a frame still pushed, two paths that meet at different depths,
 * a branch into an instruction or out of the bytes given. In a stripped binary, the
 * destructor .fini_array names is covered up to its last instruction.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/cfi.h"
#include "symbols/coderows.h"
#include "unit/scratch.h"

TestSuite(coderows, .init = scratch_setup, .fini = scratch_teardown, .timeout = 60);

/* __do_global_dtors_aux of Debian 12's /bin/true at 0x2470 (crtbeginS.o, GCC 12, CET) */
static const uint8_t dtors_pie[] = {
	0xf3, 0x0f, 0x1e, 0xfa,			  /* 2470 endbr64 */
	0x80, 0x3d, 0x8d, 0x6d, 0x00, 0x00, 0x00, /* 2474 cmpb $0x0,completed(%rip) */
	0x75, 0x2b,				  /* 247b jne 24a8 */
	0x55,					  /* 247d push %rbp */
	0x48, 0x83, 0x3d, 0x52, 0x6b, 0x00, 0x00, 0x00, /* 247e cmpq $0x0,__cxa_finalize */
	0x48, 0x89, 0xe5,			  /* 2486 mov %rsp,%rbp */
	0x74, 0x0c,				  /* 2489 je 2497 */
	0x48, 0x8b, 0x3d, 0xd6, 0x6c, 0x00, 0x00, /* 248b mov __dso_handle(%rip),%rdi */
	0xe8, 0x29, 0xfe, 0xff, 0xff,		  /* 2492 call __cxa_finalize@plt */
	0xe8, 0x64, 0xff, 0xff, 0xff,		  /* 2497 call deregister_tm_clones */
	0xc6, 0x05, 0x65, 0x6d, 0x00, 0x00, 0x01, /* 249c movb $0x1,completed(%rip) */
	0x5d,					  /* 24a3 pop %rbp */
	0xc3,					  /* 24a4 ret */
	0x0f, 0x1f, 0x00,			  /* 24a5 nopl (%rax) */
	0xc3,					  /* 24a8 ret */
	0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00, /* 24a9 nopl: the next function's padding */
};

/* The same from crtbegin.o (not PIE, GCC 7: no endbr64, no __cxa_finalize, repz ret) */
static const uint8_t dtors_exec[] = {
	0x80, 0x3d, 0x11, 0x0b, 0x20, 0x00, 0x00, /* 0 cmpb $0x0,completed(%rip) */
	0x75, 0x17,				  /* 7 jne 20 */
	0x55,					  /* 9 push %rbp */
	0x48, 0x89, 0xe5,			  /* a mov %rsp,%rbp */
	0xe8, 0x7e, 0xff, 0xff, 0xff,		  /* d call deregister_tm_clones */
	0xc6, 0x05, 0xff, 0x0a, 0x20, 0x00, 0x01, /* 12 movb $0x1,completed(%rip) */
	0x5d,					  /* 19 pop %rbp */
	0xc3,					  /* 1a ret */
	0x0f, 0x1f, 0x44, 0x00, 0x00,		  /* 1b nopl */
	0xf3, 0xc3,				  /* 20 repz ret */
};

struct want {
	uint32_t addr;
	uint8_t cfa;
	int32_t off;
	int16_t rbp_off; /* 0: rbp not saved */
};

static void expect_rows(const struct fl_unwind_row *r, size_t n, const struct want *w, size_t nw)
{
	cr_assert_eq(n, nw, "%zu rows, expected %zu", n, nw);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(r[i].addr, w[i].addr, "row %zu at %#x, expected %#x", i, r[i].addr,
			     w[i].addr);
		cr_expect_eq(r[i].cfa, w[i].cfa, "row %zu: rule %u", i, r[i].cfa);
		if (w[i].cfa != FL_CFA_RSP)
			continue;
		cr_expect_eq(r[i].cfa_off, w[i].off, "row %zu: CFA rsp+%d", i, r[i].cfa_off);
		cr_expect_eq(r[i].rbp, w[i].rbp_off ? FL_RBP_AT_CFA : FL_RBP_SAME, "row %zu", i);
		cr_expect_eq(r[i].rbp_off, w[i].rbp_off, "row %zu: rbp at CFA%+d", i, r[i].rbp_off);
	}
}

Test(coderows, destructor_with_cet_in_a_pie)
{
	struct fl_unwind_row r[16];
	size_t n = coderows__decode(dtors_pie, sizeof(dtors_pie), 0x2470, r, 16);
	const struct want w[] = {
		{ 0x2470, FL_CFA_RSP, 8, 0 },	/* up to the push */
		{ 0x247e, FL_CFA_RSP, 16, -16 }, /* the calls: the return address above rbp */
		{ 0x24a4, FL_CFA_RSP, 8, 0 },	/* its rets, the padding between them too */
		{ 0x24a9, FL_CFA_INVALID, 0, 0 }, /* past the last: not its code */
	};

	expect_rows(r, n, w, sizeof(w) / sizeof(w[0]));
}

Test(coderows, destructor_of_an_executable)
{
	struct fl_unwind_row r[16];
	size_t n = coderows__decode(dtors_exec, sizeof(dtors_exec), 0x1000, r, 16);
	const struct want w[] = {
		{ 0x1000, FL_CFA_RSP, 8, 0 },
		{ 0x100a, FL_CFA_RSP, 16, -16 },
		{ 0x101a, FL_CFA_RSP, 8, 0 },
		{ 0x1022, FL_CFA_INVALID, 0, 0 },
	};

	expect_rows(r, n, w, sizeof(w) / sizeof(w[0]));
}

/* The bytes given end before the function does: no rows, not rows for part of it */
Test(coderows, cut_code_gives_nothing)
{
	struct fl_unwind_row r[16];

	cr_expect_eq(coderows__decode(dtors_pie, 0x24a4 - 0x2470, 0x2470, r, 16), 0);
	cr_expect_eq(coderows__decode(dtors_pie, 0x24a8 - 0x2470, 0x2470, r, 16), 0,
		     "the jne's target is past the bytes");
}

Test(coderows, code_it_cannot_follow_gives_nothing)
{
	static const struct {
		const char *what;
		uint8_t code[8];
		size_t len;
	} bad[] = {
		{ "push %rbx", { 0x55, 0x53, 0x5b, 0x5d, 0xc3 }, 5 },
		{ "ret with rbp still pushed", { 0x55, 0xc3 }, 2 },
		{ "pop with nothing pushed", { 0x5d, 0xc3 }, 2 },
		/* push; je 4; pop; 4: ret: the two paths meet at depths 16 and 8 */
		{ "paths meeting at two depths", { 0x55, 0x74, 0x01, 0x5d, 0xc3 }, 5 },
		/* jne into the middle of the mov that follows */
		{ "a branch into an instruction", { 0x75, 0x01, 0x48, 0x89, 0xe5, 0xc3 }, 6 },
		{ "mov into rbp", { 0x48, 0x8b, 0x2d, 0, 0, 0, 0, 0xc3 }, 8 },
		{ "a store through rsp", { 0xc6, 0x04, 0x24, 0x01, 0xc3 }, 5 },
		{ "sub of rsp by an odd amount", { 0x48, 0x83, 0xec, 0x04, 0xc3 }, 5 },
		{ "a tail call with rbp pushed", { 0x55, 0xe9, 0x00, 0x10, 0x00, 0x00 }, 6 },
		{ "nothing", { 0 }, 0 },
	};
	struct fl_unwind_row r[16];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(coderows__decode(bad[i].code, bad[i].len, 0x1000, r, 16), 0, "%s",
			     bad[i].what);
}

/* _init as crti.o makes it, a frame of 8 bytes around an indirect call, and a tail call */
Test(coderows, stack_adjustments_and_tail_calls)
{
	static const uint8_t init[] = {
		0xf3, 0x0f, 0x1e, 0xfa,			  /* 0 endbr64 */
		0x48, 0x83, 0xec, 0x08,			  /* 4 sub $0x8,%rsp */
		0x48, 0x8b, 0x05, 0xc1, 0x2f, 0x00, 0x00, /* 8 mov __gmon_start__,%rax */
		0x48, 0x85, 0xc0,			  /* f test %rax,%rax */
		0x74, 0x02,				  /* 12 je 16 */
		0xff, 0xd0,				  /* 14 call *%rax */
		0x48, 0x83, 0xc4, 0x08,			  /* 16 add $0x8,%rsp */
		0xc3,					  /* 1a ret */
	};
	static const uint8_t dummy[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xe9, 0x77, 0xff, 0xff, 0xff };
	const struct want wi[] = {
		{ 0x3000, FL_CFA_RSP, 8, 0 },
		{ 0x3008, FL_CFA_RSP, 16, 0 },
		{ 0x301a, FL_CFA_RSP, 8, 0 },
		{ 0x301b, FL_CFA_INVALID, 0, 0 },
	};
	const struct want wd[] = { { 0x4000, FL_CFA_RSP, 8, 0 }, { 0x4009, FL_CFA_INVALID, 0, 0 } };
	struct fl_unwind_row r[16];

	expect_rows(r, coderows__decode(init, sizeof(init), 0x3000, r, 16), wi, 4);
	expect_rows(r, coderows__decode(dummy, sizeof(dummy), 0x4000, r, 16), wd, 2);
}

/* In a stripped binary built here, the destructor .fini_array names is covered from its entry
 * to its last instruction: a return address inside it (after its call of __cxa_finalize, or
 * of deregister_tm_clones in a binary that is no PIE) is one rows say, not frame pointers. */
Test(coderows, stripped_binary_destructor_covered)
{
	static const char src[] = "int main(void) { return 0; }\n";
	const char *flags[] = { "-O2", "-O2 -no-pie -fno-pie" };

	for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++) {
		char c[128], bin[128], stripped[128];
		const struct fl_unwind_row *r;
		uint64_t dtors, at;
		struct cfi_table t;
		bool framed = false;

		snprintf(c, sizeof(c), "%s/dtors.c", scratch_dir);
		snprintf(bin, sizeof(bin), "%s/dtors%zu", scratch_dir, k);
		snprintf(stripped, sizeof(stripped), "%s/dtors%zu.stripped", scratch_dir, k);
		scratch_write(c, src);
		scratch_run("cc %s -o %s %s && strip -o %s %s", flags[k], bin, c, stripped, bin);
		dtors = scratch_symbol(bin, "__do_global_dtors_aux");
		cr_assert_eq(cfi__compile_file(stripped, &t), 0);
		for (at = dtors; (r = cfi__find(&t, at)) && r->cfa == FL_CFA_RSP; at++) {
			cr_expect(r->cfa_off == 8 || r->cfa_off == 16, "%s: at %#" PRIx64 ": rsp+%d",
				  flags[k], at, r->cfa_off);
			framed |= r->cfa_off == 16 && r->rbp == FL_RBP_AT_CFA && r->rbp_off == -16;
		}
		cr_expect(framed, "%s: no row with rbp pushed in %#" PRIx64 "..%#" PRIx64, flags[k],
			  dtors, at);
		cr_expect_gt(at - dtors, 16, "%s: %" PRIu64 " bytes covered", flags[k], at - dtors);
		cr_expect_eq(r ? r->cfa : FL_CFA_INVALID, FL_CFA_INVALID, "%s: past it", flags[k]);
		cfi__free(&t);
	}
}
