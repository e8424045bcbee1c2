/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "model/profile.h"
#include "unit/model_builder.h"

static const struct pnode *child(const struct pnode *n, const char *name)
{
	size_t i;

	for (i = 0; i < n->nchildren; i++) {
		if (strcmp(n->children[i]->name, name) == 0)
			return n->children[i];
	}
	return NULL;
}

Test(profile, metrics)
{
	struct fl_counts c = { 0 };
	enum fl_metric m;

	c.grow[FL_ANON] = 1;
	c.grow[FL_FILE] = 10;
	c.grow[FL_SHMEM] = 100;
	c.grow[FL_SWAP] = 1000;
	c.release[FL_ANON] = 2;
	c.release[FL_FILE] = 20;
	c.release[FL_SHMEM] = 200;
	c.release[FL_SWAP] = 2000;
	c.faults = 7;
	c.write_faults = 3;
	cr_expect_eq(metric__value(&c, FL_METRIC_RESIDENT), 111);
	cr_expect_eq(metric__value(&c, FL_METRIC_ANON), 1);
	cr_expect_eq(metric__value(&c, FL_METRIC_FILE), 10);
	cr_expect_eq(metric__value(&c, FL_METRIC_SHMEM), 100);
	cr_expect_eq(metric__value(&c, FL_METRIC_SWAP), 1000);
	cr_expect_eq(metric__value(&c, FL_METRIC_FAULTS), 7);
	cr_expect_eq(metric__value(&c, FL_METRIC_RELEASED), 222);
	for (m = 0; m < FL_METRIC__COUNT; m++) {
		enum fl_metric back = FL_METRIC__COUNT;

		cr_expect_eq(metric__parse(metric__name(m), &back), 0, "%s", metric__name(m));
		cr_expect_eq(back, m);
		cr_expect_eq(metric__is_bytes(m), m != FL_METRIC_FAULTS &&
							  m != FL_METRIC_ALLOC_COUNT &&
							  m != FL_METRIC_LIVE_COUNT);
	}
	cr_expect_eq(metric__parse("Resident", &m), -EINVAL);
	cr_expect_eq(metric__parse("", &m), -EINVAL);
	cr_expect_eq(metric__parse(NULL, &m), -EINVAL);
}

/* Live = allocated - freed; a free read before its allocation never makes it negative. */
Test(profile, alloc_metrics)
{
	struct fl_counts c = { .allocs = 10, .alloc_bytes = 1000, .frees = 4, .free_bytes = 400,
			       .unmatched_frees = 99 };

	cr_expect_eq(metric__value(&c, FL_METRIC_ALLOC_BYTES), 1000);
	cr_expect_eq(metric__value(&c, FL_METRIC_ALLOC_COUNT), 10);
	cr_expect_eq(metric__value(&c, FL_METRIC_LIVE_BYTES), 600);
	cr_expect_eq(metric__value(&c, FL_METRIC_LIVE_COUNT), 6, "unmatched frees subtract nothing");
	c.frees = 11;
	c.free_bytes = 1100;
	cr_expect_eq(metric__value(&c, FL_METRIC_LIVE_BYTES), 0);
	cr_expect_eq(metric__value(&c, FL_METRIC_LIVE_COUNT), 0);
	cr_expect(metric__needs_alloc(FL_METRIC_LIVE_COUNT));
	cr_expect_not(metric__needs_alloc(FL_METRIC_RELEASED));
}

Test(profile, counts_add)
{
	struct fl_counts a = { .grow = { 1, 2, 3, 4 }, .release = { 5, 6, 7, 8 }, .faults = 9,
			       .write_faults = 10 };
	struct fl_counts b = a;

	a.allocs = 3;
	a.unmatched_frees = 5;
	b = a;
	counts__add(&a, &b);
	cr_expect_eq(a.allocs, 6);
	cr_expect_eq(a.unmatched_frees, 10);
	cr_expect_eq(a.grow[0], 2);
	cr_expect_eq(a.grow[3], 8);
	cr_expect_eq(a.release[0], 10);
	cr_expect_eq(a.release[3], 16);
	cr_expect_eq(a.faults, 18);
	cr_expect_eq(a.write_faults, 20);
}

/* Every count makes a row say something; peak_seq, which only dates at_peak, does not. */
Test(profile, counts_is_zero)
{
	struct fl_counts c = { .peak_seq = 7 };

	cr_expect(counts__is_zero(&c));
	c.at_peak = -4096;
	cr_expect_not(counts__is_zero(&c));
	c = (struct fl_counts){ .vm_failed = 1 };
	cr_expect_not(counts__is_zero(&c));
	c = (struct fl_counts){ .release = { 0, 0, 0, 4096 } };
	cr_expect_not(counts__is_zero(&c));
	c = (struct fl_counts){ .unmatched_frees = 1 };
	cr_expect_not(counts__is_zero(&c));
}

/* Sums that would pass 2^64 (at_peak: leave int64) are held at the limit, not wrapped, and
 * counts__add says so; resident and released add three kinds and saturate too. */
