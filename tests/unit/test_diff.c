/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * faultline diff without files on disk: the folded reader on good and bad lines (the
 * messages exactly), a round trip through folded__write(), the ranking of changed stacks,
 * the printed report and the subcommand's arguments.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "diff.h"
#include "formats/folded.h"
#include "formats/foldedread.h"

struct read_result {
	int err;
	char *errs;
	struct profile *p;
};

typedef int folded_reader(FILE *, const char *, struct profile *, enum fl_metric, FILE *);

static struct read_result read_with(folded_reader *reader, const char *text, size_t len,
				    enum fl_metric m)
{
	struct read_result r = { .p = profile__new() };
	size_t errs_len = 0;
	FILE *in = fmemopen((void *)text, len, "r");
	FILE *errs = open_memstream(&r.errs, &errs_len);

	cr_assert(in && errs && r.p);
	r.err = reader(in, "t.folded", r.p, m, errs);
	fclose(in);
	fclose(errs);
	return r;
}

static struct read_result read_text(const char *text, size_t len, enum fl_metric m)
{
	return read_with(folded__read, text, len, m);
}

static char *folded(const struct profile *p, enum fl_metric m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(folded__write(f, p, m), 0);
	fclose(f);
	return buf;
}

static void result_free(struct read_result *r)
{
	free(r->errs);
	profile__free(r->p);
}

Test(folded_read, good_lines)
{
	static const char text[] = "app;main;operator new(unsigned long) 4096\r\n"
				   "\n"
				   "app;main 100\n"
				   "   \n"
				   "app;lex next 7\n"
				   "app;main 20\n"
				   "app;zero 0\n"
				   "solo 5"; /* no newline at the end */
	struct read_result r = read_text(text, strlen(text), FL_METRIC_RESIDENT);
	char *out;

	cr_expect_eq(r.err, 0, "%s", r.errs);
	cr_expect_str_eq(r.errs, "");
	cr_expect_eq(r.p->nstacks, 5);
	cr_expect_eq(metric__value(&r.p->root.total, FL_METRIC_RESIDENT), 4096 + 120 + 7 + 5);
	/* the same stack twice adds up; names keep their spaces */
	out = folded(r.p, FL_METRIC_RESIDENT);
	cr_expect_str_eq(out, "app;lex next 7\napp;main 120\napp;main;operator new(unsigned long) "
			      "4096\nsolo 5\n");
	free(out);
	result_free(&r);
}

/* The layout line faultline writes first: read back, skipped as a stack; malformed, refused
 * as a bad line; only as the first line (a stack may start with '#' anywhere). */
Test(folded_read, layout_line)
{
	static const char text[] = "# faultline folded metric=faults by=mapping threads=yes\n"
				   "app;[heap] 7\n";
	static const char bad[] = "# faultline folded metric=nonsense by=stack threads=no\n"
				  "app;main 1\n";
	static const char later[] = "app;main 1\n"
				    "# faultline folded metric=faults by=stack threads=no 5\n";
	struct folded_layout l;
	struct read_result r;

	cr_expect_eq(folded__parse_layout("# faultline folded metric=faults by=mapping "
					  "threads=yes",
					  &l),
		     1);
	cr_expect_eq(l.metric, FL_METRIC_FAULTS);
	cr_expect_str_eq(l.by, "mapping");
	cr_expect(l.threads);
	cr_expect_eq(folded__parse_layout("app;main 1", &l), 0);
	cr_expect_eq(folded__parse_layout("# a comment of another tool", &l), 0);
	cr_expect_eq(folded__parse_layout("# faultline folded metric=faults by=tree threads=no",
					  &l),
		     -EINVAL);
	cr_expect_eq(folded__parse_layout("# faultline folded metric=faults by=stack", &l),
		     -EINVAL);
	/* a stack whose first frame starts so ends in its count, as no layout line does (the
	 * fuzzer's: written first, it came back refused) */
	cr_expect_eq(folded__parse_layout("# faultline folded B) 4096", &l), 0);

	r = read_with(folded__read_file, text, strlen(text), FL_METRIC_FAULTS);
	cr_expect_eq(r.err, 0, "%s", r.errs);
	cr_expect_eq(r.p->nstacks, 1);
	cr_expect_eq(metric__value(&r.p->root.total, FL_METRIC_FAULTS), 7);
	result_free(&r);

	r = read_with(folded__read_file, bad, strlen(bad), FL_METRIC_FAULTS);
	cr_expect_eq(r.err, -EINVAL);
	cr_expect(strstr(r.errs, "faultline: t.folded:1: a faultline layout line that names no "
				 "known metric or layout"),
		  "%s", r.errs);
	result_free(&r);

	r = read_with(folded__read_file, later, strlen(later), FL_METRIC_FAULTS);
	cr_expect_eq(r.err, 0, "a stack named '# faultline folded ...' past line 1: %s", r.errs);
	cr_expect_eq(r.p->nstacks, 2);
	result_free(&r);
}

