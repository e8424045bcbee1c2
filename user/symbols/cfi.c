// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * A DWARF call frame instruction interpreter (DWARF 5, section 6.4) for x86-64 that tracks
 * three columns only: the CFA, rbp and the return address. Every other register is ignored:
 * the walk in BPF needs rsp (the CFA), rbp (for the frames that compute their CFA from it)
 * and the return address, nothing else.
 */
#include "symbols/cfi.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/grow.h"
#include "symbols/coderows.h"
#include "symbols/ehframe.h"
#include "symbols/elfentries.h"

/* DWARF register numbers of x86-64 (System V ABI, figure 3.36) */
#define REG_RBX 3
#define REG_RBP 6
#define REG_RSP 7

enum cfa_rule {
	CFA_REG,
	CFA_PLT,
	CFA_DEREF,
	CFA_OTHER
};
enum reg_rule {
	REG_SAME,
	REG_OFFSET,
	REG_UNDEFINED,
	REG_OTHER
};

struct cfi_state {
	uint8_t cfa_rule;
	uint8_t cfa_reg; /* CFA_REG, CFA_DEREF */
	int64_t cfa_off; /* CFA_REG, CFA_DEREF; CFA_PLT: the threshold byte */
	uint8_t rbp_rule, rbx_rule, ra_rule;
	int64_t rbp_off, rbx_off, ra_off; /* REG_OFFSET: saved at CFA + off */
};

#define STATE_STACK 16 /* DW_CFA_remember_state nesting kept; deeper is unusual */

/* A row being built, and whether it only marks the end of an FDE. */
struct build_row {
	struct fl_unwind_row row;
	bool end;
	size_t seq; /* order of emission: sorting keeps FDE order at equal addresses */
};

struct builder {
	struct build_row *v;
	size_t n, cap;
	size_t fde_first; /* the current FDE's first row */
	size_t fdes;
};

/* DW_OP_* of the expressions recognized */
#define OP_DEREF 0x06
#define OP_BREG0 0x70

/*
 * The CFA expressions the walk follows: GCC's PLT rule, rsp + 8 + ((rip & 15) >= N) << 3, and
 * a dereference, *(reg + off) (code that realigns its stack).
 */
static void cfa_expression(struct cfi_state *s, const uint8_t *e, uint64_t len)
{
	static const uint8_t plt[] = { 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a };
	struct ehframe_cursor c = { .p = e, .end = e + len };

	s->cfa_rule = CFA_OTHER;
	if (len == 11 && !memcmp(e, plt, sizeof(plt)) && e[6] >= 0x30 && e[6] < 0x50 &&
	    !memcmp(e + 7, "\x2a\x33\x24\x22", 4)) { /* lit(N) ge lit3 shl plus */
		s->cfa_rule = CFA_PLT;
		s->cfa_off = e[6] - 0x30;
		return;
	}
	if (len >= 3 && (e[0] == OP_BREG0 + REG_RSP || e[0] == OP_BREG0 + REG_RBP)) {
		int64_t off;

		c.p++;
		off = (int64_t)ehframe__read_leb(&c, true);
		if (!c.bad && c.end - c.p == 1 && *c.p == OP_DEREF) {
			s->cfa_rule = CFA_DEREF;
			s->cfa_reg = e[0] - OP_BREG0;
			s->cfa_off = off;
		}
	}
}

/* @v times @factor as DWARF means it, wrapping (a malformed section must not overflow). */
static int64_t scaled(uint64_t v, int64_t factor)
{
	return (int64_t)(v * (uint64_t)factor);
}

/* The rule of register @reg becomes @rule (@off for REG_OFFSET). */
static void set_reg(struct cfi_state *s, uint64_t reg, uint64_t ra_reg, uint8_t rule, int64_t off)
{
	if (reg == REG_RBP) {
		s->rbp_rule = rule;
		s->rbp_off = off;
	} else if (reg == REG_RBX) {
		s->rbx_rule = rule;
		s->rbx_off = off;
	} else if (reg == ra_reg) {
		s->ra_rule = rule;
		s->ra_off = off;
	}
}

