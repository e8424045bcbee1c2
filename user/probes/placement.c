// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/placement.h"
#include <capstone/capstone.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* rsp beside the PLACE_* bits: once it moves, the probe no longer sees the caller's frame. */
#define PLACE_RSP (1u << 7)
#define PLACE_ARGS (PLACE_RDI | PLACE_RSI | PLACE_RDX | PLACE_RCX | PLACE_R8 | PLACE_R9)
#define PLACE_READS (PLACE_ARGS | PLACE_RBP)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum site_kind {
	KIND_NONE,
	KIND_PUSH,
	KIND_JMP,
	KIND_CALL,
	KIND_JCC,
	KIND_NOP,
	KIND_COUNT
};

static const char *const at_entry[KIND_COUNT] = {
	[KIND_PUSH] = "entry: push (emulated)", [KIND_JMP] = "entry: jmp (emulated)",
	[KIND_CALL] = "entry: call (emulated)", [KIND_JCC] = "entry: jcc (emulated)",
	[KIND_NOP] = "entry: nop (emulated)",
};

static const char *const after_run[KIND_COUNT] = {
	[KIND_PUSH] = "push after a straight run (emulated)",
	[KIND_JMP] = "jmp after a straight run (emulated)",
	[KIND_CALL] = "call after a straight run (emulated)",
	[KIND_JCC] = "jcc after a straight run (emulated)",
	[KIND_NOP] = "nop after a straight run (emulated)",
};

#define WHY_NONE "entry: single-stepped, no emulated instruction on the straight path"
#define STR_(x) #x
#define STR(x) STR_(x)
#define WHY_FAR                                                       \
	"entry: single-stepped, no emulated instruction within " STR( \
		PLACE_MAX_INSNS) " instructions or " STR(PLACE_MAX_BYTES) " bytes"
#define WHY_UNDECODABLE "entry: single-stepped, undecodable instruction on the straight path"
#define WHY_FLOW                                                                       \
	"entry: single-stepped, control may leave the straight path before the first " \
	"emulated instruction"
#define WHY_WRITES                                                                     \
	"entry: single-stepped, a register the probe reads or rsp changes before the " \
	"first emulated instruction"
#define WHY_STORE "entry: single-stepped, memory is written before the first emulated instruction"
#define WHY_TARGET                                                                     \
	"entry: single-stepped, a branch in the function lands between the entry and " \
	"the first emulated instruction"
#define WHY_NO_DISASM "entry: disassembler failed to start"

/*
 * The kernel's own test (arch/x86/kernel/uprobes.c: branch_setup_xol_ops() and, since 6.x,
 * push_setup_xol_ops()), done on raw bytes so that a prefixed form never passes as the same
 * mnemonic: capstone names 66 90 "nop" and f2 e9 "bnd jmp". Newer kernels also emulate some
 * prefixed branches and the multi-byte nops; older ones do not, so we count only the forms every
 * kernel with push emulation takes.
 */
static enum site_kind emulated_kind(const uint8_t *b, uint16_t size)
{
	switch (size) {
	case 1:
		if (b[0] >= 0x50 && b[0] <= 0x57)
			return KIND_PUSH;
		if (b[0] == 0x90)
			return KIND_NOP;
		break;
	case 2:
		/* the kernel takes REX.B (r8-r15) and no other prefix on a push */
		if (b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57)
			return KIND_PUSH;
		if (b[0] == 0xeb)
			return KIND_JMP;
		if (b[0] >= 0x70 && b[0] <= 0x7f)
			return KIND_JCC;
		break;
	case 5:
		if (b[0] == 0xe9)
			return KIND_JMP;
		if (b[0] == 0xe8)
			return KIND_CALL;
		break;
	case 6:
		if (b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f)
			return KIND_JCC;
		break;
	}
	return KIND_NONE;
}

/*
 * Each watched 64-bit register and the parts of it an instruction can name, by PLACE_* bit:
 * writing %edi zero-extends into %rdi and writing %dil merges into it, both change what the
 * probe reads.
 */
