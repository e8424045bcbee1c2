/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/folded.h"
#include "unit/model_builder.h"

static struct fl_counts counts(uint64_t anon, uint64_t file, uint64_t released, uint64_t faults)
{
	struct fl_counts c = { 0 };

	c.grow[FL_ANON] = anon;
	c.grow[FL_FILE] = file;
	c.release[FL_SHMEM] = released;
	c.faults = faults;
	return c;
}

/* folded__write() into a string the caller frees. */
static char *folded(const struct profile *p, enum fl_metric m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(folded__write(f, p, m), 0);
	fclose(f);
	return buf;
}

static struct profile *sample(void)
{
	struct profile *p = profile__new();

	/* '|' separates frames here; the names themselves hold ';' and newlines. */
	model_add(p, "app|main|alloc", counts(300, 0, 0, 3));
	model_add(p, "app|main", counts(20, 5, 0, 1));
	model_add(p, "app|main|parse;json|lex\nnext", counts(0, 7, 0, 0));
	model_add(p, "app|idle", counts(0, 0, 50, 9));
	model_add(p, "other|main|alloc", counts(1, 0, 0, 0));
	return p;
}

Test(folded, format_and_order)
{
	struct profile *p = sample();
	char *out = folded(p, FL_METRIC_RESIDENT);

	/* Pre-order, siblings by name; idle has no resident growth so it is left out. */
	cr_expect_str_eq(out, "app;main 25\n"
			      "app;main;alloc 300\n"
			      "app;main;parse:json;lex next 7\n"
			      "other;main;alloc 1\n");
	free(out);
	profile__free(p);
}

Test(folded, independent_of_sort_and_insertion_order)
{
	struct profile *p = sample(), *q = profile__new();
	char *a, *b;

	model_add(q, "other|main|alloc", counts(1, 0, 0, 0));
	model_add(q, "app|idle", counts(0, 0, 50, 9));
	model_add(q, "app|main|parse;json|lex\nnext", counts(0, 7, 0, 0));
	model_add(q, "app|main", counts(20, 5, 0, 1));
	model_add(q, "app|main|alloc", counts(300, 0, 0, 3));
	profile__sort(p, FL_METRIC_FAULTS);
	a = folded(p, FL_METRIC_FAULTS);
	b = folded(q, FL_METRIC_FAULTS);
	cr_expect_str_eq(a, b);
	cr_expect_str_eq(a, "app;idle 9\napp;main 1\napp;main;alloc 3\n");
	free(a);
	free(b);
	profile__free(p);
	profile__free(q);
}

/* Every line is "frames VALUE" with a plain unsigned integer, and the values add up. */
static void check_sum(const struct profile *p, enum fl_metric m)
{
	char *out = folded(p, m), *line, *save = NULL, *sp, *end;
	uint64_t sum = 0;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sp = strrchr(line, ' ');
		cr_assert_not_null(sp, "%s", line);
		cr_assert(sp[1] >= '1' && sp[1] <= '9', "%s", line);
		sum += strtoull(sp + 1, &end, 10);
		cr_assert_eq(*end, '\0', "%s", line);
	}
	cr_expect_eq(sum, metric__value(&p->root.total, m), "metric %s", metric__name(m));
	free(out);
}

Test(folded, sums_equal_total_for_every_metric)
{
	struct profile *p = sample();
	enum fl_metric m;

	for (m = 0; m < FL_METRIC__COUNT; m++)
		check_sum(p, m);
	profile__free(p);
}

Test(folded, zero_values_omitted)
{
	struct profile *p = sample();
	char *out = folded(p, FL_METRIC_RELEASED);

	cr_expect_str_eq(out, "app;idle 50\n");
	free(out);
	out = folded(p, FL_METRIC_SWAP);
	cr_expect_str_eq(out, "");
	free(out);
	profile__free(p);
}

/* At the peak one stack held 10 bytes and its sibling had given 10 back: their parent's net
 * is 0, yet the first stack has its line. */
Test(folded, peak_line_under_a_zero_total)
{
	struct profile *p = profile__new();
	struct fl_counts up = { 0 }, down = { 0 };
	char *out;

	cr_assert_not_null(p);
	up.at_peak = 10;
	down.at_peak = -10;
	model_add(p, "app|main|held", up);
	model_add(p, "app|main|gave_back", down);
	cr_expect_eq(metric__value(&p->root.total, FL_METRIC_PEAK), 0);
	out = folded(p, FL_METRIC_PEAK);
	cr_expect_str_eq(out, "app;main;held 10\n");
	free(out);
	profile__free(p);
}

Test(folded, empty_profile)
{
	struct profile *p = profile__new();
	char *out = folded(p, FL_METRIC_RESIDENT);

	cr_expect_str_eq(out, "");
	free(out);
	profile__free(p);
}

Test(folded, write_error_reported)
{
	struct profile *p = sample();
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	cr_expect_eq(folded__write(f, p, FL_METRIC_RESIDENT), -ENOSPC);
	fclose(f);
	profile__free(p);
}

/* The first line says what the file holds (faultline diff compares like with like), and never
 * ends in digits: flamegraph.pl and inferno take a line only when its last word is a count. */
Test(folded, layout_line)
{
	struct folded_layout l = { .metric = FL_METRIC_PEAK, .by = "stack,mapping" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(folded__write_layout(f, &l), 0);
	l = (struct folded_layout){ .metric = FL_METRIC_ALLOC_COUNT,
				    .by = "stack",
				    .threads = true };
	cr_assert_eq(folded__write_layout(f, &l), 0);
	fclose(f);
	cr_expect_str_eq(buf, "# faultline folded metric=peak by=stack,mapping threads=no\n"
			      "# faultline folded metric=alloc-count by=stack threads=yes\n");
	free(buf);
	f = fopen("/dev/full", "w");
	cr_assert_not_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	cr_expect_eq(folded__write_layout(f, &l), -ENOSPC);
	fclose(f);
}
