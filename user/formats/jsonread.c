// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "formats/jsonread.h"
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"

struct jv_parser {
	const unsigned char *s, *end;
	unsigned depth;
	size_t line; /* of *s: newlines appear only between tokens */
};

#define JV_MAX_DEPTH 64

void jv_free(struct jv *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jv_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->text);
	memset(v, 0, sizeof(*v));
}

static void jv_ws(struct jv_parser *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
		p->line += *p->s++ == '\n';
}

static bool jv_lit(struct jv_parser *p, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n))
		return false;
	p->s += n;
	return true;
}

static int jv_hex4(struct jv_parser *p, unsigned *out)
{
	*out = 0;
	for (int i = 0; i < 4; i++, p->s++) {
		unsigned c = p->s < p->end ? *p->s : 0;

		if (c >= '0' && c <= '9')
			*out = *out * 16 + c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*out = *out * 16 + (c | 0x20) - 'a' + 10;
		else
			return -EINVAL;
	}
	return 0;
}

static size_t jv_put_cp(char *o, unsigned cp)
{
	if (cp < 0x80)
		return o[0] = (char)cp, 1;
	if (cp < 0x800)
		return o[0] = (char)(0xc0 | cp >> 6), o[1] = (char)(0x80 | (cp & 63)), 2;
	if (cp < 0x10000)
		return o[0] = (char)(0xe0 | cp >> 12), o[1] = (char)(0x80 | (cp >> 6 & 63)),
		       o[2] = (char)(0x80 | (cp & 63)), 3;
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 63));
	o[2] = (char)(0x80 | (cp >> 6 & 63));
	o[3] = (char)(0x80 | (cp & 63));
	return 4;
}

static int jv_escape(struct jv_parser *p, char *o, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e = p->s < p->end ? strchr(from, *p->s) : NULL;
	unsigned cp, lo;

	if (e && *e && *p->s != 'u') {
		p->s++;
		o[(*n)++] = to[e - from];
		return 0;
	}
	if (p->s >= p->end || *p->s++ != 'u' || jv_hex4(p, &cp))
		return -EINVAL;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return -EINVAL; /* a low surrogate alone */
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (!jv_lit(p, "\\u") || jv_hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return -EINVAL;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	*n += jv_put_cp(o + *n, cp);
	return 0;
}

/* The bytes from @s to the closing quote (or the end): a bound on the decoded length. */
static size_t jv_raw_len(const unsigned char *s, const unsigned char *end)
{
	const unsigned char *q = s;

	while (q < end && *q != '"')
		q += *q == '\\' && q + 1 < end ? 2 : 1;
	return (size_t)(q - s);
}

static int jv_string(struct jv_parser *p, char **out, size_t *outlen)
{
	/* sized by this string, not by the rest of the document: a profile holds a million */
	char *o = malloc(jv_raw_len(p->s + 1, p->end) + 1);
	size_t n = 0, len, bad;

	if (!o)
		return -ENOMEM;
	p->s++; /* the opening quote */
	while (p->s < p->end && *p->s != '"') {
		if (*p->s < 0x20)
			goto bad;
		if (*p->s == '\\') {
			p->s++;
			if (jv_escape(p, o, &n))
				goto bad;
			continue;
		}
		len = units__utf8_len(p->s, (size_t)(p->end - p->s), &bad);
		if (!len)
			goto bad;
		memcpy(o + n, p->s, len);
		n += len;
		p->s += len;
	}
	if (p->s >= p->end)
		goto bad;
	p->s++;
	o[n] = '\0';
	*out = o;
	if (outlen)
		*outlen = n;
	return 0;
bad:
	free(o);
	return -EINVAL;
}

static int jv_number(struct jv_parser *p, struct jv *v)
{
	const unsigned char *start = p->s;

	if (p->s < p->end && *p->s == '-')
		p->s++;
	if (p->s < p->end && *p->s == '0')
		p->s++;
	else if (p->s < p->end && *p->s >= '1' && *p->s <= '9')
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	else
		return -EINVAL;
	if (p->s < p->end && *p->s == '.') {
		if (++p->s >= p->end || *p->s < '0' || *p->s > '9')
			return -EINVAL;
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		if (p->s >= p->end || *p->s < '0' || *p->s > '9')
			return -EINVAL;
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	v->type = JV_NUM;
	v->text = strndup((const char *)start, (size_t)(p->s - start));
	return v->text ? 0 : -ENOMEM;
}

static int jv_value(struct jv_parser *p, struct jv *v);

static int jv_push(struct jv *v, char *key)
{
	if (v->n == v->cap) { /* doubled: a profile's "stacks" holds 100k entries */
		size_t cap = v->cap ? 2 * v->cap : 8;
		void *items = realloc(v->items, cap * sizeof(*v->items)), *keys;

		if (!items)
			return -ENOMEM;
		v->items = items;
		if (v->type == JV_OBJ) {
			keys = realloc(v->keys, cap * sizeof(*v->keys));
			if (!keys)
				return -ENOMEM;
			v->keys = keys;
		}
		v->cap = cap;
	}
	memset(&v->items[v->n], 0, sizeof(*v->items));
	if (v->type == JV_OBJ) {
		for (size_t i = 0; i < v->n; i++)
			if (!strcmp(v->keys[i], key))
				return -EINVAL; /* a duplicate member */
		v->keys[v->n] = key;
	}
	v->n++;
	return 0;
}

static int jv_container(struct jv_parser *p, struct jv *v, bool obj)
{
	char close = obj ? '}' : ']';
	int err;

	v->type = obj ? JV_OBJ : JV_ARR;
	if (++p->depth > JV_MAX_DEPTH)
		return -EINVAL;
	p->s++;
	jv_ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		p->depth--;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		jv_ws(p);
		if (obj) {
			if (p->s >= p->end || *p->s != '"')
				return -EINVAL;
			if ((err = jv_string(p, &key, NULL)))
				return err;
			jv_ws(p);
			if (p->s >= p->end || *p->s++ != ':') {
				free(key);
				return -EINVAL;
			}
		}
		if ((err = jv_push(v, key))) {
			free(key);
			return err;
		}
		if ((err = jv_value(p, &v->items[v->n - 1])))
			return err;
		jv_ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			p->depth--;
			return 0;
		}
		return -EINVAL;
	}
}