static const uint16_t reg_family[][5] = {
	{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL },
	{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL },
	{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
	{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
	{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B },
	{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B },
	{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL },
	{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL },
};
_Static_assert(1u << (ARRAY_SIZE(reg_family) - 1) == PLACE_RSP,
	       "one row per PLACE_* bit, rsp last");

static unsigned reg_bit(uint16_t reg)
{
	size_t row, col;

	for (row = 0; row < ARRAY_SIZE(reg_family); row++)
		for (col = 0; col < ARRAY_SIZE(reg_family[0]); col++)
			if (reg_family[row][col] == reg && reg != X86_REG_INVALID)
				return 1u << row;
	return 0;
}

/* Instructions that leave the straight path without carrying one of capstone's branch groups. */
static const uint16_t flow_ids[] = {
	X86_INS_UD0,	 X86_INS_UD2,	  X86_INS_UD2B,	  X86_INS_HLT,	   X86_INS_INT,
	X86_INS_INT1,	 X86_INS_INT3,	  X86_INS_INTO,	  X86_INS_SYSCALL, X86_INS_SYSENTER,
	X86_INS_SYSEXIT, X86_INS_SYSRET,  X86_INS_XABORT, X86_INS_XBEGIN,  X86_INS_XEND,
	X86_INS_VMCALL,	 X86_INS_VMMCALL, X86_INS_ENCLU,
};

static bool may_change_flow(csh cs, const cs_insn *insn)
{
	static const uint8_t groups[] = {
		CS_GRP_JUMP, CS_GRP_CALL,      CS_GRP_RET, CS_GRP_INT,
		CS_GRP_IRET, CS_GRP_PRIVILEGE, X86_GRP_VM, CS_GRP_BRANCH_RELATIVE,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(groups); i++)
		if (cs_insn_group(cs, insn, groups[i]))
			return true;
	for (i = 0; i < ARRAY_SIZE(flow_ids); i++)
		if (insn->id == flow_ids[i])
			return true;
	return false;
}

/*
 * Why @insn, met before the first emulated instruction, keeps the probe at the entry; NULL when
 * moving the probe past it changes nothing the probe sees. Stores are refused too: the handler
 * reads the return address and walks the stack, and a store might alias either.
 */
static const char *unsafe_before(csh cs, const cs_insn *insn, unsigned watched)
{
	const cs_x86 *x86 = &insn->detail->x86;
	uint8_t nread, nwritten, i;
	cs_regs rd, wr;

	if (may_change_flow(cs, insn))
		return WHY_FLOW;
	if (cs_regs_access(cs, insn, rd, &nread, wr, &nwritten))
		return WHY_UNDECODABLE;
	for (i = 0; i < nwritten; i++)
		if (reg_bit(wr[i]) & watched)
			return WHY_WRITES;
	for (i = 0; i < x86->op_count; i++)
		if (x86->operands[i].type == X86_OP_MEM && (x86->operands[i].access & CS_AC_WRITE))
			return WHY_STORE;
	return NULL;
}

/* The target of a direct jmp, jcc, loop or call, when @insn is one. */
static bool direct_target(csh cs, const cs_insn *insn, uint64_t *target)
{
	const cs_x86 *x86 = &insn->detail->x86;

	if (!cs_insn_group(cs, insn, CS_GRP_JUMP) && !cs_insn_group(cs, insn, CS_GRP_CALL))
		return false;
	if (x86->op_count != 1 || x86->operands[0].type != X86_OP_IMM)
		return false;
	*target = (uint64_t)x86->operands[0].imm;
	return true;
}

/* Linear sweep of @code for a direct branch into [@lo, @hi); @insn is scratch space. */
static bool sweep_hits(csh cs, cs_insn *insn, const uint8_t *code, size_t len, uint64_t addr,
		       uint64_t lo, uint64_t hi)
{
	uint64_t pc = addr, target;
	size_t left = len;

	while (left) {
		if (!cs_disasm_iter(cs, &code, &left, &pc, insn)) {
			/* bytes capstone cannot read (data, a cut tail): step over one and go on */
			code++;
			left--;
			pc++;
			continue;
		}
		if (direct_target(cs, insn, &target) && target >= lo && target < hi)
			return true;
	}
	return false;
}

static int disasm_open(csh *cs, cs_insn **insn)
{
	cs_err err;

	err = cs_open(CS_ARCH_X86, CS_MODE_64, cs);
	if (err != CS_ERR_OK)
		return err == CS_ERR_MEM ? -ENOMEM : -EIO;
	if (cs_option(*cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		cs_close(cs);
		return -EIO;
	}
	*insn = cs_malloc(*cs);
	if (!*insn) {
		cs_close(cs);
		return -ENOMEM;
	}
	return 0;
}

static void disasm_close(csh *cs, cs_insn *insn)
{
	cs_free(insn, 1);
	cs_close(cs);
}

/* Walks from the entry and fills @out; @out already holds the fallback. */
static void walk(csh cs, cs_insn *insn, const uint8_t *code, size_t len, uint64_t addr,
		 unsigned watched, struct probe_site *out)
{
	const uint8_t *at = code;
	uint64_t pc = addr;
	size_t left = len;
	int n;

	for (n = 0; n < PLACE_MAX_INSNS && pc - addr < PLACE_MAX_BYTES; n++) {
		uint32_t off = (uint32_t)(pc - addr);
		enum site_kind kind;
		const char *why;

		if (!cs_disasm_iter(cs, &at, &left, &pc, insn)) {
			out->reason = left ? WHY_UNDECODABLE : WHY_NONE;
			return;
		}
		kind = emulated_kind(insn->bytes, insn->size);
		if (kind == KIND_NONE) {
			why = unsafe_before(cs, insn, watched);
			if (why) {
				out->reason = why;
				return;
			}
			continue;
		}
		/*
		 * A branch landing anywhere in (entry, site] reaches the site a second time in
		 * one call, or without the entry; one landing on the entry does the same to an
		 * entry probe, so it is no reason to stay there.
		 */
		if (off && sweep_hits(cs, insn, code, len, addr, addr + 1, addr + off + 1)) {
			out->reason = WHY_TARGET;
			return;
		}
		out->offset = off;
		out->emulated = true;
		out->reason = off ? after_run[kind] : at_entry[kind];
		return;
	}
	out->reason = left ? WHY_FAR : WHY_NONE;
}

int placement__choose(const uint8_t *code, size_t len, uint64_t addr, unsigned regs,
		      struct probe_site *out)
{
	cs_insn *insn;
	csh cs;
	int err;

	if (!out)
		return -EINVAL;
	*out = (struct probe_site){ .offset = 0, .emulated = false, .reason = WHY_NONE };
	if (!code || !len)
		return -EINVAL;
	err = disasm_open(&cs, &insn);
	if (err) {
		out->reason = WHY_NO_DISASM;
		return err;
	}
	walk(cs, insn, code, len, addr, (regs & PLACE_READS) | PLACE_RSP, out);
	disasm_close(&cs, insn);
	return 0;
}

bool placement__branches_into(const uint8_t *code, size_t len, uint64_t addr, uint64_t lo,
			      uint64_t hi)
{
	cs_insn *insn;
	bool hit;
	csh cs;

	if (!code || !len || lo >= hi)
		return false;
	/* a caller who cannot tell must keep the probe at the entry */
	if (disasm_open(&cs, &insn))
		return true;
	hit = sweep_hits(cs, insn, code, len, addr, lo, hi);
	disasm_close(&cs, insn);
	return hit;
}

bool placement__branches_to(const uint8_t *code, size_t len, uint64_t addr, uint64_t target)
{
	if (target == UINT64_MAX)
		return false;
	return placement__branches_into(code, len, addr, target, target + 1);
}

int placement__cmp_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The target of a direct branch whose opcode is at @code[@i] (@addr + @i), as if one were
 * there: call/jmp rel32, jcc rel32, jmp/jcc/loop rel8. False for any other byte. */
static bool raw_target(const uint8_t *code, size_t len, size_t i, uint64_t addr, uint64_t *target)
{
	size_t op = 1, disp = 4;
	int32_t d;

	if (code[i] == 0xe8 || code[i] == 0xe9)
		;
	else if (code[i] == 0x0f && i + 1 < len && (code[i + 1] & 0xf0) == 0x80)
		op = 2;
	else if (code[i] == 0xeb || (code[i] & 0xf0) == 0x70 ||
		 (code[i] >= 0xe0 && code[i] <= 0xe3))
		disp = 1;
	else
		return false;
	if (i + op + disp > len)
		return false;
	if (disp == 1) {
		d = (int8_t)code[i + op];
	} else {
		uint32_t u = (uint32_t)code[i + op] | (uint32_t)code[i + op + 1] << 8 |
			     (uint32_t)code[i + op + 2] << 16 | (uint32_t)code[i + op + 3] << 24;

		memcpy(&d, &u, sizeof(d));
	}
	*target = addr + i + op + disp + (uint64_t)(int64_t)d;
	return true;
}

bool placement__may_branch_to(const uint8_t *code, size_t len, uint64_t addr,
			      const uint64_t *targets, size_t n)
{
	uint64_t t;

	for (size_t i = 0; code && i < len && n; i++)
		if (raw_target(code, len, i, addr, &t) &&
		    bsearch(&t, targets, n, sizeof(*targets), placement__cmp_addr))
			return true;
	return false;
}

bool placement__is_tail_jump(const uint8_t *code, size_t len)
{
	const uint8_t *at = code;
	uint64_t pc = 0;
	size_t left = len;
	bool jump = false;
	cs_insn *insn;
	csh cs;

	if (!code || !len || disasm_open(&cs, &insn))
		return false;
	if (!cs_disasm_iter(cs, &at, &left, &pc, insn))
		goto cleanup;
	if (insn->id == X86_INS_ENDBR64 && !cs_disasm_iter(cs, &at, &left, &pc, insn))
		goto cleanup;
	/* X86_INS_JMP is every near jmp: rel8, rel32, through a register or the GOT */
	jump = insn->id == X86_INS_JMP;
cleanup:
	disasm_close(&cs, insn);
	return jump;
}
