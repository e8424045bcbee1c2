/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The JSON writer (json.c): exact output, escaping, numbers, misuse and write errors. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/json.h"
#include "formats/jsonread.h"

/* A writer into memory; done() finishes it and returns the text. */
struct mem {
	struct json j;
	FILE *f;
	char *buf;
	size_t len;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	cr_assert_not_null(m->f);
	json__init(&m->j, m->f);
}

/* json__finish()'s result in *err; the text, which the caller frees. */
static char *mem_done(struct mem *m, int *err)
{
	*err = json__finish(&m->j);
	fclose(m->f);
	return m->buf;
}

static char *mem_ok(struct mem *m)
{
	int err;
	char *s = mem_done(m, &err);

	cr_assert_eq(err, 0, "json__finish: %s", strerror(-err));
	return s;
}

/* One string written as the whole document. */
static char *string_doc(const char *s)
{
	struct mem m;

	mem_open(&m);
	json__str(&m.j, NULL, s);
	return mem_ok(&m);
}

Test(json, nested_containers_exact)
{
	struct mem m;
	char *s;

	mem_open(&m);
	json__object_begin(&m.j, NULL);
	json__str(&m.j, "a", "x");
	json__array_begin(&m.j, "b");
	json__u64(&m.j, NULL, 1);
	json__object_begin(&m.j, NULL);
	json__object_end(&m.j);
	json__array_begin(&m.j, NULL);
	json__array_end(&m.j);
	json__null(&m.j, NULL);
	json__bool(&m.j, NULL, true);
	json__bool(&m.j, NULL, false);
	json__array_end(&m.j);
	json__i64(&m.j, "c", -5);
	json__object_end(&m.j);
	s = mem_ok(&m);
	cr_expect_str_eq(s, "{\"a\":\"x\",\"b\":[1,{},[],null,true,false],\"c\":-5}\n");
	free(s);
}

Test(json, integers_exact_at_the_limits)
{
	struct mem m;
	char *s;

	mem_open(&m);
	json__array_begin(&m.j, NULL);
	json__u64(&m.j, NULL, UINT64_MAX);
	json__u64(&m.j, NULL, 0);
	json__i64(&m.j, NULL, INT64_MIN);
	json__i64(&m.j, NULL, INT64_MAX);
	json__u64(&m.j, NULL, 9007199254740993ULL); /* 2^53 + 1: no double holds it */
	json__array_end(&m.j);
	s = mem_ok(&m);
	cr_expect_str_eq(s, "[18446744073709551615,0,-9223372036854775808,9223372036854775807,"
			    "9007199254740993]\n");
	free(s);
}

Test(json, fixed_point_without_locale)
{
	struct mem m;
	char *s;

	mem_open(&m);
	json__array_begin(&m.j, NULL);
	json__fixed(&m.j, NULL, 12.3456, 3);
	json__fixed(&m.j, NULL, 0.0, 3);
	json__fixed(&m.j, NULL, -0.0001, 3); /* rounds to zero: no "-0.000" */
	json__fixed(&m.j, NULL, -2.5, 1);
	json__fixed(&m.j, NULL, 7.6, 0);
	json__fixed(&m.j, NULL, 0.05, 2);
	json__fixed(&m.j, NULL, 1.0 / 0.0, 3);
	json__fixed(&m.j, NULL, 0.0 / 0.0, 3);
	json__fixed(&m.j, NULL, 1e300, 3);
	json__array_end(&m.j);
	s = mem_ok(&m);
	cr_expect_str_eq(s, "[12.346,0.000,0.000,-2.5,8,0.05,null,null,null]\n");
	free(s);
}

Test(json, escapes)
{
	char *s = string_doc("q\" b\\ /\b\f\n\r\t\x01\x1f\x7f end");

	cr_expect_str_eq(s, "\"q\\\" b\\\\ /\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f end\"\n");
	free(s);
	s = string_doc(NULL);
	cr_expect_str_eq(s, "null\n");
	free(s);
}

Test(json, keys_are_escaped_too)
{
	struct mem m;
	char *s;

	mem_open(&m);
	json__object_begin(&m.j, NULL);
	json__u64(&m.j, "k\"\n", 1);
	json__object_end(&m.j);
	s = mem_ok(&m);
	cr_expect_str_eq(s, "{\"k\\\"\\n\":1}\n");
	free(s);
}

Test(json, valid_utf8_copied)
{
	/* é (2 bytes), € (3), U+1F600 (4), U+FFFF and U+10FFFF at the edges */
	const char *in = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbf \xf4\x8f\xbf\xbf";
	char *s = string_doc(in), want[64];

	snprintf(want, sizeof(want), "\"%s\"\n", in);
	cr_expect_str_eq(s, want);
	free(s);
}