/* The rule of register @reg becomes the CIE's (@init) again. */
static void restore_reg(struct cfi_state *s, uint64_t reg, uint64_t ra_reg,
			const struct cfi_state *init)
{
	if (reg == REG_RBP)
		set_reg(s, reg, ra_reg, init->rbp_rule, init->rbp_off);
	else if (reg == REG_RBX)
		set_reg(s, reg, ra_reg, init->rbx_rule, init->rbx_off);
	else if (reg == ra_reg)
		set_reg(s, reg, ra_reg, init->ra_rule, init->ra_off);
}

static struct fl_unwind_row to_row(const struct cfi_state *s, bool signal)
{
	struct fl_unwind_row r = { 0 };

	if (signal) {
		r.cfa = FL_CFA_SIGNAL;
		return r;
	}
	if (s->ra_rule == REG_UNDEFINED) {
		r.cfa = FL_CFA_STOP;
		return r;
	}
	if (s->ra_rule != REG_OFFSET || s->ra_off != -8)
		return r; /* FL_CFA_INVALID */
	switch (s->cfa_rule) {
	case CFA_REG:
	case CFA_DEREF:
		if (s->cfa_off < INT32_MIN || s->cfa_off > INT32_MAX)
			return r;
		if (s->cfa_rule == CFA_REG && s->cfa_reg == REG_RBX)
			r.cfa = FL_CFA_RBX;
		else if (s->cfa_reg != REG_RSP && s->cfa_reg != REG_RBP)
			return r;
		else if (s->cfa_rule == CFA_REG)
			r.cfa = s->cfa_reg == REG_RSP ? FL_CFA_RSP : FL_CFA_RBP;
		else
			r.cfa = s->cfa_reg == REG_RSP ? FL_CFA_RSP_DEREF : FL_CFA_RBP_DEREF;
		r.cfa_off = (int32_t)s->cfa_off;
		break;
	case CFA_PLT:
		r.cfa = FL_CFA_PLT;
		r.cfa_off = (int32_t)s->cfa_off;
		break;
	default:
		return r;
	}
	if (s->rbp_rule == REG_OFFSET && s->rbp_off >= INT16_MIN && s->rbp_off <= INT16_MAX) {
		r.rbp = FL_RBP_AT_CFA;
		r.rbp_off = (int16_t)s->rbp_off;
	}
	if (s->rbx_rule == REG_OFFSET && s->rbx_off >= INT16_MIN && s->rbx_off <= INT16_MAX) {
		r.rbx = FL_RBP_AT_CFA;
		r.rbx_off = (int16_t)s->rbx_off;
	} else if (s->rbx_rule != REG_SAME) {
		r.rbx = FL_RBP_LOST;
	}
	return r;
}

static bool same_rule(const struct fl_unwind_row *a, const struct fl_unwind_row *b)
{
	return a->cfa == b->cfa && a->cfa_off == b->cfa_off && a->rbp == b->rbp &&
	       a->rbp_off == b->rbp_off && a->rbx == b->rbx && a->rbx_off == b->rbx_off;
}

static int emit(struct builder *b, uint64_t addr, struct fl_unwind_row row, bool end)
{
	struct build_row *g;

	if (!end && b->n > b->fde_first) { /* the same rule goes on, or a zero advance */
		struct build_row *last = &b->v[b->n - 1];

		if (same_rule(&last->row, &row))
			return 0;
		if (last->row.addr == addr) {
			last->row = row;
			last->row.addr = (uint32_t)addr;
			return 0;
		}
	}
	if (addr > UINT32_MAX) /* rows hold 32-bit addresses: such code stays without rules */
		return 0;
	g = grow__reserve(b->v, &b->cap, b->n, sizeof(*g));
	if (!g)
		return -ENOMEM;
	b->v = g;
	row.addr = (uint32_t)addr;
	g[b->n] = (struct build_row){ .row = row, .end = end, .seq = b->n };
	b->n++;
	return 0;
}

