/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The protobuf encoder against the wire format's worked examples, byte for byte. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include "formats/protobuf.h"

static void expect_bytes(const struct pb_buf *b, const uint8_t *want, size_t len)
{
	cr_assert_eq(pb__error(b), 0);
	cr_assert_eq(b->len, len, "length %zu, want %zu", b->len, len);
	for (size_t i = 0; i < len; i++)
		cr_expect_eq(b->data[i], want[i], "byte %zu: %02x, want %02x", i, b->data[i],
			     want[i]);
}

Test(protobuf, varint_field)
{
	static const uint8_t want[] = { 0x08, 0x96, 0x01 };
	struct pb_buf b = {};

	pb__uint(&b, 1, 150);
	expect_bytes(&b, want, sizeof(want));
	pb__reset(&b);
}

Test(protobuf, varint_edges)
{
	static const uint8_t want[] = { 0x00, 0x7f, 0x80, 0x01, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	struct pb_buf b = {};

	pb__varint(&b, 0);
	pb__varint(&b, 127);
	pb__varint(&b, 128);
	pb__varint(&b, (uint64_t)-1); /* an int64 -1 */
	expect_bytes(&b, want, sizeof(want));
	pb__reset(&b);
}

Test(protobuf, string_field)
{
	static const uint8_t want[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g', 0x32, 0x00 };
	struct pb_buf b = {};

	pb__string(&b, 2, "testing");
	pb__string(&b, 6, "");
	expect_bytes(&b, want, sizeof(want));
	pb__reset(&b);
}

Test(protobuf, nested_message)
{
	static const uint8_t want[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	struct pb_buf b = {}, m = {};

	pb__uint(&m, 1, 150);
	pb__message(&b, 3, &m);
	expect_bytes(&b, want, sizeof(want));
	pb__reset(&b);
	pb__reset(&m);
}

Test(protobuf, packed_repeated)
{
	static const uint8_t want[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 };
	static const uint64_t v[] = { 3, 270, 86942 };
	struct pb_buf b = {};

	pb__packed(&b, 4, v, 3);
	pb__packed(&b, 5, v, 0); /* nothing at all */
	expect_bytes(&b, want, sizeof(want));
	pb__reset(&b);
}

/* time_unix_nano = 3 (fixed64): key 0x19, then the 8 bytes little-endian */
Test(protobuf, fixed64_field)
{
	static const uint8_t want[] = { 0x19, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };
	struct pb_buf b = {};

	pb__fixed64(&b, 3, 0x0102030405060708ull);
	expect_bytes(&b, want, sizeof(want));
	pb__reset(&b);
}

Test(protobuf, large_field_number_and_long_content)
{
	char text[300];
	struct pb_buf b = {};

	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	pb__string(&b, 16, text); /* key (16 << 3 | 2) = 130: two bytes; length 299: two */
	cr_assert_eq(b.len, 2 + 2 + 299);
	cr_expect_eq(b.data[0], 0x82);
	cr_expect_eq(b.data[1], 0x01);
	cr_expect_eq(b.data[2], 0xab);
	cr_expect_eq(b.data[3], 0x02);
	cr_expect_eq(b.data[4], 'x');
	pb__reset(&b);
}

Test(protobuf, nomem_sticks_through_messages)
{
	struct pb_buf b = {}, m = { .nomem = true };

	pb__message(&b, 1, &m);
	cr_expect_eq(pb__error(&b), -ENOMEM);
	pb__reset(&b);
	cr_expect_eq(pb__error(&b), 0);
}
