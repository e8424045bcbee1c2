/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Reading a --json profile back for faultline diff: what jsonreport.c wrote, every counter. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/folded.h"
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

/* @text read into a new profile; its messages in *@errs when @errs (else freed). */
static struct profile *read_errs(const char *text, size_t len, int want, char **errs)
{
	struct profile *p = profile__new();
	FILE *in = fmemopen((void *)text, len, "r");
	char *e_text = NULL;
	size_t elen;
	FILE *e = open_memstream(&e_text, &elen);

	cr_assert(in && e && p);
	cr_expect_eq(jsonprofile__read(in, "x.json", p, e, NULL), want, "errors: %s", e_text);
	fclose(in);
	fclose(e);
	if (errs)
		*errs = e_text;
	else
		free(e_text);
	return p;
}

static struct profile *read_back(const char *text, size_t len, int want)
{
	return read_errs(text, len, want, NULL);
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

/* What the session measured, from "options"; a document without them says nothing. */
Test(jsonprofile, scope_from_the_options)
{
	static const char churn[] = "{\"schema\":\"faultline/1\",\"options\":{\"alloc\":true,"
				    "\"alloc_mode\":\"churn\",\"vm\":false},\"stacks\":[]}";
	static const char vm[] = "{\"schema\":\"faultline/1\",\"options\":{\"alloc\":false,"
				 "\"vm\":true},\"stacks\":[]}";
	static const char bare[] = "{\"schema\":\"faultline/1\",\"stacks\":[]}";
	const char *docs[] = { churn, vm, bare };
	struct jsonprofile_scope want[] = { { .known = true, .alloc = true, .churn = true },
					    { .known = true, .vm = true },
					    { 0 } };

	for (size_t i = 0; i < 3; i++) {
		struct jsonprofile_scope got;
		struct profile *p = profile__new();
		FILE *in = fmemopen((void *)docs[i], strlen(docs[i]), "r");

		cr_assert(in && p);
		memset(&got, 0xff, sizeof(got));
		cr_expect_eq(jsonprofile__read(in, "x.json", p, stderr, &got), 0);
		cr_expect(got.known == want[i].known && got.alloc == want[i].alloc &&
				  got.churn == want[i].churn && got.vm == want[i].vm,
			  "document %zu", i);
		fclose(in);
		profile__free(p);
	}
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

/* A one-stack document whose counts are @counts (a JSON object's members). */
static char *with_counts(const char *counts)
{
	char *doc = NULL;

	cr_assert_geq(asprintf(&doc,
			       "{\"schema\":\"faultline/1\",\"stacks\":[{\"frames\":[\"a\",\"b\"],"
			       "\"counts\":{%s}}]}",
			       counts),
		      0);
	return doc;
}

/* Each bad counter is refused with the file, the line, where it is and what is wrong. */
Test(jsonprofile, counters_must_be_whole_numbers_in_range)
{
	static const struct {
		const char *counts, *msg;
	} cases[] = {
		{ "\"growth\":{\"anon\":-5}", "stacks[0].counts.growth.anon: -5 is negative" },
		{ "\"faults\":1.5", "stacks[0].counts.faults: 1.5 is not a whole number" },
		{ "\"faults\":1e3", "stacks[0].counts.faults: 1e3 is not a whole number" },
		{ "\"released\":{\"file\":18446744073709551616}",
		  "stacks[0].counts.released.file: 18446744073709551616 is 2^64 or more" },
		{ "\"allocs\":\"5\"", "stacks[0].counts.allocs: \"5\" is a string, not a number" },
		{ "\"reserved\":null", "stacks[0].counts.reserved: null is not a number" },
		{ "\"vm_calls\":true", "stacks[0].counts.vm_calls: true is not a number" },
		{ "\"growth\":{\"swap\":[1]}",
		  "stacks[0].counts.growth.swap: an array is not a number" },
		{ "\"at_peak\":-9223372036854775809",
		  "stacks[0].counts.at_peak: -9223372036854775809 is outside -2^63..2^63-1" },
		{ "\"at_peak\":0.5", "stacks[0].counts.at_peak: 0.5 is not a whole number" },
		{ "\"growth\":7", "stacks[0].counts.growth: not an object" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *doc = with_counts(cases[i].counts), *errs, *want = NULL;
		struct profile *p = read_errs(doc, strlen(doc), -EINVAL, &errs);

		cr_assert_geq(asprintf(&want, "faultline: x.json:1: %s\n", cases[i].msg), 0);
		cr_expect_str_eq(errs, want);
		free(want);
		free(errs);
		free(doc);
		profile__free(p);
	}
}

/* The largest values each counter holds come back exactly. */
Test(jsonprofile, counters_at_their_limits)
{
	char *doc = with_counts("\"growth\":{\"anon\":18446744073709551615},\"faults\":0,"
				"\"at_peak\":-9223372036854775808,\"unknown_member\":\"ignored\"");
	struct profile *p = read_back(doc, strlen(doc), 0);

	cr_expect_eq(p->root.total.grow[FL_ANON], UINT64_MAX);
	cr_expect_eq(p->root.total.at_peak, INT64_MIN);
	profile__free(p);
	free(doc);
}

/* Bad values are all read (up to 5 reported, the rest counted), each with its own line. */
Test(jsonprofile, problems_by_line)
{
	static const char doc[] =
		"{\n"
		"  \"schema\": \"faultline/1\",\n"
		"  \"stacks\": [\n"
		"    {\"frames\": [\"a\"], \"counts\": {\"faults\": -1}},\n"
		"    {\"frames\": [], \"counts\": {}},\n"
		"    {\"frames\": [\"a\", 2], \"counts\": {}},\n"
		"    {\"frames\": [\"b\"]},\n"
		"    7,\n"
		"    {\"frames\": [\"c\"],\n"
		"     \"counts\": {\"growth\": {\"anon\": \"x\"}, \"faults\": 1.5}}\n"
		"  ]\n"
		"}\n";
	char *errs;
	struct profile *p = read_errs(doc, strlen(doc), -EINVAL, &errs);

	cr_expect_str_eq(errs,
			 "faultline: x.json:4: stacks[0].counts.faults: -1 is negative\n"
			 "faultline: x.json:5: stacks[1].frames: 0 frames (1 to 1024 expected)\n"
			 "faultline: x.json:6: stacks[2].frames[1]: not a string\n"
			 "faultline: x.json:7: stacks[3].counts: missing or not an object\n"
			 "faultline: x.json:8: stacks[4]: not an object\n"
			 "faultline: x.json: 2 more problems\n");
	free(errs);
	profile__free(p);
}

Test(jsonprofile, syntax_error_has_a_line)
{
	static const char doc[] = "{\n\"schema\": \"faultline/1\",\n\"stacks\": [\n  {,}\n]}\n";
	char *errs;
	struct profile *p = read_errs(doc, strlen(doc), -EINVAL, &errs);

	cr_expect_str_eq(errs, "faultline: x.json:4: not valid JSON\n");
	free(errs);
	profile__free(p);
}

/* @s re-indented as python3 -m json.tool writes it: a member or element per line, 4 spaces per
 * level, ": " after names. */
static char *pretty(const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	bool in_str = false;
	int depth = 0;

	cr_assert_not_null(f);
	for (; *s; s++) {
		if (in_str) {
			fputc(*s, f);
			if (*s == '\\')
				fputc(*++s, f);
			else if (*s == '"')
				in_str = false;
			continue;
		}
		switch (*s) {
		case '"':
			in_str = true;
			fputc(*s, f);
			break;
		case '{':
		case '[':
			fputc(*s, f);
			if (s[1] == '}' || s[1] == ']')
				fputc(*++s, f);
			else
				fprintf(f, "\n%*s", 4 * ++depth, "");
			break;
		case '}':
		case ']':
			fprintf(f, "\n%*s%c", 4 * --depth, "", *s);
			break;
		case ',':
			fprintf(f, ",\n%*s", 4 * depth, "");
			break;
		case ':':
			fputs(": ", f);
			break;
		case '\n':
			break;
		default:
			fputc(*s, f);
		}
	}
	fputc('\n', f);
	fclose(f);
	return out;
}

/* Every metric's folded output of @p, one after the other. */
static char *all_metrics(const struct profile *p)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	for (enum fl_metric m = 0; m < FL_METRIC__COUNT; m++) {
		fprintf(f, "%s:\n", metric__name(m));
		cr_assert_eq(folded__write(f, p, m), 0);
	}
	fclose(f);
	return out;
}

static void expect_same_profile(const char *a, const char *b)
{
	struct profile *pa = read_back(a, strlen(a), 0), *pb = read_back(b, strlen(b), 0);
	char *fa = all_metrics(pa), *fb = all_metrics(pb);

	cr_expect_str_eq(fa, fb);
	cr_expect_gt(pa->nstacks, 0);
	free(fa);
	free(fb);
	profile__free(pa);
	profile__free(pb);
}

/* A --json document re-indented (python3 -m json.tool, jq .) reads as the original. */
Test(jsonprofile, pretty_printed_reads_the_same)
{
	size_t len;
	char *doc = document(&len), *nice = pretty(doc), *stream = NULL;
	char *empty = pretty("{\"schema\":\"faultline/1\",\"stacks\":[]}");

	cr_expect(strchr(nice, '\n') < nice + strlen(nice) - 1, "%s", nice);
	expect_same_profile(doc, nice);
	/* a --json-stream file re-indented: several documents, the last one counts */
	cr_assert_geq(asprintf(&stream, "%s%s", empty, nice), 0);
	expect_same_profile(doc, stream);
	free(empty);
	free(stream);
	free(nice);
	free(doc);
}

/* The same with the real tools, when installed. */
Test(jsonprofile, reformatted_by_json_tool_and_jq)
{
	static const char *const tools[] = { "python3 -m json.tool", "jq ." };
	size_t len;
	char *doc = document(&len);
	char path[] = "/tmp/faultline-jsonprofile-XXXXXX";
	int fd = mkstemp(path), ran = 0;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, doc, len), (ssize_t)len);
	close(fd);
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char cmd[256], *out = NULL;
		size_t cap = 0, n = 0;
		FILE *f, *o;
		int c;

		snprintf(cmd, sizeof(cmd), "%s < %s 2>/dev/null", tools[i], path);
		f = popen(cmd, "r");
		cr_assert_not_null(f);
		o = open_memstream(&out, &cap);
		while ((c = fgetc(f)) != EOF)
			fputc(c, o), n++;
		fclose(o);
		if (pclose(f) == 0 && n) {
			cr_expect_gt(strlen(out), len, "%s did not re-indent", tools[i]);
			expect_same_profile(doc, out);
			ran++;
		}
		free(out);
	}
	unlink(path);
	free(doc);
	if (!ran)
		cr_skip_test("neither python3 nor jq is installed");
}
