// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "unit/pbread.h"
#include <criterion/criterion.h>

uint64_t pbr_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int shift = 0; *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	cr_assert_fail("truncated varint");
	return 0;
}

bool pbr_next(const uint8_t **p, const uint8_t *end, struct pb_field *f)
{
	uint64_t key;

	if (*p >= end)
		return false;
	key = pbr_varint(p, end);
	f->num = (uint32_t)(key >> 3);
	f->wire = (int)(key & 7);
	cr_assert(f->wire == 0 || f->wire == 1 || f->wire == 2, "wire type %d", f->wire);
	if (f->wire == 0) {
		f->v = pbr_varint(p, end);
		return true;
	}
	if (f->wire == 1) {
		cr_assert_leq(8, end - *p, "fixed64 past the end");
		f->v = 0;
		for (int i = 0; i < 8; i++)
			f->v |= (uint64_t)(*p)[i] << (8 * i);
		*p += 8;
		return true;
	}
	f->len = pbr_varint(p, end);
	cr_assert_leq(f->len, (size_t)(end - *p), "length past the end");
	f->p = *p;
	*p += f->len;
	return true;
}

size_t pbr_unpack(const struct pb_field *f, uint64_t *out, size_t n, size_t cap)
{
	const uint8_t *p = f->p, *end = f->p + f->len;

	if (f->wire == 0) {
		cr_assert_lt(n, cap);
		out[n++] = f->v;
		return n;
	}
	while (p < end) {
		cr_assert_lt(n, cap);
		out[n++] = pbr_varint(&p, end);
	}
	return n;
}