Test(profile, sums_saturate)
{
	struct fl_counts a = { .grow = { [FL_ANON] = UINT64_MAX - 1, [FL_FILE] = 1 },
			       .faults = UINT64_MAX / 2 + 1,
			       .at_peak = INT64_MAX - 1,
			       .vm_failed = 7 };
	struct fl_counts b = { .grow = { [FL_ANON] = 5, [FL_FILE] = 2 },
			       .faults = UINT64_MAX / 2 + 1,
			       .at_peak = 2,
			       .vm_failed = 1 };
	struct fl_counts neg = { .at_peak = INT64_MIN + 1 }, minus = { .at_peak = -2 };
	struct fl_counts small = { .faults = 1 }, sum = { 0 };

	cr_expect(counts__add(&a, &b));
	cr_expect_eq(a.grow[FL_ANON], UINT64_MAX);
	cr_expect_eq(a.grow[FL_FILE], 3);
	cr_expect_eq(a.faults, UINT64_MAX);
	cr_expect_eq(a.at_peak, INT64_MAX);
	cr_expect_eq(a.vm_failed, 8);
	cr_expect(counts__add(&neg, &minus));
	cr_expect_eq(neg.at_peak, INT64_MIN);
	cr_expect_not(counts__add(&sum, &small));
	cr_expect_eq(sum.faults, 1);
	cr_expect_eq(metric__value(&a, FL_METRIC_RESIDENT), UINT64_MAX);
	a.release[FL_SHMEM] = UINT64_MAX / 2 + 1;
	a.release[FL_FILE] = UINT64_MAX / 2 + 1;
	cr_expect_eq(metric__value(&a, FL_METRIC_RELEASED), UINT64_MAX);
}

/* A stack added until its counts saturate: self and every total held at the limit. */
Test(profile, add_saturates)
{
	struct profile *p = profile__new();
	const char *s[] = { "app", "main" };
	struct fl_counts c = { .grow = { [FL_ANON] = (uint64_t)INT64_MAX }, .at_peak = INT64_MAX };

	for (int i = 0; i < 3; i++)
		cr_assert_eq(profile__add(p, s, 2, &c), 0);
	cr_expect_eq(p->root.total.grow[FL_ANON], UINT64_MAX);
	cr_expect_eq(p->root.total.at_peak, INT64_MAX);
	cr_expect_eq(metric__value(&p->root.total, FL_METRIC_PEAK), (uint64_t)INT64_MAX);
	cr_expect_eq(child(child(&p->root, "app"), "main")->self.grow[FL_ANON], UINT64_MAX);
	profile__free(p);
}

Test(profile, merge_totals_self)
{
	struct profile *p = profile__new();
	const char *s1[] = { "app", "main", "alloc" };
	const char *s2[] = { "app", "main", "parse" };
	const char *s3[] = { "app", "main" };
	struct fl_counts c1 = model_anon(100, 1), c2 = model_anon(10, 2), c3 = model_anon(1, 4);
	const struct pnode *app, *mainf, *alloc;

	cr_assert_not_null(p);
	cr_assert_eq(profile__add(p, s1, 3, &c1), 0);
	cr_assert_eq(profile__add(p, s2, 3, &c2), 0);
	cr_assert_eq(profile__add(p, s3, 2, &c3), 0);
	cr_assert_eq(profile__add(p, s1, 3, &c1), 0);

	cr_expect_eq(p->nstacks, 3);
	cr_expect_eq(p->root.nchildren, 1);
	cr_expect_null(p->root.name);
	app = child(&p->root, "app");
	cr_assert_not_null(app);
	cr_expect_eq(app->parent, &p->root);
	cr_expect_eq(app->nchildren, 1);
	mainf = child(app, "main");
	cr_assert_not_null(mainf);
	cr_expect_eq(mainf->nchildren, 2);
	alloc = child(mainf, "alloc");
	cr_assert_not_null(alloc);

	cr_expect_eq(metric__value(&p->root.total, FL_METRIC_RESIDENT), 211);
	cr_expect_eq(p->root.total.faults, 8);
	cr_expect_eq(metric__value(&app->total, FL_METRIC_RESIDENT), 211);
	cr_expect_eq(metric__value(&app->self, FL_METRIC_RESIDENT), 0);
	cr_expect_eq(metric__value(&mainf->self, FL_METRIC_RESIDENT), 1);
	cr_expect_eq(mainf->self.faults, 4);
	cr_expect(mainf->leaf);
	cr_expect_not(app->leaf);
	cr_expect_eq(metric__value(&alloc->total, FL_METRIC_RESIDENT), 200);
	cr_expect_eq(metric__value(&alloc->self, FL_METRIC_RESIDENT), 200);
	profile__free(p);
}

Test(profile, same_name_other_depth_does_not_merge)
{
	struct profile *p = profile__new();
	const char *s1[] = { "a", "b" };
	const char *s2[] = { "b", "a" };
	struct fl_counts c = model_anon(1, 0);

	cr_assert_eq(profile__add(p, s1, 2, &c), 0);
	cr_assert_eq(profile__add(p, s2, 2, &c), 0);
	cr_expect_eq(p->root.nchildren, 2);
	cr_expect_eq(p->nstacks, 2);
	cr_expect_eq(child(child(&p->root, "a"), "b")->parent, child(&p->root, "a"));
	profile__free(p);
}