static int jv_value(struct jv_parser *p, struct jv *v)
{
	jv_ws(p);
	v->line = p->line;
	if (p->s >= p->end)
		return -EINVAL;
	switch (*p->s) {
	case '{':
		return jv_container(p, v, true);
	case '[':
		return jv_container(p, v, false);
	case '"':
		v->type = JV_STR;
		return jv_string(p, &v->text, &v->len);
	case 't':
	case 'f':
		v->type = JV_BOOL;
		v->b = *p->s == 't';
		return jv_lit(p, v->b ? "true" : "false") ? 0 : -EINVAL;
	case 'n':
		v->type = JV_NULL;
		return jv_lit(p, "null") ? 0 : -EINVAL;
	default:
		return jv_number(p, v);
	}
}

int jv_parse_next(const char *s, size_t len, size_t *line, size_t *used, struct jv *out)
{
	struct jv_parser p = { (const unsigned char *)s, (const unsigned char *)s + len, 0, *line };
	int err;

	memset(out, 0, sizeof(*out));
	err = jv_value(&p, out);
	if (!err)
		jv_ws(&p);
	*line = p.line;
	*used = (size_t)((const char *)p.s - s);
	if (err)
		jv_free(out);
	return err;
}

int jv_parse(const char *s, size_t len, struct jv *out)
{
	size_t line = 1, used;
	int err = jv_parse_next(s, len, &line, &used, out);

	if (!err && used != len) {
		jv_free(out);
		err = -EINVAL;
	}
	return err;
}

/* The member @key of object @v, or NULL. */
const struct jv *jv_get(const struct jv *v, const char *key)
{
	if (!v || v->type != JV_OBJ)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

/* Members through a dotted path "a.b.c", or NULL. */
const struct jv *jv_path(const struct jv *v, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		v = jv_get(v, k);
	return v;
}

/* True when @v is a number written as a non-negative integer that fits: *out is it. */
bool jv_u64(const struct jv *v, uint64_t *out)
{
	char *end;

	if (!v || v->type != JV_NUM || v->text[0] == '-' || strpbrk(v->text, ".eE"))
		return false;
	errno = 0;
	*out = strtoull(v->text, &end, 10);
	return !*end && errno != ERANGE;
}

/* ... a signed integer. */
bool jv_i64(const struct jv *v, int64_t *out)
{
	char *end;

	if (!v || v->type != JV_NUM || strpbrk(v->text, ".eE"))
		return false;
	errno = 0;
	*out = strtoll(v->text, &end, 10);
	return !*end && errno != ERANGE;
}
