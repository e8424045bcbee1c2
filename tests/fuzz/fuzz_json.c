// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * libFuzzer target: the strict JSON reader (jv_parse, and jv_parse_next over a sequence of
 * documents, with the accessors) and the --json profile reader on top of it, then the diff of
 * what it read. Properties beyond the sanitizers: jv_parse accepts a text exactly when
 * jv_parse_next takes all of it, lines only grow, and a profile diffed with itself finds no
 * change.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "formats/jsonprofile.h"
#include "formats/jsonread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

/* Every accessor on every value of @v. */
static void walk(const struct jv *v, size_t depth)
{
	uint64_t u;
	int64_t s;

	if (depth > 100)
		abort(); /* the reader stops at 64 */
	(void)jv_u64(v, &u);
	(void)jv_i64(v, &s);
	(void)jv_get(v, "stacks");
	(void)jv_path(v, "counts.growth.anon");
	for (size_t i = 0; i < v->n; i++)
		walk(&v->items[i], depth + 1);
}

static void parse_alone(const char *text, size_t len)
{
	size_t line = 1, used;
	struct jv v;
	int whole = jv_parse(text, len, &v), next;

	if (!whole) {
		walk(&v, 0);
		jv_free(&v);
	}
	next = jv_parse_next(text, len, &line, &used, &v);
	if (!next)
		jv_free(&v);
	if ((whole == 0) != (next == 0 && used == len) || line < 1)
		abort();
}

/* Documents one after another, as a --json-stream file holds them. */
static void parse_sequence(const char *text, size_t len)
{
	size_t line = 1, off = 0, used;

	while (off < len) {
		size_t before = line;
		struct jv v;

		if (jv_parse_next(text + off, len - off, &line, &used, &v))
			break;
		if (!used || used > len - off || line < before)
			abort();
		jv_free(&v);
		off += used;
	}
}

static void profile_of(const char *text, size_t len)
{
	struct diff_config cfg = { .before = "a",
				   .after = "b",
				   .top = 5,
				   .metric = FL_METRIC_RESIDENT };
	struct profile *p = profile__new();
	FILE *in = fmemopen((void *)text, len, "r");
	struct diff d;

	if (!p || !in)
		abort();
	if (!jsonprofile__read(in, "fuzz.json", p, devnull, NULL)) {
		for (enum fl_metric m = 0; m < FL_METRIC__COUNT; m += 5) {
			if (diff__compute(p, p, m, &d) || d.n || d.total_before != d.total_after)
				abort();
			diff__print(devnull, &d, &cfg, 80);
			diff__fini(&d);
		}
	}
	fclose(in);
	profile__free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	parse_alone((const char *)data, size);
	parse_sequence((const char *)data, size);
	if (size) /* fmemopen refuses a size of 0 */
		profile_of((const char *)data, size);
	return 0;
}