/* One instruction of the extended set (the high two bits of @op clear), read from @c. */
static int run_extended(struct ehframe_cursor *c, uint8_t op, const struct ehframe_cie *cie,
			struct cfi_state *s, const struct cfi_state *init, struct cfi_state *stack,
			unsigned *depth, const uint64_t *loc, uint64_t *delta, bool *advance)
{
	uint64_t reg, len, at;
	int64_t off;

	switch (op) {
	case 0x00: /* nop */
		break;
	case 0x2e: /* GNU_args_size */
		ehframe__read_leb(c, false);
		break;
	case 0x01: /* set_loc */
		at = ehframe__read_encoded(c, cie->enc & 0x0f, 0, c->p);
		if (loc && at > *loc) {
			*delta = at - *loc;
			*advance = true;
		}
		break;
	case 0x02: /* advance_loc1 */
	case 0x03: /* advance_loc2 */
	case 0x04: /* advance_loc4 */
		*delta = ehframe__read_n(c, op == 0x02 ? 1 : op == 0x03 ? 2 : 4) * cie->code_align;
		*advance = true;
		break;
	case 0x05: /* offset_extended */
		reg = ehframe__read_leb(c, false);
		off = scaled(ehframe__read_leb(c, false), cie->data_align);
		set_reg(s, reg, cie->ra_reg, REG_OFFSET, off);
		break;
	case 0x11: /* offset_extended_sf */
	case 0x2f: /* GNU_negative_offset_extended */
		reg = ehframe__read_leb(c, false);
		off = scaled(ehframe__read_leb(c, op == 0x11), cie->data_align);
		set_reg(s, reg, cie->ra_reg, REG_OFFSET,
			op == 0x2f ? (int64_t)(0 - (uint64_t)off) : off);
		break;
	case 0x06: /* restore_extended */
		restore_reg(s, ehframe__read_leb(c, false), cie->ra_reg, init);
		break;
	case 0x07: /* undefined */
		set_reg(s, ehframe__read_leb(c, false), cie->ra_reg, REG_UNDEFINED, 0);
		break;
	case 0x08: /* same_value */
		set_reg(s, ehframe__read_leb(c, false), cie->ra_reg, REG_SAME, 0);
		break;
	case 0x09: /* register */
		reg = ehframe__read_leb(c, false);
		ehframe__read_leb(c, false);
		set_reg(s, reg, cie->ra_reg, REG_OTHER, 0);
		break;
	case 0x0a: /* remember_state */
		if (*depth < STATE_STACK)
			stack[*depth] = *s;
		(*depth)++;
		break;
	case 0x0b: /* restore_state */
		if (*depth && *depth <= STATE_STACK)
			*s = stack[*depth - 1];
		if (*depth)
			(*depth)--;
		break;
	case 0x0c: /* def_cfa */
		s->cfa_rule = CFA_REG;
		s->cfa_reg = (uint8_t)ehframe__read_leb(c, false);
		s->cfa_off = (int64_t)ehframe__read_leb(c, false);
		break;
	case 0x12: /* def_cfa_sf */
		s->cfa_rule = CFA_REG;
		s->cfa_reg = (uint8_t)ehframe__read_leb(c, false);
		s->cfa_off = scaled(ehframe__read_leb(c, true), cie->data_align);
		break;
	case 0x0d: /* def_cfa_register */
		s->cfa_rule = CFA_REG;
		s->cfa_reg = (uint8_t)ehframe__read_leb(c, false);
		break;
	case 0x0e: /* def_cfa_offset */
		s->cfa_off = (int64_t)ehframe__read_leb(c, false);
		break;
	case 0x13: /* def_cfa_offset_sf */
		s->cfa_off = scaled(ehframe__read_leb(c, true), cie->data_align);
		break;
	case 0x0f: /* def_cfa_expression */
		len = ehframe__read_leb(c, false);
		if (c->bad || len > (uint64_t)(c->end - c->p))
			return -EINVAL;
		cfa_expression(s, c->p, len);
		c->p += len;
		break;
	case 0x10: /* expression */
	case 0x16: /* val_expression */
		reg = ehframe__read_leb(c, false);
		len = ehframe__read_leb(c, false);
		if (c->bad || len > (uint64_t)(c->end - c->p))
			return -EINVAL;
		c->p += len;
		set_reg(s, reg, cie->ra_reg, REG_OTHER, 0);
		break;
	case 0x14: /* val_offset */
	case 0x15: /* val_offset_sf */
		reg = ehframe__read_leb(c, false);
		ehframe__read_leb(c, op == 0x15);
		set_reg(s, reg, cie->ra_reg, REG_OTHER, 0);
		break;
	default: /* an opcode we do not know: its operands cannot be skipped */
		return -EINVAL;
	}
	return 0;
}

/*
 * Runs the instructions in [p, end) on @s. With @loc (an FDE's instructions), a row is emitted
 * for the rule in force each time the location advances; without (a CIE's initial
 * instructions), they only set @s.
 */
