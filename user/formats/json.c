// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * The JSON writer. Strings come from the target (frame names demangled from its binaries,
 * thread names it set itself), so no byte of them can be trusted to be valid UTF-8: each is
 * checked against the well-formed byte sequences of the Unicode standard (table 3-7), which
 * also rules out overlong forms, surrogates and code points above U+10FFFF.
 */
#include "formats/json.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "base/units.h"

void json__init(struct json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

static void fail(struct json *j, int err)
{
	if (!j->err)
		j->err = err;
}

static void write_failed(struct json *j)
{
	fail(j, errno ? -errno : -EIO);
}

static void put(struct json *j, const char *s, size_t n)
{
	if (j->err || !n)
		return;
	errno = 0;
	if (fwrite(s, 1, n, j->out) != n)
		write_failed(j);
}

static void puts_(struct json *j, const char *s)
{
	put(j, s, strlen(s));
}

static void put_string(struct json *j, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, len, bad;

	if (!str) {
		puts_(j, "null");
		return;
	}
	puts_(j, "\"");
	/* runs of bytes that need no escape are written in one go */
	while (i < n && s[i]) {
		unsigned char c = s[i];
		char esc[7] = { '\\', 0 };

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x7f) {
			i++;
			run++;
			continue;
		}
		if (c >= 0x80 && (len = units__utf8_len(s + i, n - i, &bad))) {
			i += len;
			run += len;
			continue;
		}
		put(j, (const char *)s + i - run, run);
		run = 0;
		if (c >= 0x80) {
			puts_(j, "\\ufffd");
			i += bad;
			continue;
		}
		switch (c) {
		case '"':
		case '\\':
			esc[1] = (char)c;
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
		}
		puts_(j, esc);
		i++;
	}
	put(j, (const char *)s + i - run, run);
	puts_(j, "\"");
}

/* Before a value: the comma and the member name, after checking that @key fits the place. */
static bool value_start(struct json *j, const char *key)
{
	bool in_object = j->depth && !j->in_array[j->depth - 1];

	if (j->err)
		return false;
	if (j->done || in_object != (key != NULL)) {
		fail(j, -EINVAL);
		return false;
	}
	if (j->depth && j->has_items[j->depth - 1])
		puts_(j, ",");
	if (j->depth)
		j->has_items[j->depth - 1] = true;
	if (key) {
		put_string(j, key, strlen(key));
		puts_(j, ":");
	}
	return !j->err;
}

static void value_end(struct json *j)
{
	if (!j->depth)
		j->done = true;
}

static void begin(struct json *j, const char *key, bool array)
{
	if (!value_start(j, key))
		return;
	if (j->depth == JSON_MAX_DEPTH) {
		fail(j, -EINVAL);
		return;
	}
	puts_(j, array ? "[" : "{");
	j->in_array[j->depth] = array;
	j->has_items[j->depth] = false;
	j->depth++;
}

static void end(struct json *j, bool array)
{
	if (j->err)
		return;
	if (!j->depth || j->in_array[j->depth - 1] != array) {
		fail(j, -EINVAL);
		return;
	}
	j->depth--;
	puts_(j, array ? "]" : "}");
	value_end(j);
}

void json__object_begin(struct json *j, const char *key)
{
	begin(j, key, false);
}

void json__object_end(struct json *j)
{
	end(j, false);
}

void json__array_begin(struct json *j, const char *key)
{
	begin(j, key, true);
}

void json__array_end(struct json *j)
{
	end(j, true);
}

static void scalar(struct json *j, const char *key, const char *text)
{
	if (!value_start(j, key))
		return;
	puts_(j, text);
	value_end(j);
}

void json__u64(struct json *j, const char *key, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	scalar(j, key, b);
}

void json__i64(struct json *j, const char *key, int64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%" PRId64, v);
	scalar(j, key, b);
}

void json__bool(struct json *j, const char *key, bool v)
{
	scalar(j, key, v ? "true" : "false");
}

void json__null(struct json *j, const char *key)
{
	scalar(j, key, "null");
}

void json__strn(struct json *j, const char *key, const char *s, size_t n)
{
	if (!value_start(j, key))
		return;
	put_string(j, s, n);
	value_end(j);
}

void json__str(struct json *j, const char *key, const char *s)
{
	json__strn(j, key, s, SIZE_MAX);
}

void json__fixed(struct json *j, const char *key, double v, unsigned decimals)
{
	uint64_t scale = 1, whole, frac, units;
	char b[48];
	bool neg = v < 0;

	if (decimals > 9) {
		fail(j, -EINVAL);
		return;
	}
	for (unsigned i = 0; i < decimals; i++)
		scale *= 10;
	/* 2^53: beyond it a double no longer holds every integer, so the digits would lie */
	if (!isfinite(v) || fabs(v) * (double)scale >= 9007199254740992.0) {
		json__null(j, key);
		return;
	}
	units = (uint64_t)(fabs(v) * (double)scale + 0.5);
	whole = units / scale;
	frac = units % scale;
	if (decimals)
		snprintf(b, sizeof(b), "%s%" PRIu64 ".%0*" PRIu64, neg && units ? "-" : "", whole,
			 (int)decimals, frac);
	else
		snprintf(b, sizeof(b), "%s%" PRIu64, neg && units ? "-" : "", whole);
	scalar(j, key, b);
}

int json__finish(struct json *j)
{
	if (!j->err && (j->depth || !j->done))
		fail(j, -EINVAL);
	puts_(j, "\n");
	errno = 0;
	if (!j->err && fflush(j->out) == EOF)
		write_failed(j);
	return j->err;
}
