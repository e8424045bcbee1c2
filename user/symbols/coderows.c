// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "symbols/coderows.h"
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/elfentries.h"

/* x86-64 register numbers (ModRM, with REX's extension bit) */
#define X_RSP 4
#define X_RBP 5

/* What the stack holds at an instruction: the CFA is rsp + off; rbp is saved at CFA - save
 * (0: not saved, rbp is the caller's); rbp = CFA - frame after mov %rsp,%rbp (0: not so). */
struct stack_state {
	int32_t off;
	int32_t save;
	int32_t frame;
};

enum insn_kind {
	INSN_BAD,    /* not one of those known */
	INSN_NEXT,   /* on to the next instruction */
	INSN_BRANCH, /* the next one, or target */
	INSN_JUMP,   /* target */
	INSN_TAIL,   /* out of the function with the stack as at its entry (a tail call) */
	INSN_RET,
};

struct insn {
	enum insn_kind kind;
	size_t len;
	int64_t target; /* INSN_BRANCH, INSN_JUMP: offset from the function's start */
	struct stack_state after;
};

/* The length of a ModRM operand at @p (@left bytes): ModRM, SIB, displacement. 0: past @left. */
static size_t modrm_len(const uint8_t *p, size_t left)
{
	uint8_t mod = p[0] >> 6, rm = p[0] & 7;
	size_t n = 1;

	if (!left)
		return 0;
	if (mod != 3 && rm == 4) {
		if (left < 2)
			return 0;
		n++;
		if (mod == 0 && (p[1] & 7) == 5)
			n += 4;
	}
	if (mod == 0 && rm == 5)
		n += 4;
	else if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n <= left ? n : 0;
}

static int32_t rel(const uint8_t *p, size_t bytes)
{
	int32_t v = 0;

	if (bytes == 1)
		return (int8_t)p[0];
	memcpy(&v, p, sizeof(v));
	return v;
}

/* A control transfer to @at + @len + displacement of @bytes at @p. */
static void transfer(struct insn *in, enum insn_kind kind, size_t at, const uint8_t *p,
		     size_t bytes)
{
	in->kind = kind;
	in->target = (int64_t)at + (int64_t)in->len + rel(p, bytes);
}

/*
 * Instructions with a ModRM operand after the opcode at @p + @o (@rex the REX prefix before
 * it, 0: none) that change neither rsp nor rbp: compares and tests, loads into another
 * register, lea into another, a byte or a constant stored through rip (never the stack's
 * slots), calls, a jump through a register or memory (a tail call). INSN_BAD for any other.
 */
static void modrm_insn(struct insn *in, uint8_t rex, const uint8_t *p, size_t o, size_t left)
{
	const uint8_t *op = p + o, *m = op + 1;
	uint8_t reg, mod;
	size_t n = left > o + 1 ? modrm_len(m, left - o - 1) : 0, imm = 0;
	enum insn_kind kind = INSN_NEXT;
	bool rip, ok = false;

	if (!n)
		return;
	reg = ((m[0] >> 3) & 7) | (rex & 4 ? 8 : 0);
	mod = m[0] >> 6;
	rip = mod == 0 && (m[0] & 7) == 5;
	switch (op[0]) {
	case 0x38: /* cmp r8 and r/m8, both ways */
	case 0x39:
	case 0x3a:
	case 0x3b:
	case 0x84: /* test */
	case 0x85:
		ok = true;
		break;
	case 0x80: /* cmp r/m8, imm8 */
	case 0x83: /* cmp r/m, imm8 */
		ok = reg == 7;
		imm = 1;
		break;
	case 0x8b: /* mov r/m, reg */
	case 0x8d: /* lea */
		ok = reg != X_RSP && reg != X_RBP;
		break;
	case 0xc6: /* movb imm8, r/m8: through rip only */
		ok = reg == 0 && rip;
		imm = 1;
		break;
	case 0xc7: /* mov imm32, r/m: through rip only */
		ok = reg == 0 && rip;
		imm = 4;
		break;
	case 0xff: /* call *r/m (/2), jmp *r/m (/4) */
		ok = (reg & 7) == 2 || (reg & 7) == 4;
		kind = (reg & 7) == 4 ? INSN_TAIL : INSN_NEXT;
		break;
	}
	if (!ok || o + 1 + n + imm > left)
		return;
	in->len = o + 1 + n + imm;
	in->kind = kind;
}

