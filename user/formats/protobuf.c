// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "formats/protobuf.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pb__reset(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void pb__rewind(struct pb_buf *b)
{
	b->len = 0;
	b->nomem = false;
}

/* Room for @n more bytes; false (and nomem set) when there is none. */
static bool reserve(struct pb_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *d;

	if (b->nomem)
		return false;
	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n)
		cap *= 2;
	d = realloc(b->data, cap);
	if (!d) {
		b->nomem = true;
		return false;
	}
	b->data = d;
	b->cap = cap;
	return true;
}

static void append(struct pb_buf *b, const void *data, size_t len)
{
	if (len && reserve(b, len)) {
		memcpy(b->data + b->len, data, len);
		b->len += len;
	}
}

/* Writes the varint of @v into @out (10 bytes at most); returns its length. */
static size_t varint_encode(uint64_t v, uint8_t out[10])
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

void pb__varint(struct pb_buf *b, uint64_t v)
{
	uint8_t tmp[10];

	append(b, tmp, varint_encode(v, tmp));
}

static void key(struct pb_buf *b, uint32_t field, unsigned wire)
{
	pb__varint(b, (uint64_t)field << 3 | wire);
}

void pb__uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	key(b, field, PB_VARINT);
	pb__varint(b, v);
}

void pb__fixed64(struct pb_buf *b, uint32_t field, uint64_t v)
{
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	key(b, field, PB_FIXED64);
	append(b, le, sizeof(le));
}

void pb__bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len)
{
	key(b, field, PB_LEN);
	pb__varint(b, len);
	append(b, data, len);
}

void pb__string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb__bytes(b, field, s, strlen(s));
}

void pb__message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg)
{
	if (msg->nomem)
		b->nomem = true;
	pb__bytes(b, field, msg->data, msg->len);
}

void pb__packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	uint8_t tmp[10];
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += varint_encode(v[i], tmp);
	key(b, field, PB_LEN);
	pb__varint(b, len);
	for (size_t i = 0; i < n; i++)
		pb__varint(b, v[i]);
}

int pb__error(const struct pb_buf *b)
{
	return b->nomem ? -ENOMEM : 0;
}
