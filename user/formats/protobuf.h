/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The little of the protocol buffers wire format a profile needs: varints, length-delimited
 * fields (strings, bytes, nested messages) and packed repeated integers. Writes into a growing
 * memory buffer whose first allocation failure sticks, so a writer checks once at the end.
 */
#ifndef FAULTLINE_PROTOBUF_H
#define FAULTLINE_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Wire types. */
enum {
	PB_VARINT = 0,
	PB_FIXED64 = 1,
	PB_LEN = 2
};

struct pb_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	bool nomem; /* an append failed: the content is incomplete */
};

/* Frees @b's data and leaves it empty (reusable). */
void pb__reset(struct pb_buf *b);
/* Empties @b but keeps its memory, and forgets an earlier failure: for the next message. */
void pb__rewind(struct pb_buf *b);

/* The base-128 varint of @v (an int64 is written as its two's complement: 10 bytes if < 0). */
void pb__varint(struct pb_buf *b, uint64_t v);
/* A field of wire type VARINT. Written even when @v is 0 (callers omit defaults). */
void pb__uint(struct pb_buf *b, uint32_t field, uint64_t v);
/* A field of wire type I64 (fixed64: 8 bytes, little-endian). */
void pb__fixed64(struct pb_buf *b, uint32_t field, uint64_t v);
/* A length-delimited field holding @len bytes of @data (a string, bytes, a message). */
void pb__bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len);
/* pb__bytes of the NUL-terminated @s. */
void pb__string(struct pb_buf *b, uint32_t field, const char *s);
/* A nested message already encoded in @msg (its own nomem carries over). */
void pb__message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg);
/* A packed repeated integer field: one length-delimited field of @n varints; nothing when
 * @n is 0. */
void pb__packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);

/* 0, or -ENOMEM when some append failed. */
int pb__error(const struct pb_buf *b);

#endif /* FAULTLINE_PROTOBUF_H */