/* The instruction at @at of @code (@len bytes) and its effect on @s (into in->after). */
static void decode(const uint8_t *code, size_t len, size_t at, const struct stack_state *s,
		   struct insn *in)
{
	const uint8_t *p = code + at;
	size_t left = len - at, o = 0;
	uint8_t rex = 0;

	*in = (struct insn){ .kind = INSN_BAD, .after = *s };
	if (left >= 4 && !memcmp(p, "\xf3\x0f\x1e\xfa", 4)) { /* endbr64 */
		in->kind = INSN_NEXT;
		in->len = 4;
		return;
	}
	if (left >= 2 && p[0] == 0xf3 && p[1] == 0xc3) { /* repz ret */
		in->kind = INSN_RET;
		in->len = 2;
		return;
	}
	if ((p[0] & 0xf0) == 0x40) /* REX */
		rex = p[o++];
	if (o >= left)
		return;
	in->len = o + 1;
	switch (p[o]) {
	case 0x90: /* nop */
		in->kind = rex ? INSN_BAD : INSN_NEXT;
		return;
	case 0x55: /* push %rbp */
		if (rex || s->save)
			return;
		in->after.off += 8;
		in->after.save = in->after.off;
		in->kind = INSN_NEXT;
		return;
	case 0x5d: /* pop %rbp, from where it was saved */
		if (rex || !s->save || s->save != s->off)
			return;
		in->after.off -= 8;
		in->after.save = 0;
		in->after.frame = 0;
		in->kind = INSN_NEXT;
		return;
	case 0xc9: /* leave: rsp = rbp, then pop %rbp */
		if (rex || !s->save || s->frame != s->save)
			return;
		in->after.off = s->frame - 8;
		in->after.save = 0;
		in->after.frame = 0;
		in->kind = INSN_NEXT;
		return;
	case 0xc3:
		in->kind = rex ? INSN_BAD : INSN_RET;
		return;
	case 0xe8: /* call rel32: back here, the stack as it was */
		if (left < o + 5)
			return;
		in->len = o + 5;
		in->kind = INSN_NEXT;
		return;
	case 0xe9: /* jmp rel32 */
	case 0xeb: /* jmp rel8 */
		if (rex || left < (p[0] == 0xe9 ? 5u : 2u))
			return;
		in->len = p[0] == 0xe9 ? 5 : 2;
		transfer(in, INSN_JUMP, at, p + 1, in->len - 1);
		return;
	case 0x0f: /* jcc rel32 */
		if (rex || left < 6 || (p[1] & 0xf0) != 0x80)
			return;
		in->len = 6;
		transfer(in, INSN_BRANCH, at, p + 2, 4);
		return;
	}
	if (!rex && (p[0] & 0xf0) == 0x70 && left >= 2) { /* jcc rel8 */
		in->len = 2;
		transfer(in, INSN_BRANCH, at, p + 1, 1);
		return;
	}
	if (!rex && p[0] >= 0xb8 && p[0] <= 0xbf && p[0] != 0xb8 + X_RSP && p[0] != 0xb8 + X_RBP &&
	    left >= 5) { /* mov imm32, r32 */
		in->len = 5;
		in->kind = INSN_NEXT;
		return;
	}
	if (rex == 0x48 && left >= 3 && p[1] == 0x89 && p[2] == 0xe5) { /* mov %rsp,%rbp */
		in->len = 3;
		in->after.frame = s->off;
		in->kind = INSN_NEXT;
		return;
	}
	if (rex == 0x48 && left >= 4 && p[1] == 0x83 && (p[2] == 0xec || p[2] == 0xc4)) {
		int32_t by = (int8_t)p[3]; /* sub or add imm8, %rsp */

		in->len = 4;
		in->after.off += p[2] == 0xec ? by : -by;
		/* never below the return address, nor over rbp's slot */
		if (in->after.off >= 8 && (!s->save || in->after.off >= s->save) && !(by & 7))
			in->kind = INSN_NEXT;
		return;
	}
	modrm_insn(in, rex, p, o, left);
}

/* What a byte of the code is to the decoding */
enum {
	BYTE_UNSEEN,
	BYTE_START,   /* an instruction starts here, decoded */
	BYTE_INSIDE,  /* ... is in one */
	BYTE_PENDING, /* a branch goes here, with its state: to decode */
};

