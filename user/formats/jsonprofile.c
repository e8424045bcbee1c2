// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "formats/jsonprofile.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

/* The last non-blank line of @s (a stream's final document), or all of it. */
static const char *last_document(const char *s, size_t len, size_t *doc_len)
{
	size_t end = len, start;

	while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r' || s[end - 1] == ' '))
		end--;
	start = end;
	while (start > 0 && s[start - 1] != '\n')
		start--;
	*doc_len = end - start;
	return s + start;
}

static void read_kinds(const struct jv *o, __u64 v[FL_MEMBERS])
{
	static const struct {
		const char *key;
		int member;
	} kinds[] = { { "anon", FL_ANON },
		      { "file", FL_FILE },
		      { "shmem", FL_SHMEM },
		      { "swap", FL_SWAP } };
	uint64_t x;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (jv_u64(jv_get(o, kinds[i].key), &x))
			v[kinds[i].member] = x;
}

/* A counts object (docs/json.md) as struct fl_counts; members absent (an option that was
 * off) stay 0. */
static struct fl_counts read_counts(const struct jv *o)
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
	};
	struct fl_counts c = { 0 };
	uint64_t v;
	int64_t s;

	read_kinds(jv_get(o, "growth"), c.grow);
	read_kinds(jv_get(o, "released"), c.release);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (jv_u64(jv_get(o, fields[i].key), &v))
			memcpy((char *)&c + fields[i].off, &v, sizeof(v));
	if (jv_i64(jv_get(o, "at_peak"), &s))
		c.at_peak = s;
	return c;
}

/* Adds stack @st ({"frames": [...], "counts": {...}}) to @p; -EINVAL when malformed. */
static int add_stack(struct profile *p, const struct jv *st)
{
	const struct jv *fr = jv_get(st, "frames"), *counts = jv_get(st, "counts");
	const char *names[FOLDED_MAX_FRAMES];
	struct fl_counts c;

	if (!fr || fr->type != JV_ARR || !fr->n || fr->n > FOLDED_MAX_FRAMES || !counts ||
	    counts->type != JV_OBJ)
		return -EINVAL;
	for (size_t i = 0; i < fr->n; i++) {
		if (fr->items[i].type != JV_STR)
			return -EINVAL;
		names[i] = fr->items[i].text;
	}
	c = read_counts(counts);
	return profile__add(p, names, fr->n, &c);
}

int jsonprofile__read(FILE *in, const char *name, struct profile *p, FILE *errs)
{
	const struct jv *schema, *stacks;
	const char *doc;
	struct jv root;
	size_t len, doc_len;
	char *text;
	int err = slurp(in, &text, &len);

	if (err) {
		fprintf(errs, "faultline: reading %s failed: %s\n", name, strerror(-err));
		return err;
	}
	doc = last_document(text, len, &doc_len);
	err = jv_parse(doc, doc_len, &root);
	free(text);
	if (err) {
		fprintf(errs, "faultline: %s: %s\n", name,
			err == -ENOMEM ? "out of memory" : "not valid JSON");
		return err;
	}
	schema = jv_get(&root, "schema");
	stacks = jv_get(&root, "stacks");
	if (!schema || schema->type != JV_STR || strcmp(schema->text, JSONREPORT_SCHEMA) ||
	    !stacks || stacks->type != JV_ARR) {
		fprintf(errs, "faultline: %s: not a faultline JSON profile (schema %s, stacks)\n",
			name, JSONREPORT_SCHEMA);
		jv_free(&root);
		return -EINVAL;
	}
	for (size_t i = 0; i < stacks->n && !err; i++) {
		err = add_stack(p, &stacks->items[i]);
		if (err == -EINVAL)
			fprintf(errs, "faultline: %s: stacks[%zu] is malformed\n", name, i);
	}
	jv_free(&root);
	return err;
}
