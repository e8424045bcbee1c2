// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * libFuzzer target: the folded reader as faultline diff uses it (folded__read_file), then what
 * the diff does with what it read: the comparison, the report and the writer. Properties
 * checked beyond the sanitizers: a file that reads must write back to text that reads again, and
 * writing what was read becomes a fixed point (the second round on) while every value fits
 * the reader's limit (INT64_MAX: lines of one stack add up past it), and the diff of a profile
 * with itself finds no change.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "formats/folded.h"
#include "formats/foldedread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

/* @p as folded text for @m (the caller frees it). */
static char *written(const struct profile *p, enum fl_metric m, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f || folded__write(f, p, m))
		abort();
	fclose(f);
	return buf;
}

/* Reads @len bytes of @text as metric @m: the profile, or NULL when refused. */
static struct profile *read_text(const char *text, size_t len, enum fl_metric m)
{
	struct profile *p = profile__new();
	FILE *in = len ? fmemopen((void *)text, len, "r") : fopen("/dev/null", "r");
	int err;

	if (!p || !in)
		abort();
	err = folded__read_file(in, "fuzz.folded", p, m, devnull);
	fclose(in);
	if (err) {
		profile__free(p);
		return NULL;
	}
	return p;
}

/* W(R(@text)) for metric @m, in *@out: false when the reader refuses it. */
static bool rewrite(const char *text, size_t len, enum fl_metric m, char **out, size_t *out_len)
{
	struct profile *p = read_text(text, len, m);

	if (!p)
		return false;
	*out = written(p, m, out_len);
	profile__free(p);
	return true;
}

/* What the writer wrote reads back, and from the second round on writing is a fixed point (the
 * first may still merge names the writer made equal, ';' and control characters replaced). */
static void round_trip(const struct profile *p, enum fl_metric m)
{
	size_t len1, len2, len3;
	char *once = written(p, m, &len1), *twice, *thrice;

	if (!rewrite(once, len1, m, &twice, &len2) || !rewrite(twice, len2, m, &thrice, &len3))
		abort();
	if (len2 != len3 || memcmp(twice, thrice, len2))
		abort();
	free(once);
	free(twice);
	free(thrice);
}

static void self_diff(const struct profile *p, enum fl_metric m)
{
	struct diff_config cfg = { .before = "a", .after = "b", .top = 5, .metric = m };
	struct diff d;

	if (diff__compute(p, p, m, &d))
		abort();
	if (d.n || d.grown || d.shrunk || d.total_before != d.total_after)
		abort();
	diff__print(devnull, &d, &cfg, 80);
	diff__fini(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a plain count and the one signed metric (peak, kept in at_peak) */
	static const enum fl_metric metrics[] = { FL_METRIC_FAULTS, FL_METRIC_PEAK };

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		struct profile *p = read_text((const char *)data, size, metrics[i]);

		if (!p)
			continue;
		if (metric__value(&p->root.total, metrics[i]) <= INT64_MAX)
			round_trip(p, metrics[i]);
		self_diff(p, metrics[i]);
		profile__free(p);
	}
	return 0;
}