/* The decoding of one function: each byte's instruction and stack state. */
struct walk {
	const uint8_t *code;
	size_t len;
	uint8_t *start; /* BYTE_* */
	struct stack_state *state;
	size_t *todo; /* offsets to go on from, with state[] set */
	size_t ntodo;
	size_t end; /* past the last instruction */
};

/* Marks the instruction @in at @at with @s; false when it overlaps one decoded before. */
static bool mark(struct walk *w, size_t at, const struct insn *in, const struct stack_state *s)
{
	for (size_t i = 1; i < in->len; i++)
		if (w->start[at + i])
			return false;
	w->start[at] = BYTE_START;
	memset(w->start + at + 1, BYTE_INSIDE, in->len - 1);
	w->state[at] = *s;
	if (at + in->len > w->end)
		w->end = at + in->len;
	return true;
}

static bool same_state(const struct stack_state *a, const struct stack_state *b)
{
	return a->off == b->off && a->save == b->save && a->frame == b->frame;
}

/* A branch from a decoded instruction to @at, the stack then @s. */
static bool branch_to(struct walk *w, int64_t at, const struct stack_state *s)
{
	if (at < 0 || (uint64_t)at >= w->len || w->start[at] == BYTE_INSIDE)
		return false;
	if (w->start[at] != BYTE_UNSEEN)
		return same_state(&w->state[at], s);
	w->start[at] = BYTE_PENDING;
	w->state[at] = *s;
	w->todo[w->ntodo++] = (size_t)at;
	return true;
}

/* Follows the path from @at with @s until it returns, leaves, or joins one decoded. */
static bool follow(struct walk *w, size_t at, struct stack_state s)
{
	struct insn in;

	for (;;) {
		if (at >= w->len || w->start[at] == BYTE_INSIDE)
			return false;
		if (w->start[at] != BYTE_UNSEEN && !same_state(&w->state[at], &s))
			return false;
		if (w->start[at] == BYTE_START)
			return true;
		decode(w->code, w->len, at, &s, &in);
		if (in.kind == INSN_BAD || !mark(w, at, &in, &s))
			return false;
		switch (in.kind) {
		case INSN_RET:
			return s.off == 8 && !s.save;
		case INSN_TAIL:
			return s.off == 8 && !s.save;
		case INSN_BRANCH:
			if (!branch_to(w, in.target, &in.after))
				return false;
			break;
		case INSN_JUMP:
			/* out of the function: a tail call, with the stack as at its entry */
			if (in.target < 0 || (uint64_t)in.target >= w->len)
				return in.after.off == 8 && !in.after.save;
			at = (size_t)in.target;
			s = in.after;
			continue;
		default:
			break;
		}
		at += in.len;
		s = in.after;
	}
}

static struct fl_unwind_row state_row(uint64_t addr, const struct stack_state *s)
{
	struct fl_unwind_row r = { .addr = (uint32_t)addr, .cfa = FL_CFA_RSP, .cfa_off = s->off };

	if (s->save) {
		r.rbp = FL_RBP_AT_CFA;
		r.rbp_off = (int16_t)-s->save;
	}
	return r;
}