Test(profile, errors_and_null_frames)
{
	struct profile *p = profile__new();
	const char *s[] = { "app", NULL };
	struct fl_counts c = model_anon(1, 0);

	cr_expect_eq(profile__add(p, s, 0, &c), -EINVAL);
	cr_expect_eq(p->root.nchildren, 0);
	cr_expect_eq(profile__add(p, s, 2, &c), 0);
	cr_expect_not_null(child(child(&p->root, "app"), "[unknown]"));
	profile__free(p);
	profile__free(NULL);
}

Test(profile, zero_counts_still_make_a_path)
{
	struct profile *p = profile__new();
	const char *s[] = { "app", "idle" };
	struct fl_counts zero = { 0 };

	cr_assert_eq(profile__add(p, s, 2, &zero), 0);
	cr_expect_eq(p->nstacks, 1);
	cr_expect_eq(metric__value(&p->root.total, FL_METRIC_RESIDENT), 0);
	profile__free(p);
}

Test(profile, sort_by_metric_ties_by_name)
{
	struct profile *p = profile__new();
	const char *names[] = { "delta", "alpha", "charlie", "bravo" };
	uint64_t bytes[] = { 5, 10, 10, 1 };
	uint64_t faults[] = { 9, 1, 2, 3 };
	struct fl_counts c;
	int i;

	for (i = 0; i < 4; i++) {
		const char *s[] = { "app", names[i] };

		c = model_anon(bytes[i], faults[i]);
		cr_assert_eq(profile__add(p, s, 2, &c), 0);
	}
	profile__sort(p, FL_METRIC_RESIDENT);
	{
		const struct pnode *app = p->root.children[0];

		cr_expect_str_eq(app->children[0]->name, "alpha");
		cr_expect_str_eq(app->children[1]->name, "charlie");
		cr_expect_str_eq(app->children[2]->name, "delta");
		cr_expect_str_eq(app->children[3]->name, "bravo");
	}
	profile__sort(p, FL_METRIC_FAULTS);
	{
		const struct pnode *app = p->root.children[0];

		cr_expect_str_eq(app->children[0]->name, "delta");
		cr_expect_str_eq(app->children[1]->name, "bravo");
		cr_expect_str_eq(app->children[2]->name, "charlie");
		cr_expect_str_eq(app->children[3]->name, "alpha");
	}
	/* Lookups still work after the children were reordered. */
	c = model_anon(100, 0);
	{
		const char *s[] = { "app", "bravo" };

		cr_assert_eq(profile__add(p, s, 2, &c), 0);
	}
	cr_expect_eq(p->root.children[0]->nchildren, 4);
	cr_expect_eq(metric__value(&child(p->root.children[0], "bravo")->total, FL_METRIC_ANON),
		     101);
	profile__free(p);
}

/* 100k distinct callers below one node: must be fast (a quadratic scan would take minutes). */
Test(profile, large_fan_out, .timeout = 10)
{
	struct profile *p = profile__new();
	struct fl_counts c = model_anon(4096, 1);
	char name[32];
	const char *s[3] = { "app", "main", name };
	size_t i;

	for (i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "func_%zu", i);
		cr_assert_eq(profile__add(p, s, 3, &c), 0);
	}
	/* Again: all merge. */
	for (i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "func_%zu", i);
		cr_assert_eq(profile__add(p, s, 3, &c), 0);
	}
	cr_expect_eq(p->nstacks, 100000);
	cr_expect_eq(p->root.children[0]->children[0]->nchildren, 100000);
	cr_expect_eq(p->root.total.faults, 200000);
	profile__sort(p, FL_METRIC_RESIDENT);
	cr_expect_str_eq(p->root.children[0]->children[0]->children[0]->name, "func_0");
	profile__free(p);
}

/* Many processes and deep paths: every total is the sum of its children and its self. */
static void check_sums(const struct pnode *n)
{
	struct fl_counts sum = n->self;
	size_t i;

	for (i = 0; i < n->nchildren; i++) {
		counts__add(&sum, &n->children[i]->total);
		check_sums(n->children[i]);
	}
	cr_assert_eq(memcmp(&sum, &n->total, sizeof(sum)), 0);
}

Test(profile, totals_are_inclusive)
{
	struct profile *p = profile__new();
	char f[4][16];
	const char *s[4] = { f[0], f[1], f[2], f[3] };
	struct fl_counts c = { 0 };
	unsigned i;

	for (i = 0; i < 5000; i++) {
		snprintf(f[0], 16, "proc%u", i % 7);
		snprintf(f[1], 16, "a%u", i % 13);
		snprintf(f[2], 16, "b%u", i % 31);
		snprintf(f[3], 16, "c%u", i % 5);
		c.grow[i % 4] = i;
		c.release[(i + 1) % 4] = i / 2;
		c.faults = i % 3;
		cr_assert_eq(profile__add(p, s, 2 + i % 3, &c), 0);
	}
	check_sums(&p->root);
	profile__free(p);
}