Test(folded_read, round_trip_every_metric)
{
	static const char text[] = "a;b;c 3\na;b 4611686018427387904\nz 1\n";
	char *out;

	for (enum fl_metric m = 0; m < FL_METRIC__COUNT; m++) {
		struct fl_counts c = metric__counts(m, 12345);
		struct read_result r;

		cr_expect_eq(metric__value(&c, m), 12345, "%s", metric__name(m));
		r = read_text(text, strlen(text), m);
		cr_expect_eq(r.err, 0);
		out = folded(r.p, m);
		cr_expect_str_eq(out, "a;b 4611686018427387904\na;b;c 3\nz 1\n", "%s",
				 metric__name(m));
		free(out);
		result_free(&r);
	}
}

Test(folded_read, bad_lines_named_by_file_and_line)
{
	static const char text[] = "ok;fine 1\n"
				   "no_value_at_all\n"
				   "a;b x12\n"
				   "a;;b 3\n"
				   "a;b; 3\n"
				   " 3\n"
				   "a;b -4\n"
				   "a;b 9223372036854775808\n"
				   "a;b \n";
	struct read_result r = read_text(text, strlen(text), FL_METRIC_ANON);

	cr_expect_eq(r.err, -EINVAL);
	cr_expect_str_eq(r.errs,
			 "faultline: t.folded:2: no value (expected 'frame;...;frame VALUE')\n"
			 "faultline: t.folded:3: value 'x12' is not a whole decimal number\n"
			 "faultline: t.folded:4: frame 2 is empty\n"
			 "faultline: t.folded:5: frame 3 is empty\n"
			 "faultline: t.folded:6: no frames before the value\n"
			 "faultline: t.folded: 3 more bad lines\n");
	result_free(&r);
}

Test(folded_read, nul_byte_and_too_many_frames)
{
	static const char nul[] = "a;b\0c 3\n";
	size_t n = 2 * (FOLDED_MAX_FRAMES + 1) + 8;
	char *deep = malloc(n), *p = deep;
	struct read_result r;

	r = read_text(nul, sizeof(nul) - 1, FL_METRIC_ANON);
	cr_expect_eq(r.err, -EINVAL);
	cr_expect_str_eq(r.errs, "faultline: t.folded:1: the line holds a NUL byte\n");
	result_free(&r);
	for (int i = 0; i <= FOLDED_MAX_FRAMES; i++)
		p += sprintf(p, "%sf", i ? ";" : "");
	strcpy(p, " 1\n");
	r = read_text(deep, strlen(deep), FL_METRIC_ANON);
	cr_expect_eq(r.err, -EINVAL);
	cr_expect_str_eq(r.errs, "faultline: t.folded:1: more than 1024 frames\n");
	result_free(&r);
	free(deep);
}

/* A counter that is not a whole number from 0 to INT64_MAX is refused with what is wrong. */
Test(folded_read, values_say_what_is_wrong)
{
	static const char text[] = "a;b -4\n"
				   "a;b 1.5\n"
				   "a;b 18446744073709551616\n"
				   "a;b 9223372036854775808\n"
				   "a;b 0x10\n";
	struct read_result r = read_text(text, strlen(text), FL_METRIC_ANON);

	cr_expect_eq(r.err, -EINVAL);
	cr_expect_str_eq(r.errs,
			 "faultline: t.folded:1: value '-4' is negative\n"
			 "faultline: t.folded:2: value '1.5' is not a whole number\n"
			 "faultline: t.folded:3: value '18446744073709551616' is too large "
			 "(more than 9223372036854775807)\n"
			 "faultline: t.folded:4: value '9223372036854775808' is too large "
			 "(more than 9223372036854775807)\n"
			 "faultline: t.folded:5: value '0x10' is not a whole decimal number\n");
	result_free(&r);
}

/* What folded__read_file() reads into a new profile, and its messages. */
static struct read_result read_file_text(const char *text)
{
	return read_with(folded__read_file, text, strlen(text), FL_METRIC_ANON);
}

