/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* A protobuf reader for the tests of the encoders (pprof, OTLP): fields one by one, asserting
 * on anything malformed. */
#ifndef FAULTLINE_TEST_PBREAD_H
#define FAULTLINE_TEST_PBREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One decoded field: a varint or a fixed64 in @v, or the bytes of a length-delimited one. */
struct pb_field {
	uint32_t num;
	int wire;
	uint64_t v;
	const uint8_t *p;
	size_t len;
};

uint64_t pbr_varint(const uint8_t **p, const uint8_t *end);
/* The next field of [*p, end): false at the end. Wire types 0, 1 and 2 only. */
bool pbr_next(const uint8_t **p, const uint8_t *end, struct pb_field *f);
/* A packed repeated varint field (or a lone varint of it) appended to @out, which holds @cap;
 * returns the new count. */
size_t pbr_unpack(const struct pb_field *f, uint64_t *out, size_t n, size_t cap);

#endif /* FAULTLINE_TEST_PBREAD_H */
