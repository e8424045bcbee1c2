/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A strict JSON reader: RFC 8259 exactly (no trailing commas, no leading zeros, no raw
 * control characters in strings, every byte of a string well-formed UTF-8, \u escapes with
 * surrogates paired; duplicate member names refused). Numbers keep their text, so integers
 * are read exactly. `faultline diff` reads JSON profiles with it, and the tests read
 * faultline's JSON with it (jsonreport.c's writer shares no code with it).
 */
#ifndef FAULTLINE_JSONREAD_H
#define FAULTLINE_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jv_type {
	JV_NULL,
	JV_BOOL,
	JV_NUM,
	JV_STR,
	JV_ARR,
	JV_OBJ
};

struct jv {
	enum jv_type type;
	bool b;
	char *text;	  /* JV_NUM: the number as written; JV_STR: decoded, NUL-terminated */
	size_t len;	  /* JV_STR: bytes in text (a string may hold U+0000) */
	struct jv *items; /* JV_ARR, JV_OBJ: elements, or members' values */
	char **keys;	  /* JV_OBJ: members' names */
	size_t n;
	size_t cap;  /* JV_ARR, JV_OBJ: room in items (and keys) */
	size_t line; /* where the value starts (1 = the first line of the text) */
};

/* Parses exactly one JSON text (whitespace around it allowed) from @s, @len bytes. Returns 0,
 * -EINVAL (not JSON; @out is then freed) or -ENOMEM. */
int jv_parse(const char *s, size_t len, struct jv *out);
/*
 * Parses the JSON text at the start of @s (@len bytes; whitespace before and after it taken
 * too), for a sequence of texts (a --json-stream file, maybe re-indented). *@line is the line
 * @s starts on, and on return the line where parsing stopped: past the text, or at the error.
 * Returns 0 with *@used the bytes taken, -EINVAL (@out then freed) or -ENOMEM.
 */
int jv_parse_next(const char *s, size_t len, size_t *line, size_t *used, struct jv *out);
void jv_free(struct jv *v);
/* The member @key of object @v, or NULL. */
const struct jv *jv_get(const struct jv *v, const char *key);
/* Members through a dotted path "a.b.c", or NULL. */
const struct jv *jv_path(const struct jv *v, const char *path);
/* True when @v is a number written as a non-negative integer that fits: *@out is it. */
bool jv_u64(const struct jv *v, uint64_t *out);
/* ... a signed integer. */
bool jv_i64(const struct jv *v, int64_t *out);

#endif /* FAULTLINE_JSONREAD_H */