/* faultline ends every line it writes with a newline: a file whose last line has none was cut
 * short (here in the middle of a number, which alone would still parse). */
Test(folded_read, truncated_file_refused)
{
	struct read_result r = read_file_text("a;b 100\nc;d 12");
	struct profile *p = profile__new();
	struct fl_counts c = metric__counts(FL_METRIC_ANON, 5);
	const char *frames[] = { "x", "y" };
	char *written;

	cr_expect_eq(r.err, -EINVAL);
	cr_expect_str_eq(r.errs, "faultline: t.folded:2: the last line has no newline: the file "
				 "is truncated (faultline ends every line with one)\n");
	result_free(&r);
	r = read_file_text("a;b 100\nc;d 12\r");
	cr_expect_eq(r.err, -EINVAL);
	result_free(&r);
	r = read_file_text("a;b 100\nc;d 12\n");
	cr_expect_eq(r.err, 0, "%s", r.errs);
	result_free(&r);
	r = read_file_text("");
	cr_expect_eq(r.err, 0, "%s", r.errs);
	result_free(&r);
	/* what the writer writes always passes */
	cr_assert_eq(profile__add(p, frames, 2, &c), 0);
	written = folded(p, FL_METRIC_ANON);
	r = read_file_text(written);
	cr_expect_eq(r.err, 0, "%s", r.errs);
	cr_expect_eq(r.p->nstacks, 1);
	result_free(&r);
	free(written);
	profile__free(p);
}

static struct profile *parse_as(const char *text, enum fl_metric m)
{
	struct read_result r = read_text(text, strlen(text), m);

	cr_assert_eq(r.err, 0, "%s", r.errs);
	free(r.errs);
	return r.p;
}

static struct profile *parse(const char *text)
{
	return parse_as(text, FL_METRIC_ANON);
}

/*
 * before -> after: b grows 16 MiB, c shrinks 12, a is unchanged, gone disappears (4 MiB), new
 * appears (4 MiB, after gone in name order), tie1/tie2 move by 1 MiB each way.
 */
static const char before_text[] = "t;a 8388608\nt;b 16777216\nt;c 25165824\nt;gone 4194304\n"
				  "t;tie2 1048576\nt;tie1 2097152\n";
static const char after_text[] = "t;a 8388608\nt;b 33554432\nt;c 12582912\nt;new 4194304\n"
				 "t;tie2 2097152\nt;tie1 1048576\n";

Test(diff, ranking_by_absolute_change)
{
	struct profile *b = parse(before_text), *a = parse(after_text);
	static const char *const order[] = { "t;b", "t;c", "t;gone", "t;new", "t;tie1", "t;tie2" };
	struct diff d;

	cr_assert_eq(diff__compute(b, a, FL_METRIC_ANON, &d), 0);
	cr_assert_eq(d.n, 6);
	for (size_t i = 0; i < d.n; i++)
		cr_expect_str_eq(d.rows[i].stack, order[i], "row %zu", i);
	cr_expect_eq(d.rows[0].before, 16777216);
	cr_expect_eq(d.rows[0].after, 33554432);
	cr_expect_eq(d.rows[1].after, 12582912);
	cr_expect_eq(d.total_before, 57671680);
	cr_expect_eq(d.total_after, 61865984);
	cr_expect_eq(d.stacks_before, 6);
	cr_expect_eq(d.stacks_after, 6);
	cr_expect_eq(d.grew, 3);
	cr_expect_eq(d.shrank, 3);
	cr_expect_eq(d.added, 1);
	cr_expect_eq(d.gone, 1);
	cr_expect_eq(d.same, 1);
	cr_expect_eq(d.grown, 16777216 + 4194304 + 1048576);
	cr_expect_eq(d.shrunk, 12582912 + 4194304 + 1048576);
	diff__fini(&d);
	profile__free(b);
	profile__free(a);
}

static char *report(const struct diff *d, const struct diff_config *cfg, unsigned width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	diff__print(f, d, cfg, width);
	fclose(f);
	return buf;
}