static int run(struct builder *b, const struct ehframe_fde *fde, const uint8_t *p,
	       const uint8_t *end, struct cfi_state *s, const struct cfi_state *init, uint64_t *loc)
{
	const struct ehframe_cie *cie = &fde->cie;
	struct ehframe_cursor c = { .p = p, .end = end };
	struct cfi_state stack[STATE_STACK];
	unsigned depth = 0;
	int err = 0;

	while (!err && !c.bad && c.p < c.end) {
		uint8_t op = (uint8_t)ehframe__read_n(&c, 1), low = op & 0x3f;
		uint64_t delta = 0;
		bool advance = false;
		int64_t off;

		switch (op >> 6) {
		case 1: /* DW_CFA_advance_loc */
			delta = low * cie->code_align;
			advance = true;
			break;
		case 2: /* DW_CFA_offset */
			off = scaled(ehframe__read_leb(&c, false), cie->data_align);
			set_reg(s, low, cie->ra_reg, REG_OFFSET, off);
			break;
		case 3: /* DW_CFA_restore */
			restore_reg(s, low, cie->ra_reg, init);
			break;
		default:
			err = run_extended(&c, op, cie, s, init, stack, &depth, loc, &delta,
					   &advance);
			break;
		}
		if (advance && loc) {
			err = emit(b, *loc, to_row(s, cie->signal), false);
			*loc += delta;
			if (*loc >= fde->start + fde->size)
				break;
		}
	}
	return err ? err : c.bad ? -EINVAL : 0;
}

static int compile_fde(const struct ehframe_fde *fde, void *arg)
{
	struct builder *b = arg;
	struct cfi_state init = { .cfa_rule = CFA_OTHER }, s;
	uint64_t loc = fde->start;
	int err;

	b->fdes++;
	b->fde_first = b->n;
	/* a CIE's instructions that do not decode leave its FDEs without rules: INVALID */
	if (run(b, fde, fde->cie.insns, fde->cie.insns_end, &init, &init, NULL))
		init = (struct cfi_state){ .cfa_rule = CFA_OTHER, .ra_rule = REG_OTHER };
	s = init;
	err = run(b, fde, fde->insns, fde->insns_end, &s, &init, &loc);
	if (err == -ENOMEM)
		return err;
	if (err) /* what decoded stands; the rest of the function has no rule */
		s = (struct cfi_state){ .cfa_rule = CFA_OTHER, .ra_rule = REG_OTHER };
	if (loc < fde->start + fde->size &&
	    (err = emit(b, loc, to_row(&s, fde->cie.signal), false)))
		return err;
	return emit(b, fde->start + fde->size, (struct fl_unwind_row){ .cfa = FL_CFA_INVALID },
		    true);
}

