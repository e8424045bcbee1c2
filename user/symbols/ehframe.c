// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * .eh_frame as the System V x86-64 ABI and the LSB describe it: records of a 32-bit length
 * (0xffffffff: a 64-bit one follows; 0: the end), then a 32-bit id, 0 for a CIE, else the
 * distance back to the FDE's CIE. Only what locates an FDE is read: the CIE's augmentation
 * ('z' data, 'R' pointer encoding, 'P' personality to skip over) and the FDE's initial
 * location and range. The call frame instructions are not interpreted.
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

/* A bounded reader: every read checks that it stays inside [p, end). */
struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t read_n(struct cursor *c, size_t n)
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

static uint64_t read_leb(struct cursor *c, bool is_signed)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)read_n(c, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (!c->bad && (b & 0x80));
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~0ULL << shift;
	return v;
}

/* A pointer encoded as @enc at the cursor; @vaddr is the section's address, @base its data. */
static uint64_t read_encoded(struct cursor *c, uint8_t enc, uint64_t vaddr, const uint8_t *base)
{
	uint64_t at = vaddr + (uint64_t)(c->p - base), v;

	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		v = read_n(c, 8);
		break;
	case PE_ULEB128:
		v = read_leb(c, false);
		break;
	case PE_SLEB128:
		v = read_leb(c, true);
		break;
	case PE_UDATA2:
		v = read_n(c, 2);
		break;
	case PE_SDATA2:
		v = (uint64_t)(int64_t)(int16_t)read_n(c, 2);
		break;
	case PE_UDATA4:
		v = read_n(c, 4);
		break;
	case PE_SDATA4:
		v = (uint64_t)(int64_t)(int32_t)read_n(c, 4);
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

/* The FDE pointer encoding of the CIE at @cie (its body after the id), or PE_OMIT. */
static uint8_t cie_encoding(struct cursor c, uint64_t vaddr, const uint8_t *base)
{
	uint8_t version = (uint8_t)read_n(&c, 1), enc = PE_ABSPTR;
	const char *aug = (const char *)c.p;
	size_t auglen = strnlen(aug, (size_t)(c.end - c.p));

	if (c.bad || auglen == (size_t)(c.end - c.p))
		return PE_OMIT;
	c.p += auglen + 1;
	if (strstr(aug, "eh")) /* pre-1997 GCC: a pointer-sized field */
		read_n(&c, 8);
	read_leb(&c, false); /* code alignment */
	read_leb(&c, true);  /* data alignment */
	if (version == 1)
		read_n(&c, 1);
	else
		read_leb(&c, false); /* return address register */
	if (aug[0] != 'z')
		return c.bad ? PE_OMIT : enc;
	read_leb(&c, false); /* the augmentation data's length */
	for (size_t i = 1; i < auglen && !c.bad; i++) {
		switch (aug[i]) {
		case 'R':
			enc = (uint8_t)read_n(&c, 1);
			break;
		case 'L':
			read_n(&c, 1);
			break;
		case 'P': {
			uint8_t penc = (uint8_t)read_n(&c, 1);

			read_encoded(&c, penc & 0x7f, vaddr, base); /* indirect bit: still read */
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			return enc; /* an unknown letter: what follows cannot be parsed, R came first */
		}
	}
	return c.bad ? PE_OMIT : enc;
}

static int push(struct ehframe_func **v, size_t *n, size_t *cap, uint64_t start, uint64_t size)
{
	struct ehframe_func *g = grow__reserve(*v, cap, *n, sizeof(*g));

	if (!g)
		return -ENOMEM;
	*v = g;
	g[(*n)++] = (struct ehframe_func){ start, size };
	return 0;
}

int ehframe__funcs(const uint8_t *data, size_t len, uint64_t vaddr, struct ehframe_func **out,
		   size_t *n)
{
	struct cursor c = { .p = data, .end = data + len };
	size_t cap = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	while (!err && !c.bad && c.p < c.end) {
		uint64_t length = read_n(&c, 4), id;
		struct cursor body;

		if (length == 0xffffffff)
			length = read_n(&c, 8);
		if (c.bad || length == 0 || length > (uint64_t)(c.end - c.p))
			break; /* the terminator, or a truncated section */
		body = (struct cursor){ .p = c.p, .end = c.p + length };
		c.p += length;
		id = read_n(&body, 4);
		if (id) { /* an FDE: its CIE is @id bytes before the id field */
			const uint8_t *cie = body.p - 4 - id;
			struct cursor cc = { .p = cie, .end = c.end };
			uint64_t clen, start, range;
			uint8_t enc;

			if (id > (uint64_t)(body.p - 4 - data))
				continue;
			clen = read_n(&cc, 4);
			if (clen == 0xffffffff || clen < 4 || clen > (uint64_t)(cc.end - cc.p) ||
			    read_n(&cc, 4) != 0)
				continue;
			cc.end = cie + 4 + clen;
			enc = cie_encoding(cc, vaddr, data);
			if (enc == PE_OMIT)
				continue;
			start = read_encoded(&body, enc, vaddr, data);
			range = read_encoded(&body, enc & 0x0f, vaddr,
					     data); /* a size: not applied */
			if (!body.bad && range)
				err = push(out, n, &cap, start, range);
		}
	}
	return err;
}