Test(diff, printed_report)
{
	struct profile *b = parse(before_text), *a = parse(after_text);
	struct diff_config cfg = { .before = "b.txt",
				   .after = "a.txt",
				   .top = 4,
				   .metric = FL_METRIC_ANON };
	struct diff d;
	char *out;

	cr_assert_eq(diff__compute(b, a, FL_METRIC_ANON, &d), 0);
	out = report(&d, &cfg, 100);
	cr_expect_str_eq(out,
			 "faultline diff (anon): b.txt -> a.txt\n"
			 "    BEFORE      AFTER       DELTA   CHANGE\n"
			 "  55.0 MiB   59.0 MiB    +4.0 MiB    +7.3%  total\n"
			 "stacks: 6 -> 6; 3 grew (+21.0 MiB), 3 shrank (-17.0 MiB), 1 new, 1 gone, "
			 "1 unchanged\n"
			 "\n"
			 "stacks by absolute change (4 of 6):\n"
			 "    BEFORE      AFTER       DELTA   CHANGE  STACK\n"
			 "  16.0 MiB   32.0 MiB   +16.0 MiB  +100.0%  t;b\n"
			 "  24.0 MiB   12.0 MiB   -12.0 MiB   -50.0%  t;c\n"
			 "   4.0 MiB        0 B    -4.0 MiB     gone  t;gone\n"
			 "       0 B    4.0 MiB    +4.0 MiB      new  t;new\n");
	free(out);
	diff__fini(&d);
	profile__free(b);
	profile__free(a);
}

/* A long stack keeps its first frame and the frames nearest the leaf. */
Test(diff, long_stacks_elided_in_the_middle)
{
	struct profile *b =
		parse_as("proc;one;two;three;four;five;leaf_function 1\n", FL_METRIC_FAULTS);
	struct profile *a =
		parse_as("proc;one;two;three;four;five;leaf_function 3\n", FL_METRIC_FAULTS);
	struct diff_config cfg = { .before = "b",
				   .after = "a",
				   .top = 20,
				   .metric = FL_METRIC_FAULTS };
	struct diff d;
	char *out, *row;

	cr_assert_eq(diff__compute(b, a, FL_METRIC_FAULTS, &d), 0);
	out = report(&d, &cfg, 44 + 31);
	row = strstr(out, "+2  +200.0%  proc");
	cr_assert_not_null(row, "%s", out);
	cr_expect_str_eq(row, "+2  +200.0%  proc;..;four;five;leaf_function\n");
	free(out);
	diff__fini(&d);
	profile__free(b);
	profile__free(a);
}

Test(diff, nothing_changed)
{
	struct profile *b = parse("x;y 5\n"), *a = parse("x;y 5\n");
	struct diff_config cfg = { .before = "b", .after = "a", .top = 20 };
	struct diff d;
	char *out;

	cr_assert_eq(diff__compute(b, a, FL_METRIC_ANON, &d), 0);
	cr_expect_eq(d.n, 0);
	cr_expect_eq(d.same, 1);
	out = report(&d, &cfg, 100);
	cr_expect(strstr(out, "\nno stack changed\n"), "%s", out);
	free(out);
	diff__fini(&d);
	profile__free(b);
	profile__free(a);
}

/* Values whose sums pass 2^64: every sum saturates, the deltas print whole, and a note says
 * that a total was held at 2^64-1. */
Test(diff, sums_saturate_with_a_note)
{
	struct profile *b = parse_as("a 9223372036854775807\nb 9223372036854775807\n"
				     "c 9223372036854775807\n",
				     FL_METRIC_FAULTS),
		       *a = parse_as("a 1\nb 1\nd 9223372036854775807\nd 9223372036854775807\n"
				     "d 9223372036854775807\n",
				     FL_METRIC_FAULTS);
	struct diff_config cfg = { .before = "b",
				   .after = "a",
				   .top = 20,
				   .metric = FL_METRIC_FAULTS };
	struct diff d;
	char *out;

	cr_assert_eq(diff__compute(b, a, FL_METRIC_FAULTS, &d), 0);
	cr_expect_eq(d.total_before, UINT64_MAX);
	cr_expect_eq(d.total_after, UINT64_MAX);
	cr_expect_eq(d.shrunk, UINT64_MAX);
	cr_expect_eq(d.grown, UINT64_MAX);
	cr_expect(d.saturated);
	cr_assert_eq(d.n, 4);
	cr_expect_str_eq(d.rows[0].stack, "d");
	cr_expect_eq(d.rows[0].after, UINT64_MAX);
	out = report(&d, &cfg, 200);
	cr_expect_str_eq(
		out,
		"faultline diff (faults): b -> a\n"
		"    BEFORE      AFTER       DELTA   CHANGE\n"
		"18446744073709551615 18446744073709551615          +0    +0.0%  total\n"
		"stacks: 3 -> 3; 1 grew (+18446744073709551615), 3 shrank (-18446744073709551615), "
		"1 new, 1 gone, 0 unchanged\n"
		"note: a sum passed its limit (2^64-1) and was held there (saturated): totals are "
		"lower bounds\n"
		"\n"
		"stacks by absolute change (4 of 4):\n"
		"    BEFORE      AFTER       DELTA   CHANGE  STACK\n"
		"         0 18446744073709551615 +18446744073709551615      new  d\n"
		"9223372036854775807          0 -9223372036854775807     gone  c\n"
		"9223372036854775807          1 -9223372036854775806  -100.0%  a\n"
		"9223372036854775807          1 -9223372036854775806  -100.0%  b\n");
	free(out);
	diff__fini(&d);
	profile__free(b);
	profile__free(a);
}

