/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The OTLP profiles encoder on a model built by hand, decoded with the field numbers of
 * opentelemetry-proto v1.11.0 (as the collector's pdata v1.71.0 reads them, written out here
 * apart from the encoder's): every index resolves, entry 0 of every table is the zero value,
 * one Profile per sample type holds the samples with a value of its type, their sums are the
 * model's, and the attributes (resource, samples, mappings) say what they should.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "formats/otlp.h"
#include "unit/pbread.h"

#define MAX 64

/* A decoded message's fields of one number, in order. */
struct msgs {
	struct pb_field v[MAX];
	size_t n;
};

static void fields(const uint8_t *p, size_t len, uint32_t num, struct msgs *out)
{
	const uint8_t *end = p + len;
	struct pb_field f;

	out->n = 0;
	while (pbr_next(&p, end, &f))
		if (f.num == num) {
			cr_assert_lt(out->n, MAX);
			out->v[out->n++] = f;
		}
}

/* The one field @num of a message (zero when absent). */
static struct pb_field field(const struct pb_field *m, uint32_t num)
{
	struct msgs all;

	fields(m->p, m->len, num, &all);
	cr_assert_leq(all.n, 1, "field %u repeated", num);
	return all.n ? all.v[0] : (struct pb_field){ .num = num };
}

static size_t ints(const struct pb_field *m, uint32_t num, uint64_t *out)
{
	struct msgs all;
	size_t n = 0;

	fields(m->p, m->len, num, &all);
	for (size_t i = 0; i < all.n; i++)
		n = pbr_unpack(&all.v[i], out, n, MAX);
	return n;
}

struct request {
	struct pb_field req;
	struct msgs profiles, mappings, locations, functions, stacks, attrs, strings, links;
	struct msgs resource_attrs;
	struct pb_field scope;
	char *strs[MAX];
};

static void decode(struct pb_buf *b, struct request *r)
{
	struct pb_field rp, dict, sp, res;
	struct msgs all;

	r->req = (struct pb_field){ .p = b->data, .len = b->len, .wire = 2 };
	fields(b->data, b->len, 1, &all);
	cr_assert_eq(all.n, 1, "one ResourceProfiles");
	rp = all.v[0];
	res = field(&rp, 1);
	fields(res.p, res.len, 1, &r->resource_attrs);
	fields(rp.p, rp.len, 2, &all);
	cr_assert_eq(all.n, 1, "one ScopeProfiles");
	sp = all.v[0];
	r->scope = field(&sp, 1);
	fields(sp.p, sp.len, 2, &r->profiles);
	fields(b->data, b->len, 2, &all);
	cr_assert_eq(all.n, 1, "one dictionary");
	dict = all.v[0];
	fields(dict.p, dict.len, 1, &r->mappings);
	fields(dict.p, dict.len, 2, &r->locations);
	fields(dict.p, dict.len, 3, &r->functions);
	fields(dict.p, dict.len, 4, &r->links);
	fields(dict.p, dict.len, 5, &r->strings);
	fields(dict.p, dict.len, 6, &r->attrs);
	fields(dict.p, dict.len, 7, &r->stacks);
	for (size_t i = 0; i < r->strings.n; i++)
		r->strs[i] = strndup((const char *)r->strings.v[i].p, r->strings.v[i].len);
}

static void request_free(struct request *r)
{
	for (size_t i = 0; i < r->strings.n; i++)
		free(r->strs[i]);
}

static const char *str(const struct request *r, uint64_t i)
{
	cr_assert_lt(i, r->strings.n, "string index %lu past the table (%zu)", (unsigned long)i,
		     r->strings.n);
	return r->strs[i];
}

/* AnyValue @v as text ("s:..." or "i:N"). */
static void any_text(const struct pb_field *v, char *buf, size_t len)
{
	struct pb_field s = field(v, 1), n = field(v, 3);

	if (s.len || s.wire == 2)
		snprintf(buf, len, "s:%.*s", (int)s.len, (const char *)s.p);
	else
		snprintf(buf, len, "i:%ld", (long)n.v);
}

/* The value of dictionary attribute @i whose key is @key into @buf; false when it is another. */
static bool dict_attr(const struct request *r, uint64_t i, const char *key, char *buf, size_t len)
{
	struct pb_field a, v;

	cr_assert(i > 0 && i < r->attrs.n, "attribute index %lu", (unsigned long)i);
	a = r->attrs.v[i];
	if (strcmp(str(r, field(&a, 1).v), key))
		return false;
	v = field(&a, 2);
	any_text(&v, buf, len);
	return true;
}

static const uint8_t build_id[] = { 0xab, 0xcd, 0x01 };
static const struct pprof_mapping app = { .start = 0x400000,
					  .limit = 0x402000,
					  .offset = 0x1000,
					  .file = "/usr/bin/app",
					  .build_id = build_id,
					  .build_id_len = sizeof(build_id) };

static struct pprof *model(void)
{
	struct pprof *p = pprof__new();
	const struct pprof_frame touch[] = { { "touch_a", 0x401010, 100, &app },
					     { "main", 0x401200, 100, &app } };
	const struct pprof_frame exiting[] = { { "[exit]", 0, 0, NULL },
					       { "main", 0x401200, 100, &app } };
	const struct pprof_labels worker = { "worker", 100, 101, "app", "/svc" };
	const struct pprof_labels other = { NULL, 200, 200, "app", NULL };
	const int64_t v1[] = { 8192, 2 }, v2[] = { 4096, 0 }, v3[] = { 100, 1 };

	cr_assert_not_null(p);
	cr_assert_eq(pprof__add_type(p, "resident", "bytes"), 0);
	cr_assert_eq(pprof__add_type(p, "faults", "count"), 1);
	pprof__set_time(p, 1700000000000000000LL, 3000000000LL);
	cr_assert_eq(pprof__add_sample_lines(p, touch, NULL, 2, v1, &worker), 0);
	cr_assert_eq(pprof__add_sample_lines(p, exiting, NULL, 2, v2, &other), 0);
	cr_assert_eq(pprof__add_sample_lines(p, touch, NULL, 1, v3, &worker), 0);
	return p;
}

static void encode(struct pprof *p, struct request *r, struct pb_buf *b)
{
	const struct otlp_attr attrs[] = { { "service.name", "svc", 0 },
					   { "process.pid", NULL, 100 } };

	*b = (struct pb_buf){};
	cr_assert_eq(otlp__encode(p, attrs, 2, b), 0);
	decode(b, r);
}

Test(otlp, one_profile_per_type_with_its_samples_and_totals)
{
	struct pprof *p = model();
	struct request r;
	struct pb_buf b;
	const char *want[2][2] = { { "resident", "bytes" }, { "faults", "count" } };
	const uint64_t totals[2] = { 8192 + 4096 + 100, 3 };
	const size_t nsamples[2] = { 3, 2 }; /* the faults profile has no zero sample */

	encode(p, &r, &b);
	cr_assert_eq(r.profiles.n, 2);
	for (size_t t = 0; t < 2; t++) {
		struct pb_field prof = r.profiles.v[t], vt = field(&prof, 1);
		struct msgs samples;
		uint64_t sum = 0;

		cr_expect_str_eq(str(&r, field(&vt, 1).v), want[t][0]);
		cr_expect_str_eq(str(&r, field(&vt, 2).v), want[t][1]);
		cr_expect_eq(field(&prof, 3).v, 1700000000000000000ULL, "time_unix_nano");
		cr_expect_eq(field(&prof, 3).wire, 1, "time_unix_nano is a fixed64");
		cr_expect_eq(field(&prof, 4).v, 3000000000ULL, "duration_nano");
		cr_expect_eq(field(&prof, 7).len, 16, "a 16-byte profile id");
		fields(prof.p, prof.len, 2, &samples);
		cr_expect_eq(samples.n, nsamples[t]);
		for (size_t i = 0; i < samples.n; i++) {
			uint64_t v[MAX];

			cr_assert_eq(ints(&samples.v[i], 4, v), 1, "one value per sample");
			cr_expect_neq(v[0], 0);
			sum += v[0];
		}
		cr_expect_eq(sum, totals[t], "type %zu", t);
	}
	request_free(&r);
	pb__reset(&b);
	pprof__free(p);
}

Test(otlp, every_index_resolves_and_entry_zero_is_empty)
{
	struct pprof *p = model();
	struct request r;
	struct pb_buf b;

	encode(p, &r, &b);
	cr_expect_str_eq(r.strs[0], "", "string 0 is empty");
	cr_expect_eq(r.mappings.v[0].len, 0);
	cr_expect_eq(r.locations.v[0].len, 0);
	cr_expect_eq(r.functions.v[0].len, 0);
	cr_expect_eq(r.stacks.v[0].len, 0);
	cr_expect_eq(r.attrs.v[0].len, 0);
	cr_expect_eq(r.links.n, 1, "the link table holds its zero entry");
	for (size_t t = 0; t < r.profiles.n; t++) {
		struct msgs samples;

		fields(r.profiles.v[t].p, r.profiles.v[t].len, 2, &samples);
		for (size_t i = 0; i < samples.n; i++) {
			uint64_t stack = field(&samples.v[i], 1).v, locs[MAX], attrs[MAX];
			size_t nlocs, nattrs = ints(&samples.v[i], 2, attrs);

			cr_assert(stack > 0 && stack < r.stacks.n, "stack index %lu",
				  (unsigned long)stack);
			nlocs = ints(&r.stacks.v[stack], 1, locs);
			cr_expect_gt(nlocs, 0);
			for (size_t k = 0; k < nlocs; k++)
				cr_assert(locs[k] > 0 && locs[k] < r.locations.n);
			for (size_t k = 0; k < nattrs; k++)
				cr_assert(attrs[k] > 0 && attrs[k] < r.attrs.n);
		}
	}
	for (size_t i = 1; i < r.locations.n; i++) {
		struct pb_field loc = r.locations.v[i];
		uint64_t m = field(&loc, 1).v;
		struct msgs lines;

		cr_assert_lt(m, r.mappings.n);
		fields(loc.p, loc.len, 3, &lines);
		cr_expect_geq(lines.n, 1);
		for (size_t k = 0; k < lines.n; k++) {
			uint64_t fn = field(&lines.v[k], 1).v;

			cr_assert(fn > 0 && fn < r.functions.n);
			str(&r, field(&r.functions.v[fn], 1).v);
			str(&r, field(&r.functions.v[fn], 3).v);
		}
	}
	for (size_t i = 1; i < r.mappings.n; i++)
		cr_expect_str_eq(str(&r, field(&r.mappings.v[i], 4).v), "/usr/bin/app");
	for (size_t i = 1; i < r.attrs.n; i++)
		str(&r, field(&r.attrs.v[i], 1).v);
	request_free(&r);
	pb__reset(&b);
	pprof__free(p);
}

/* The leaf frame of the first sample of the resident profile names touch_a at its address. */
Test(otlp, frames_name_functions_at_addresses_in_mappings)
{
	struct pprof *p = model();
	struct request r;
	struct pb_buf b;
	struct msgs samples;
	struct pb_field loc, line, map;
	uint64_t locs[MAX], attrs[MAX];
	char buf[64];
	size_t n;

	encode(p, &r, &b);
	fields(r.profiles.v[0].p, r.profiles.v[0].len, 2, &samples);
	n = ints(&r.stacks.v[field(&samples.v[0], 1).v], 1, locs);
	cr_assert_eq(n, 2);
	loc = r.locations.v[locs[0]];
	cr_expect_eq(field(&loc, 2).v, 0x401010);
	line = field(&loc, 3);
	cr_expect_str_eq(str(&r, field(&r.functions.v[field(&line, 1).v], 1).v), "touch_a");
	map = r.mappings.v[field(&loc, 1).v];
	cr_expect_eq(field(&map, 1).v, 0x400000);
	cr_expect_eq(field(&map, 2).v, 0x402000);
	cr_expect_eq(field(&map, 3).v, 0x1000);
	cr_assert_eq(ints(&map, 5, attrs), 1, "the build-id as the mapping's attribute");
	cr_assert(dict_attr(&r, attrs[0], "process.executable.build_id.gnu", buf, sizeof(buf)));
	cr_expect_str_eq(buf, "s:abcd01");
	request_free(&r);
	pb__reset(&b);
	pprof__free(p);
}

Test(otlp, sample_and_resource_attributes)
{
	struct pprof *p = model();
	struct request r;
	struct pb_buf b;
	struct msgs samples;
	uint64_t attrs[MAX];
	char buf[64], got[256] = "";
	size_t n;

	encode(p, &r, &b);
	fields(r.profiles.v[0].p, r.profiles.v[0].len, 2, &samples);
	n = ints(&samples.v[0], 2, attrs);
	for (size_t i = 0; i < n; i++) {
		const char *keys[] = { "process.pid", "thread.id", "thread.name",
				       "process.executable.name", "process.linux.cgroup" };

		for (size_t k = 0; k < 5; k++)
			if (dict_attr(&r, attrs[i], keys[k], buf, sizeof(buf))) {
				strcat(got, keys[k]);
				strcat(got, "=");
				strcat(got, buf);
				strcat(got, " ");
			}
	}
	cr_expect_str_eq(got, "process.pid=i:100 thread.id=i:101 thread.name=s:worker "
			      "process.executable.name=s:app process.linux.cgroup=s:/svc ");
	/* the second sample has no thread name and no cgroup */
	cr_expect_eq(ints(&samples.v[1], 2, attrs), 3);
	cr_assert_eq(r.resource_attrs.n, 2);
	cr_expect_eq(strncmp((const char *)field(&r.resource_attrs.v[0], 1).p, "service.name", 12),
		     0);
	{
		struct pb_field v = field(&r.resource_attrs.v[0], 2);

		any_text(&v, buf, sizeof(buf));
		cr_expect_str_eq(buf, "s:svc");
		v = field(&r.resource_attrs.v[1], 2);
		any_text(&v, buf, sizeof(buf));
		cr_expect_str_eq(buf, "i:100");
	}
	cr_expect_eq(strncmp((const char *)field(&r.scope, 1).p, "faultline", 9), 0);
	request_free(&r);
	pb__reset(&b);
	pprof__free(p);
}

Test(otlp, empty_model_is_a_valid_request)
{
	struct pprof *p = pprof__new();
	struct request r;
	struct pb_buf b;

	cr_assert_eq(pprof__add_type(p, "resident", "bytes"), 0);
	encode(p, &r, &b);
	cr_expect_eq(r.profiles.n, 1);
	cr_expect_eq(r.stacks.n, 1, "the zero stack alone");
	request_free(&r);
	pb__reset(&b);
	pprof__free(p);
}
