// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "formats/jsonprofile.h"
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"
#include "formats/foldedread.h"
#include "formats/jsonread.h"
#include "formats/jsonreport.h"

/* The whole of @in, NUL-terminated, in *@buf. */
static int slurp(FILE *in, char **buf, size_t *len)
{
	size_t cap = 0, n = 0, got;
	char *b = NULL, *bigger;

	do {
		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 65536;
			bigger = realloc(b, cap + 1);
			if (!bigger) {
				free(b);
				return -ENOMEM;
			}
			b = bigger;
		}
		got = fread(b + n, 1, cap - n, in);
		n += got;
	} while (got);
	if (ferror(in)) {
		free(b);
		return -EIO;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

struct jp {
	const char *name;
	FILE *errs;
	size_t bad; /* problems found: the first FOLDED_MAX_ERRORS reported, the rest counted */
};

/* "faultline: NAME:LINE: PATH[.KEY]: what" for a problem at @at. */
__attribute__((format(printf, 5, 6))) static void
problem(struct jp *r, const struct jv *at, const char *path, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (++r->bad > FOLDED_MAX_ERRORS)
		return;
	fprintf(r->errs, "faultline: %s:%zu: %s%s%s: ", r->name, at->line, path, key ? "." : "",
		key ? key : "");
	va_start(ap, fmt);
	vfprintf(r->errs, fmt, ap);
	va_end(ap);
	fputc('\n', r->errs);
}

/* Why @v is no counter (a whole number written in digits, 0..2^64-1, or with @is_signed
 * -2^63..2^63-1) into @why, or NULL when it is one: *@u or *@s set. */
static const char *not_a_counter(const struct jv *v, bool is_signed, uint64_t *u, int64_t *s,
				 char *why, size_t len)
{
	static const char *const
		types[] = { [JV_NULL] = "null", [JV_ARR] = "an array", [JV_OBJ] = "an object" };
	char tmp[48];

	if (v->type == JV_STR) {
		snprintf(tmp, sizeof(tmp), "%.40s", v->text);
		units__sanitize(tmp);
		snprintf(why, len, "\"%s\" is a string, not a number", tmp);
	} else if (v->type != JV_NUM)
		snprintf(why, len, "%s is not a number",
			 v->type == JV_BOOL ? (v->b ? "true" : "false") : types[v->type]);
	else if (strpbrk(v->text, ".eE"))
		snprintf(why, len, "%.40s is not a whole number", v->text);
	else if (is_signed ? jv_i64(v, s) : jv_u64(v, u))
		return NULL;
	else if (is_signed)
		snprintf(why, len, "%.40s is outside -2^63..2^63-1", v->text);
	else if (v->text[0] == '-')
		snprintf(why, len, "%.40s is negative", v->text);
	else
		snprintf(why, len, "%.40s is 2^64 or more", v->text);
	return why;
}

/* Member @key of @o into *@out when it is a counter; absent (an option that was off) leaves
 * *@out; anything else is a problem. */
static void read_u64(struct jp *r, const struct jv *o, const char *path, const char *key,
		     __u64 *out)
{
	const struct jv *v = jv_get(o, key);
	char why[96];
	uint64_t u;

	if (!v)
		return;
	if (not_a_counter(v, false, &u, NULL, why, sizeof(why)))
		problem(r, v, path, key, "%s", why);
	else
		*out = u;
}

static void read_kinds(struct jp *r, const struct jv *counts, const char *path, const char *key,
		       __u64 v[FL_MEMBERS])
{
	static const struct {
		const char *key;
		int member;
	} kinds[] = { { "anon", FL_ANON },
		      { "file", FL_FILE },
		      { "shmem", FL_SHMEM },
		      { "swap", FL_SWAP } };
	const struct jv *o = jv_get(counts, key);
	char sub[96];

	if (!o)
		return;
	if (o->type != JV_OBJ) {
		problem(r, o, path, key, "not an object");
		return;
	}
	snprintf(sub, sizeof(sub), "%s.%s", path, key);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		read_u64(r, o, sub, kinds[i].key, &v[kinds[i].member]);
}

/* A counts object (docs/json.md) at @path as struct fl_counts; members absent (an option that
 * was off) stay 0, members not known are skipped (additive changes keep the schema). */
static struct fl_counts read_counts(struct jp *r, const struct jv *o, const char *path)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
		{ "faults", offsetof(struct fl_counts, faults) },
		{ "write_faults", offsetof(struct fl_counts, write_faults) },
		{ "allocs", offsetof(struct fl_counts, allocs) },
		{ "alloc_bytes", offsetof(struct fl_counts, alloc_bytes) },
		{ "frees", offsetof(struct fl_counts, frees) },
		{ "free_bytes", offsetof(struct fl_counts, free_bytes) },
		{ "unmatched_frees", offsetof(struct fl_counts, unmatched_frees) },
		{ "reserved", offsetof(struct fl_counts, reserved) },
		{ "unmapped", offsetof(struct fl_counts, unmapped) },
		{ "advised", offsetof(struct fl_counts, advised) },
		{ "vm_calls", offsetof(struct fl_counts, vm_calls) },
		{ "vm_failed", offsetof(struct fl_counts, vm_failed) },
		{ "new_bytes", offsetof(struct fl_counts, new_bytes) },
	};
	const struct jv *peak = jv_get(o, "at_peak");
	struct fl_counts c = { 0 };
	char why[96];
	int64_t s;

	read_kinds(r, o, path, "growth", c.grow);
	read_kinds(r, o, path, "released", c.release);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		read_u64(r, o, path, fields[i].key, (__u64 *)((char *)&c + fields[i].off));
	if (peak && not_a_counter(peak, true, NULL, &s, why, sizeof(why)))
		problem(r, peak, path, "at_peak", "%s", why);
	else if (peak)
		c.at_peak = s;
	return c;
}

