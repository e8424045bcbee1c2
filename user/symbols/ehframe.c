// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * .eh_frame as the System V x86-64 ABI and the LSB describe it: records of a 32-bit length
 * (0xffffffff: a 64-bit one follows; 0: the end), then a 32-bit id, 0 for a CIE, else the
 * distance back to the FDE's CIE. Read here: the CIE's alignment factors, return address
 * register and augmentation ('z' data, 'R' pointer encoding, 'P' personality to skip over, 'S'
 * signal frame), the FDE's initial location and range, and where the call frame instructions
 * of both lie; symbols/cfi.c interprets those.
 */
#include "symbols/ehframe.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"

/* DW_EH_PE_*: the low nibble is the format, the next three bits how it applies */
#define PE_OMIT 0xff
#define PE_ABSPTR 0x00
#define PE_ULEB128 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SLEB128 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10
#define PE_APPLY_MASK 0x70

uint64_t ehframe__read_n(struct ehframe_cursor *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++) /* little-endian, as x86-64 */
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

uint64_t ehframe__read_leb(struct ehframe_cursor *c, bool is_signed)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)ehframe__read_n(c, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (!c->bad && (b & 0x80));
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~0ULL << shift;
	return v;
}

uint64_t ehframe__read_encoded(struct ehframe_cursor *c, uint8_t enc, uint64_t vaddr,
			       const uint8_t *base)
{
	uint64_t at = vaddr + (uint64_t)(c->p - base), v;

	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		v = ehframe__read_n(c, 8);
		break;
	case PE_ULEB128:
		v = ehframe__read_leb(c, false);
		break;
	case PE_SLEB128:
		v = ehframe__read_leb(c, true);
		break;
	case PE_UDATA2:
		v = ehframe__read_n(c, 2);
		break;
	case PE_SDATA2:
		v = (uint64_t)(int64_t)(int16_t)ehframe__read_n(c, 2);
		break;
	case PE_UDATA4:
		v = ehframe__read_n(c, 4);
		break;
	case PE_SDATA4:
		v = (uint64_t)(int64_t)(int32_t)ehframe__read_n(c, 4);
		break;
	default:
		c->bad = true;
		return 0;
	}
	/* pc-relative is what GCC and clang emit; other bases (datarel, textrel) are not */
	if ((enc & PE_APPLY_MASK) == PE_PCREL)
		v += at;
	else if (enc & PE_APPLY_MASK)
		c->bad = true;
	return v;
}

/* Reads the CIE whose body (after its id) is @c into @cie; false when it cannot be used. */
static bool read_cie(struct ehframe_cursor c, uint64_t vaddr, const uint8_t *base,
		     struct ehframe_cie *cie)
{
	uint8_t version = (uint8_t)ehframe__read_n(&c, 1);
	const char *aug = (const char *)c.p;
	size_t auglen = strnlen(aug, (size_t)(c.end - c.p));
	uint64_t auglen_data = 0;
	const uint8_t *aug_end = NULL;

	*cie = (struct ehframe_cie){ .enc = PE_ABSPTR };
	if (c.bad || auglen == (size_t)(c.end - c.p))
		return false;
	c.p += auglen + 1;
	if (strstr(aug, "eh")) /* pre-1997 GCC: a pointer-sized field */
		ehframe__read_n(&c, 8);
	if (version >= 4) { /* .debug_frame: the address and segment selector sizes */
		if (ehframe__read_n(&c, 1) != 8 || ehframe__read_n(&c, 1) != 0)
			return false;
	}
	cie->code_align = ehframe__read_leb(&c, false);
	cie->data_align = (int64_t)ehframe__read_leb(&c, true);
	if (version == 1)
		cie->ra_reg = ehframe__read_n(&c, 1);
	else
		cie->ra_reg = ehframe__read_leb(&c, false);
	if (aug[0] == 'z') {
		cie->has_z = true;
		auglen_data = ehframe__read_leb(&c, false);
		if (c.bad || auglen_data > (uint64_t)(c.end - c.p))
			return false;
		aug_end = c.p + auglen_data;
	}
	for (size_t i = 1; aug[0] == 'z' && i < auglen && !c.bad; i++) {
		switch (aug[i]) {
		case 'R':
			cie->enc = (uint8_t)ehframe__read_n(&c, 1);
			break;
		case 'L':
			ehframe__read_n(&c, 1);
			break;
		case 'P': {
			uint8_t penc = (uint8_t)ehframe__read_n(&c, 1);

			/* the indirect bit: the pointer is still read */
			ehframe__read_encoded(&c, penc & 0x7f, vaddr, base);
			break;
		}
		case 'S':
			cie->signal = true;
			break;
		case 'B':
			break;
		default: /* an unknown letter: 'z' says where its data ends */
			i = auglen;
			break;
		}
	}
	if (aug_end)
		c.p = aug_end;
	if (c.bad || cie->enc == PE_OMIT)
		return false;
	cie->insns = c.p;
	cie->insns_end = c.end;
	return true;
}