static int args(struct diff_config *cfg, int argc, const char **argv)
{
	return diff__parse_args(argc, (char **)argv, cfg);
}

Test(diff, arguments)
{
	const char *ok[] = { "diff", "--top", "5", "--svg=x.svg", "b", "--metric", "faults", "a" };
	const char *dash[] = { "diff", "--", "-b", "-a" };
	struct diff_config cfg;

	cr_assert_eq(args(&cfg, 8, ok), 0);
	cr_expect_eq(cfg.top, 5);
	cr_expect_str_eq(cfg.svg, "x.svg");
	cr_expect_eq(cfg.metric, FL_METRIC_FAULTS);
	cr_expect_str_eq(cfg.before, "b");
	cr_expect_str_eq(cfg.after, "a");
	cr_assert_eq(args(&cfg, 4, dash), 0);
	cr_expect_str_eq(cfg.before, "-b");
	cr_expect_eq(cfg.top, DIFF_DEFAULT_TOP);
	cr_expect_eq(cfg.metric, FL_METRIC_RESIDENT);
}

/* A --json file says what its session measured: a metric it did not is refused, with why. */
Test(diff, metrics_a_session_did_not_measure)
{
	struct jsonprofile_scope unknown = { 0 }, rss = { .known = true },
				 exact = { .known = true, .alloc = true },
				 churn = { .known = true, .alloc = true, .churn = true },
				 vm = { .known = true, .vm = true };

	cr_expect_null(diff__unmeasured(&unknown, FL_METRIC_LIVE_BYTES), "no options: no say");
	cr_expect_null(diff__unmeasured(&rss, FL_METRIC_RESIDENT));
	cr_expect_str_eq(diff__unmeasured(&rss, FL_METRIC_ALLOC_COUNT),
			 "it was written without --alloc");
	cr_expect_null(diff__unmeasured(&exact, FL_METRIC_LIVE_BYTES));
	cr_expect_null(diff__unmeasured(&churn, FL_METRIC_ALLOC_BYTES));
	cr_expect(strstr(diff__unmeasured(&churn, FL_METRIC_LIVE_COUNT) ?: "",
			 "--alloc=churn, which does not trace frees"));
	cr_expect_str_eq(diff__unmeasured(&exact, FL_METRIC_RESERVED),
			 "it was written without --vm");
	cr_expect_null(diff__unmeasured(&vm, FL_METRIC_UNMAPPED));
}

Test(diff, usage_errors, .init = cr_redirect_stderr)
{
	const char *cases[][5] = {
		{ "diff", "b", NULL },
		{ "diff", "b", "a", "c", NULL },
		{ "diff", "--top", "0", "b", "a" },
		{ "diff", "--top", "1x", "b", "a" },
		{ "diff", "--metric", "nope", "b", "a" },
		{ "diff", "--bogus", "b", "a", NULL },
		{ "diff", "b", "a", "--svg", NULL },
		{ "diff", "--svg=", "b", "a", NULL },
	};
	struct diff_config cfg;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = 0;

		while (n < 5 && cases[i][n])
			n++;
		cr_expect_eq(args(&cfg, n, cases[i]), -EINVAL, "case %zu", i);
	}
}

Test(diff, help, .init = cr_redirect_stdout)
{
	const char *help[] = { "diff", "--help" };
	struct diff_config cfg;

	char text[4096] = "";
	FILE *out;

	cr_expect_eq(args(&cfg, 2, help), FL_CLI_DONE);
	fflush(stdout);
	fclose(stdout);
	out = cr_get_redirected_stdout();
	cr_assert_not_null(out);
	cr_expect_gt(fread(text, 1, sizeof(text) - 1, out), 0);
	cr_expect(strstr(text, "Usage: faultline diff [OPTIONS] BEFORE AFTER\n"), "%s", text);
	cr_expect(strstr(text, "or a JSON profile written by --json"), "%s", text);
}