/* Adds entry @i of "stacks" ({"frames": [...], "counts": {...}}) to @p: 0, -EINVAL (its
 * problems reported) or -ENOMEM. */
static int add_stack(struct jp *r, struct profile *p, const struct jv *st, size_t i)
{
	const struct jv *fr = jv_get(st, "frames"), *counts = jv_get(st, "counts");
	const char *names[FOLDED_MAX_FRAMES];
	size_t bad = r->bad;
	struct fl_counts c;
	char path[48];

	snprintf(path, sizeof(path), "stacks[%zu]", i);
	if (st->type != JV_OBJ) {
		problem(r, st, path, NULL, "not an object");
		return -EINVAL;
	}
	if (!fr || fr->type != JV_ARR)
		problem(r, fr ? fr : st, path, "frames", "missing or not an array");
	else if (!fr->n || fr->n > FOLDED_MAX_FRAMES)
		problem(r, fr, path, "frames", "%zu frames (1 to %d expected)", fr->n,
			FOLDED_MAX_FRAMES);
	for (size_t j = 0; r->bad == bad && fr && fr->type == JV_ARR && j < fr->n; j++) {
		char item[32];

		snprintf(item, sizeof(item), "frames[%zu]", j);
		if (fr->items[j].type != JV_STR)
			problem(r, &fr->items[j], path, item, "not a string");
		names[j] = fr->items[j].text;
	}
	if (!counts || counts->type != JV_OBJ) {
		problem(r, counts ? counts : st, path, "counts", "missing or not an object");
		return -EINVAL;
	}
	strncat(path, ".counts", sizeof(path) - strlen(path) - 1);
	c = read_counts(r, counts, path);
	return r->bad != bad ? -EINVAL : profile__add(p, names, fr->n, &c);
}

/*
 * The last document of @text into @root: the last non-blank line alone when it is one (a
 * --json-stream file, or a one-line --json), else every document in turn (a re-indented one
 * spans lines). 0, -EINVAL after reporting, or -ENOMEM.
 */
static int last_document(struct jp *r, const char *text, size_t len, struct jv *root)
{
	size_t end = len, start, line = 1, used, off = 0;
	bool have = false;
	struct jv next;
	int err;

	while (end > 0 && strchr(" \t\r\n", text[end - 1]))
		end--;
	for (start = end; start > 0 && text[start - 1] != '\n'; start--)
		;
	for (size_t i = 0; i < start; i++)
		line += text[i] == '\n';
	err = jv_parse_next(text + start, end - start, &line, &used, root);
	if (!err && used == end - start)
		return 0;
	if (!err)
		jv_free(root);
	if (err == -ENOMEM)
		return err;
	for (line = 1; off < len; off += used) {
		err = jv_parse_next(text + off, len - off, &line, &used, &next);
		if (err)
			break;
		if (have)
			jv_free(root);
		*root = next;
		have = true;
	}
	if (err && have)
		jv_free(root);
	if (err == -EINVAL)
		fprintf(r->errs, "faultline: %s:%zu: not valid JSON\n", r->name, line);
	return err;
}

static bool option_true(const struct jv *options, const char *key)
{
	const struct jv *v = options ? jv_get(options, key) : NULL;

	return v && v->type == JV_BOOL && v->b;
}

static void read_scope(const struct jv *root, struct jsonprofile_scope *scope)
{
	const struct jv *o = jv_get(root, "options"), *mode = o ? jv_get(o, "alloc_mode") : NULL;

	scope->known = o && o->type == JV_OBJ;
	scope->alloc = option_true(o, "alloc");
	scope->churn = scope->alloc && mode && mode->type == JV_STR && !strcmp(mode->text, "churn");
	scope->vm = option_true(o, "vm");
	scope->new_pages = option_true(o, "new_pages");
}

int jsonprofile__read(FILE *in, const char *name, struct profile *p, FILE *errs,
		      struct jsonprofile_scope *scope)
{
	struct jp r = { .name = name, .errs = errs };
	const struct jv *schema, *stacks;
	struct jv root;
	size_t len;
	char *text;
	int err = slurp(in, &text, &len);

	if (err) {
		fprintf(errs, "faultline: reading %s failed: %s\n", name, strerror(-err));
		return err;
	}
	err = last_document(&r, text, len, &root);
	free(text);
	if (err)
		return err;
	schema = jv_get(&root, "schema");
	stacks = jv_get(&root, "stacks");
	if (!schema || schema->type != JV_STR || strcmp(schema->text, JSONREPORT_SCHEMA) ||
	    !stacks || stacks->type != JV_ARR) {
		fprintf(errs, "faultline: %s: not a faultline JSON profile (schema %s, stacks)\n",
			name, JSONREPORT_SCHEMA);
		jv_free(&root);
		return -EINVAL;
	}
	if (scope)
		read_scope(&root, scope);
	for (size_t i = 0; i < stacks->n && err != -ENOMEM; i++)
		err = add_stack(&r, p, &stacks->items[i], i) ?: err;
	if (r.bad > FOLDED_MAX_ERRORS)
		fprintf(errs, "faultline: %s: %zu more problem%s\n", name,
			r.bad - FOLDED_MAX_ERRORS, r.bad - FOLDED_MAX_ERRORS > 1 ? "s" : "");
	jv_free(&root);
	return err;
}