/*
 * The records of .eh_frame, or of .debug_frame (@debug), which differs in three ways: a CIE's
 * id is 0xffffffff, not 0; an FDE points to its CIE by its offset from the section's start,
 * not back from itself; addresses are absolute, 8 bytes, without augmentation.
 */
static int each_fde(const uint8_t *data, size_t len, uint64_t vaddr, bool debug,
		    int (*fn)(const struct ehframe_fde *fde, void *arg), void *arg)
{
	const uint64_t cie_id = debug ? 0xffffffff : 0;
	struct ehframe_cursor c = { .p = data, .end = data + len };
	int err = 0;

	while (!err && !c.bad && c.p < c.end) {
		uint64_t length = ehframe__read_n(&c, 4), id;
		struct ehframe_cursor body;
		struct ehframe_fde fde;
		const uint8_t *cie;

		if (length == 0xffffffff)
			length = ehframe__read_n(&c, 8);
		if (c.bad || length == 0 || length > (uint64_t)(c.end - c.p))
			break; /* the terminator, or a truncated section */
		body = (struct ehframe_cursor){ .p = c.p, .end = c.p + length };
		c.p += length;
		id = ehframe__read_n(&body, 4);
		if (id != cie_id) { /* an FDE */
			struct ehframe_cursor cc;
			uint64_t clen;

			if (debug ? id >= len : id > (uint64_t)(body.p - 4 - data))
				continue;
			cie = debug ? data + id : body.p - 4 - id;
			cc = (struct ehframe_cursor){ .p = cie, .end = c.end };
			clen = ehframe__read_n(&cc, 4);
			if (clen == 0xffffffff || clen < 4 || clen > (uint64_t)(cc.end - cc.p) ||
			    ehframe__read_n(&cc, 4) != cie_id)
				continue;
			cc.end = cie + 4 + clen;
			if (!read_cie(cc, vaddr, data, &fde.cie))
				continue;
			fde.start = ehframe__read_encoded(&body, fde.cie.enc, vaddr, data);
			/* a size: the encoding's format without its base */
			fde.size = ehframe__read_encoded(&body, fde.cie.enc & 0x0f, vaddr, data);
			if (fde.cie.has_z) {
				uint64_t skip = ehframe__read_leb(&body, false);

				if (skip > (uint64_t)(body.end - body.p))
					continue;
				body.p += skip;
			}
			if (body.bad || !fde.size)
				continue;
			fde.insns = body.p;
			fde.insns_end = body.end;
			err = fn(&fde, arg);
		}
	}
	return err;
}

int ehframe__each_fde(const uint8_t *data, size_t len, uint64_t vaddr,
		      int (*fn)(const struct ehframe_fde *fde, void *arg), void *arg)
{
	return each_fde(data, len, vaddr, false, fn, arg);
}

int ehframe__each_debug_fde(const uint8_t *data, size_t len,
			    int (*fn)(const struct ehframe_fde *fde, void *arg), void *arg)
{
	return each_fde(data, len, 0, true, fn, arg);
}

struct funcs_acc {
	struct ehframe_func *v;
	size_t n, cap;
};

static int add_func(const struct ehframe_fde *fde, void *arg)
{
	struct funcs_acc *a = arg;
	struct ehframe_func *g = grow__reserve(a->v, &a->cap, a->n, sizeof(*g));

	if (!g)
		return -ENOMEM;
	a->v = g;
	g[a->n++] = (struct ehframe_func){ fde->start, fde->size };
	return 0;
}

int ehframe__funcs(const uint8_t *data, size_t len, uint64_t vaddr, struct ehframe_func **out,
		   size_t *n)
{
	struct funcs_acc a = { 0 };
	int err = ehframe__each_fde(data, len, vaddr, add_func, &a);

	*out = a.v;
	*n = a.n;
	return err;
}
