/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A small streaming JSON writer: compact output (no spaces, no newlines) straight to a FILE *,
 * integers printed as integers, every string escaped so that the output is valid JSON whatever
 * bytes a frame or thread name holds.
 *
 * Each call that adds a value takes the member name @key inside an object and NULL inside an
 * array or for the top-level value. Calls return nothing: the first failure (a write error,
 * or misuse such as a key inside an array) is kept, later calls do nothing, and json__finish()
 * returns it.
 */
#ifndef FAULTLINE_JSON_H
#define FAULTLINE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int err; /* 0, or the first failure as -errno */
	/* private: the open containers, innermost last */
	unsigned depth;
	bool in_array[JSON_MAX_DEPTH];
	bool has_items[JSON_MAX_DEPTH];
	bool done; /* the top-level value is complete */
};

/* Starts a document written to @out. */
void json__init(struct json *j, FILE *out);

void json__object_begin(struct json *j, const char *key);
void json__object_end(struct json *j);
void json__array_begin(struct json *j, const char *key);
void json__array_end(struct json *j);

void json__u64(struct json *j, const char *key, uint64_t v);
void json__i64(struct json *j, const char *key, int64_t v);
void json__bool(struct json *j, const char *key, bool v);
void json__null(struct json *j, const char *key);
/* @s escaped: '"', '\\' and control characters (U+0000..U+001F, U+007F) as escapes; bytes
 * that are not well-formed UTF-8 as \ufffd, one per maximal invalid subpart (Unicode's
 * recommended practice); well-formed UTF-8 copied as it is. NULL is written as null. */
void json__str(struct json *j, const char *key, const char *s);
/* json__str() of at most @n bytes of @s (stops at a NUL): fixed-size buffers such as comm. */
void json__strn(struct json *j, const char *key, const char *s, size_t n);
/* @v with exactly @decimals (0..9) digits after the point, rounded half away from zero,
 * printed without the C library's locale; null when |@v| is too large or not finite. */
void json__fixed(struct json *j, const char *key, double v, unsigned decimals);

/*
 * Ends the document: checks that every container was closed and a value written, then writes
 * "\n" and flushes @out. Returns 0, -EINVAL on misuse, or -errno of the failed write (-EIO
 * when the C library does not say).
 */
int json__finish(struct json *j);

#endif /* FAULTLINE_JSON_H */