static int by_addr(const void *a, const void *b)
{
	const struct build_row *x = a, *y = b;

	if (x->row.addr != y->row.addr)
		return x->row.addr < y->row.addr ? -1 : 1;
	if (x->end != y->end) /* a function's first row wins over the end of the one before */
		return x->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts the rows of @b into @t and merges them; frees @b. 0 or -ENOMEM. */
static int finish(struct builder *b, struct cfi_table *t)
{
	size_t n = 0;

	if (b->n)
		qsort(b->v, b->n, sizeof(*b->v), by_addr);
	t->rows = malloc((b->n ? b->n : 1) * sizeof(*t->rows));
	if (!t->rows) {
		free(b->v);
		return -ENOMEM;
	}
	/* at one address the last row sorted is the one in force; then equal rules merge */
	for (size_t i = 0; i < b->n; i++) {
		const struct fl_unwind_row *r = &b->v[i].row;

		if (n && t->rows[n - 1].addr == r->addr)
			n--;
		if (n && same_rule(&t->rows[n - 1], r))
			continue;
		t->rows[n++] = *r;
	}
	free(b->v);
	t->n = n;
	t->fdes = b->fdes;
	return 0;
}

int cfi__compile(const uint8_t *data, size_t len, uint64_t vaddr, struct cfi_table *t)
{
	struct builder b = { 0 };
	int err;

	*t = (struct cfi_table){ 0 };
	err = ehframe__each_fde(data, len, vaddr, compile_fde, &b);
	if (err) {
		free(b.v);
		return err;
	}
	return finish(&b, t);
}

int cfi__compile_file(const char *path, struct cfi_table *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	*t = (struct cfi_table){ 0 };
	if (fd < 0)
		return -errno;
	err = cfi__compile_fd(fd, t);
	close(fd);
	return err;
}

int cfi__compile_fd(int fd, struct cfi_table *t)
{
	struct elf_entries entries = { 0 };
	struct builder b = { 0 };
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t shstrndx;
	int err = 0;
	Elf *elf;

	*t = (struct cfi_table){ 0 };
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		if (elf)
			elf_end(elf);
		return -EINVAL;
	}
	/* both sections when both are there: code built without asynchronous unwind tables has
	 * its functions in .debug_frame, and crt's _start in .eh_frame */
	while (!err && (scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *d;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(name, ".eh_frame") && strcmp(name, ".debug_frame"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		found = true;
		if (!strcmp(name, ".eh_frame"))
			err = ehframe__each_fde(d->d_buf, d->d_size, sh.sh_addr, compile_fde, &b);
		else
			err = ehframe__each_debug_fde(d->d_buf, d->d_size, compile_fde, &b);
	}
	if (!err && found)
		err = elf_entries__read(elf, &entries);
	if (err || !found) {
		elf_end(elf);
		free(b.v);
		return err ? err : -ENOENT;
	}
	err = finish(&b, t);
	if (!err)
		err = cfi__add_entries(t, entries.fn, entries.n, entries.start);
	if (!err) /* the functions among them with no FDE, read from their code */
		err = coderows__add(t, elf, entries.fn, entries.n);
	elf_end(elf);
	elf_entries__free(&entries);
	return err;
}

/*
 * @t's rows and the rows @add (@nadd of them, sorted by by_addr()) in one sorted table, merged
 * without sorting @t's again: at an address both have, an added row wins, but for an end row,
 * which only fills an address nothing else holds. 0 or -ENOMEM.
 */
static int merge_rows(struct cfi_table *t, const struct build_row *add, size_t nadd)
{
	struct fl_unwind_row *out = malloc((t->n + nadd ? t->n + nadd : 1) * sizeof(*out));
	size_t i = 0, j = 0, m = 0;

	if (!out)
		return -ENOMEM;
	while (i < t->n || j < nadd) {
		uint64_t at = i < t->n ? t->rows[i].addr : UINT64_MAX;
		const struct fl_unwind_row *win = NULL;

		if (j < nadd && add[j].row.addr < at)
			at = add[j].row.addr;
		if (i < t->n && t->rows[i].addr == at)
			win = &t->rows[i++];
		for (; j < nadd && add[j].row.addr == at; j++)
			if (!add[j].end || !win)
				win = &add[j].row;
		if (!m || !same_rule(&out[m - 1], win))
			out[m++] = *win;
	}
	free(t->rows);
	t->rows = out;
	t->n = m;
	return 0;
}

int cfi__add_entries(struct cfi_table *t, const uint64_t *fn, size_t n, uint64_t start)
{
	const struct fl_unwind_row entry = { .cfa = FL_CFA_RSP, .cfa_off = 8 },
				   stop = { .cfa = FL_CFA_STOP }, none = { .cfa = FL_CFA_INVALID };
	const struct fl_unwind_row *r = start ? cfi__find(t, start) : NULL;
	struct builder b = { 0 };
	int err = 0;

	if (start && (!r || r->cfa == FL_CFA_INVALID))
		err = emit(&b, start, stop, false);
	for (size_t i = 0; i < n && !err; i++) {
		r = cfi__find(t, fn[i]);
		if (fn[i] == start || (r && r->cfa != FL_CFA_INVALID))
			continue;
		b.fde_first = b.n; /* no merge with the row before: merge_rows() merges */
		err = emit(&b, fn[i], entry, false);
		/* the first instruction alone: an end row, which any other row there outranks */
		if (!err)
			err = emit(&b, fn[i] + 1, none, true);
	}
	if (!err && b.n) {
		qsort(b.v, b.n, sizeof(*b.v), by_addr);
		err = merge_rows(t, b.v, b.n);
	}
	free(b.v);
	return err;
}

const struct fl_unwind_row *cfi__find(const struct cfi_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) { /* the last row whose address is <= addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

void cfi__free(struct cfi_table *t)
{
	free(t->rows);
	*t = (struct cfi_table){ 0 };
}