/* Each maximal invalid subpart becomes one \ufffd (Unicode's recommended practice). */
Test(json, invalid_utf8_replaced)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "a\xff" "b", "\"a\\ufffdb\"\n" },		   /* never valid */
		{ "a\x80" "b", "\"a\\ufffdb\"\n" },		   /* lone continuation */
		{ "a\xc3", "\"a\\ufffd\"\n" },			   /* cut at the end */
		{ "\xe2\x82x", "\"\\ufffdx\"\n" },		   /* cut: one for both */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"\n" },		   /* overlong '/' */
		{ "\xe0\x80\x80", "\"\\ufffd\\ufffd\\ufffd\"\n" }, /* overlong NUL */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"\n" }, /* surrogate D800 */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"\n" }, /* > U+10FFFF */
		{ "\xf0\x9f\x98", "\"\\ufffd\"\n" },		   /* emoji cut short */
		{ "\xf0\x9f\x98\xc3\xa9", "\"\\ufffd\xc3\xa9\"\n" }, /* ... before a valid é */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = string_doc(cases[i].in);

		cr_expect_str_eq(s, cases[i].out, "case %zu", i);
		free(s);
	}
}

Test(json, strn_stops_at_n_and_at_nul)
{
	struct mem m;
	char comm[4] = { 'a', 'b', 'c', 'd' }; /* not NUL-terminated, as a full comm may be */
	char *s;

	mem_open(&m);
	json__array_begin(&m.j, NULL);
	json__strn(&m.j, NULL, comm, sizeof(comm));
	json__strn(&m.j, NULL, "xy\0z", 4);
	json__strn(&m.j, NULL, "\xe2\x82\xac", 2); /* a sequence cut by n */
	json__array_end(&m.j);
	s = mem_ok(&m);
	cr_expect_str_eq(s, "[\"abcd\",\"xy\",\"\\ufffd\"]\n");
	free(s);
}

/* Random bytes: whatever a name holds, the document parses and valid text survives. */
Test(json, random_bytes_always_parse)
{
	unsigned seed = 12345;

	for (int round = 0; round < 5000; round++) {
		char in[40], *s;
		size_t n = (size_t)(rand_r(&seed) % 39);
		struct jv v;
		int err;

		for (size_t i = 0; i < n; i++)
			in[i] = (char)(1 + rand_r(&seed) % 255);
		in[n] = '\0';
		s = string_doc(in);
		err = jv_parse(s, strlen(s), &v);
		cr_assert_eq(err, 0, "round %d: not JSON: %s", round, s);
		cr_assert_eq(v.type, JV_STR);
		if (!strstr(s, "\\ufffd"))
			cr_assert_str_eq(v.text, in, "round %d", round);
		jv_free(&v);
		free(s);
	}
}

static void expect_misuse(void (*use)(struct json *), const char *what)
{
	struct mem m;
	int err;

	mem_open(&m);
	use(&m.j);
	free(mem_done(&m, &err));
	cr_expect_eq(err, -EINVAL, "%s: %d", what, err);
}

static void key_in_array(struct json *j)
{
	json__array_begin(j, NULL);
	json__u64(j, "k", 1);
	json__array_end(j);
}

static void no_key_in_object(struct json *j)
{
	json__object_begin(j, NULL);
	json__u64(j, NULL, 1);
	json__object_end(j);
}

static void unclosed(struct json *j)
{
	json__object_begin(j, NULL);
}

static void wrong_close(struct json *j)
{
	json__object_begin(j, NULL);
	json__array_end(j);
}

static void two_documents(struct json *j)
{
	json__u64(j, NULL, 1);
	json__u64(j, NULL, 2);
}

static void nothing(struct json *j)
{
	(void)j;
}

static void too_deep(struct json *j)
{
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json__array_begin(j, NULL);
}

Test(json, misuse_is_einval)
{
	expect_misuse(key_in_array, "a key in an array");
	expect_misuse(no_key_in_object, "no key in an object");
	expect_misuse(unclosed, "an unclosed object");
	expect_misuse(wrong_close, "] for {");
	expect_misuse(two_documents, "two top-level values");
	expect_misuse(nothing, "no value");
	expect_misuse(too_deep, "too deep");
}

Test(json, write_error_reported)
{
	FILE *f = fopen("/dev/full", "w");
	struct json j;

	if (!f)
		cr_skip_test("no /dev/full");
	json__init(&j, f);
	json__str(&j, NULL, "something");
	cr_expect_eq(json__finish(&j), -ENOSPC);
	fclose(f);
}

/* The checker the other tests trust: it must refuse what is not JSON. */
Test(json, checker_is_strict)
{
	static const char *const bad[] = {
		"", "{", "[1,]", "{\"a\":1,}", "01", "-", "1.", ".5", "1e", "+1", "[1 2]",
		"{\"a\" 1}", "{1:2}", "\"\x01\"", "\"\xff\"", "\"\\ud800\"", "\"\\udc00\"",
		"\"\\x\"", "\"abc", "nul", "{\"a\":1,\"a\":2}", "[] []", "tru",
	};
	static const char *const good[] = {
		"0", "-0.5e+3", " [ ] ", "{\"a\":[{\"b\":null}]}", "\"\\ud83d\\ude00\"",
		"\"\\u0000\"", "true",
	};
	struct jv v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(jv_parse(bad[i], strlen(bad[i]), &v), -EINVAL, "accepted '%s'",
			     bad[i]);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cr_expect_eq(jv_parse(good[i], strlen(good[i]), &v), 0, "refused '%s'", good[i]);
		jv_free(&v);
	}
}
