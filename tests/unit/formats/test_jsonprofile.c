/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Reading a --json profile back for faultline diff: what jsonreport.c wrote, every counter. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/jsonprofile.h"
#include "formats/jsonreport.h"

#define MIB (1024ULL * 1024ULL)

static void add(struct profile *p, const char *leaf, struct fl_counts c)
{
	const char *frames[3] = { "app", "main", leaf };

	cr_assert_eq(profile__add(p, frames, 3, &c), 0);
}

/* A document as --json writes it, with --alloc and --vm figures. */
static char *document(size_t *len)
{
	struct fl_report r = { .final = true, .alloc = true, .vm = true };
	struct jsonreport_opts o = { .version = "0.1.0", .metric = FL_METRIC_RESIDENT,
				     .by_stack = true };
	struct profile *p = profile__new();
	struct fl_counts a = { 0 }, b = { 0 };
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	a.grow[FL_ANON] = 8 * MIB;
	a.grow[FL_FILE] = MIB;
	a.release[FL_ANON] = 2 * MIB;
	a.faults = 2304;
	a.at_peak = -4096;
	b.allocs = 10;
	b.alloc_bytes = 1000;
	b.frees = 4;
	b.free_bytes = 400;
	b.reserved = 16 * MIB;
	b.vm_calls = 3;
	add(p, "touch", a);
	add(p, "grow;with:odd \"name\"", b);
	cr_assert_eq(jsonreport__write(f, &r, p, &o), 0);
	fclose(f);
	profile__free(p);
	return text;
}

static struct profile *read_back(const char *text, size_t len, int want)
{
	struct profile *p = profile__new();
	FILE *in = fmemopen((void *)text, len, "r");
	char *errs = NULL;
	size_t elen;
	FILE *e = open_memstream(&errs, &elen);

	cr_assert(in && e && p);
	cr_expect_eq(jsonprofile__read(in, "x.json", p, e), want, "errors: %s", errs);
	fclose(in);
	fclose(e);
	free(errs);
	return p;
}

Test(jsonprofile, every_counter_comes_back)
{
	size_t len;
	char *text = document(&len);
	struct profile *p = read_back(text, len, 0);
	const struct fl_counts *t = &p->root.total;

	cr_expect_eq(metric__value(t, FL_METRIC_RESIDENT), 9 * MIB);
	cr_expect_eq(metric__value(t, FL_METRIC_RELEASED), 2 * MIB);
	cr_expect_eq(metric__value(t, FL_METRIC_FAULTS), 2304);
	cr_expect_eq(metric__value(t, FL_METRIC_LIVE_BYTES), 600);
	cr_expect_eq(metric__value(t, FL_METRIC_LIVE_COUNT), 6);
	cr_expect_eq(metric__value(t, FL_METRIC_RESERVED), 16 * MIB);
	cr_expect_eq(t->vm_calls, 3);
	cr_expect_eq(t->at_peak, -4096);
	cr_expect_eq(p->nstacks, 2);
	cr_assert_eq(p->root.nchildren, 1);
	cr_expect_str_eq(p->root.children[0]->name, "app");
	profile__free(p);
	free(text);
}

/* A --json-stream file: the last line is the final document. */
Test(jsonprofile, stream_reads_the_last_line)
{
	size_t len;
	char *one = document(&len), *stream = NULL;
	const char *first = "{\"schema\":\"faultline/1\",\"stacks\":[]}\n";
	struct profile *p;

	cr_assert_geq(asprintf(&stream, "%s%s\n", first, one), 0);
	p = read_back(stream, strlen(stream), 0);
	cr_expect_eq(metric__value(&p->root.total, FL_METRIC_RESIDENT), 9 * MIB);
	profile__free(p);
	free(stream);
	free(one);
}

Test(jsonprofile, refuses_what_is_not_a_profile)
{
	static const char *const bad[] = {
		"{\"schema\":\"faultline/1\",\"stacks\":[",	    /* not JSON */
		"{\"schema\":\"other/1\",\"stacks\":[]}",	    /* another schema */
		"{\"schema\":\"faultline/1\"}",			    /* no stacks */
		"{\"schema\":\"faultline/1\",\"stacks\":[{\"frames\":[1],\"counts\":{}}]}",
		"{\"schema\":\"faultline/1\",\"stacks\":[{\"frames\":[],\"counts\":{}}]}",
		"{\"schema\":\"faultline/1\",\"stacks\":[{\"frames\":[\"a\"]}]}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		profile__free(read_back(bad[i], strlen(bad[i]), -EINVAL));
}