size_t coderows__decode(const uint8_t *code, size_t len, uint64_t vaddr, struct fl_unwind_row *out,
			size_t max)
{
	uint8_t start[CODEROWS_MAX_LEN] = { 0 };
	struct stack_state state[CODEROWS_MAX_LEN];
	size_t todo[CODEROWS_MAX_LEN], n = 0;
	struct walk w = { .code = code, .start = start, .state = state, .todo = todo };
	bool ok;

	w.len = len < CODEROWS_MAX_LEN ? len : CODEROWS_MAX_LEN;
	if (vaddr + w.len > UINT32_MAX)
		return 0;
	ok = follow(&w, 0, (struct stack_state){ .off = 8 });
	while (ok && w.ntodo) {
		size_t at = todo[--w.ntodo];

		/* a branch's target, unless a path decoded it since */
		if (start[at] == BYTE_PENDING)
			ok = follow(&w, at, state[at]);
	}
	if (!ok)
		return 0;
	for (size_t at = 0; at < w.end; at++) {
		struct fl_unwind_row r;

		if (start[at] != BYTE_START)
			continue;
		r = state_row(vaddr + at, &state[at]);
		if (n && out[n - 1].cfa_off == r.cfa_off && out[n - 1].rbp == r.rbp &&
		    out[n - 1].rbp_off == r.rbp_off)
			continue;
		if (n + 1 >= max)
			return 0;
		out[n++] = r;
	}
	out[n++] =
		(struct fl_unwind_row){ .addr = (uint32_t)(vaddr + w.end), .cfa = FL_CFA_INVALID };
	return n;
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether @t's rows at @fn are its entry's alone (cfi__add_entries): its first instruction
 * at CFA = rsp + 8, nothing from @fn + 1; then the next row's address into *@limit. */
static bool entry_alone(const struct cfi_table *t, uint64_t fn, uint64_t *limit)
{
	const struct fl_unwind_row *r = cfi__find(t, fn), *next = cfi__find(t, fn + 1);

	if (!r || r->cfa != FL_CFA_RSP || r->cfa_off != 8 || r->rbp != FL_RBP_SAME ||
	    r->rbx != FL_RBP_SAME || !next || next->addr != fn + 1 || next->cfa != FL_CFA_INVALID)
		return false;
	*limit = next + 1 < t->rows + t->n ? next[1].addr : fn + CODEROWS_MAX_LEN;
	return true;
}

/* @t's rows with those of @add (@nadd, sorted) in place of its own in [first, end) of each
 * function @add holds: @ranges, @nranges pairs. */
static int replace(struct cfi_table *t, const struct fl_unwind_row *add, size_t nadd,
		   const uint64_t *ranges, size_t nranges)
{
	struct fl_unwind_row *out = malloc((t->n + nadd) * sizeof(*out));
	size_t i = 0, j = 0, k = 0, m = 0;

	if (!out)
		return -ENOMEM;
	while (i < t->n || j < nadd) {
		uint64_t at = i < t->n ? t->rows[i].addr : UINT64_MAX;

		while (k < nranges && ranges[2 * k + 1] <= at)
			k++;
		if (i < t->n && k < nranges && ranges[2 * k] <= at) { /* replaced */
			i++;
			continue;
		}
		if (j < nadd && add[j].addr <= at) {
			/* a function's own row at the end of another's: its own stands */
			if (add[j].cfa != FL_CFA_INVALID || add[j].addr != at)
				out[m++] = add[j];
			j++;
			continue;
		}
		out[m++] = t->rows[i++];
	}
	free(t->rows);
	t->rows = out;
	t->n = m;
	return 0;
}

int coderows__add(struct cfi_table *t, Elf *elf, const uint64_t *fn, size_t n)
{
	struct fl_unwind_row *add = NULL, rows[CODEROWS_MAX_LEN];
	uint64_t *sorted, *ranges = NULL;
	size_t nadd = 0, nranges = 0, cap = 0;
	int err = 0;

	if (!n)
		return 0;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, fn, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), by_addr);
	for (size_t i = 0; i < n && !err; i++) {
		uint64_t limit, off, len;
		size_t got;
		Elf_Data *d;

		if ((i && sorted[i] == sorted[i - 1]) || !entry_alone(t, sorted[i], &limit))
			continue;
		len = limit - sorted[i] < CODEROWS_MAX_LEN ? limit - sorted[i] : CODEROWS_MAX_LEN;
		while (len && !elf_entries__offset(elf, sorted[i], len, &off))
			len /= 2; /* a function near the end of its segment */
		d = len ? elf_getdata_rawchunk(elf, (int64_t)off, len, ELF_T_BYTE) : NULL;
		got = d ? coderows__decode(d->d_buf, d->d_size, sorted[i], rows, CODEROWS_MAX_LEN) :
			  0;
		if (!got)
			continue;
		if (nadd + got > cap) {
			struct fl_unwind_row *v;
			uint64_t *r;

			cap = (nadd + got) * 2;
			v = realloc(add, cap * sizeof(*add));
			r = v ? realloc(ranges, cap * 2 * sizeof(*ranges)) : NULL;
			add = v ? v : add;
			ranges = r ? r : ranges;
			if (!r) {
				err = -ENOMEM;
				break;
			}
		}
		/* a function that ends where the next begins: the next one's row there */
		if (nadd && add[nadd - 1].addr == rows[0].addr)
			nadd--;
		memcpy(add + nadd, rows, got * sizeof(*rows));
		nadd += got;
		ranges[2 * nranges] = sorted[i];
		ranges[2 * nranges + 1] = rows[got - 1].addr;
		nranges++;
	}
	if (!err && nadd)
		err = replace(t, add, nadd, ranges, nranges);
	free(sorted);
	free(add);
	free(ranges);
	return err;
}
