/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The pprof writer on models built by hand: the output is gunzipped and decoded by the small
 * profile.proto reader below, and every table checked (sample types, totals, string table,
 * locations with their addresses, mappings with build-ids, functions, labels).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "formats/pprof.h"
#include "unit/pbread.h"

#define MAX_ITEMS 32

struct d_label {
	uint64_t key, str, num;
};

struct d_sample {
	uint64_t locs[MAX_ITEMS], vals[MAX_ITEMS];
	size_t nlocs, nvals;
	struct d_label labels[6];
	size_t nlabels;
};

struct d_profile {
	char *strings[MAX_ITEMS * 4];
	size_t nstrings;
	uint64_t types[MAX_ITEMS][2];
	size_t ntypes;
	struct d_sample samples[MAX_ITEMS];
	size_t nsamples;
	uint64_t maps[MAX_ITEMS][8]; /* by field number - 1: id, start, limit, offset, file, ... */
	size_t nmaps;
	uint64_t locs[MAX_ITEMS][4]; /* id, mapping_id, address, the line's function_id */
	size_t nlocs;
	uint64_t fns[MAX_ITEMS][4]; /* id, name, system_name, filename */
	size_t nfns;
	uint64_t time_ns, duration_ns, default_type;
};

/* Fields 1..@max of a message of varints into @out[num - 1]. */
static void flat(const struct pb_field *m, uint64_t *out, uint32_t max)
{
	const uint8_t *p = m->p;
	struct pb_field f;

	while (pbr_next(&p, m->p + m->len, &f)) {
		cr_assert_eq(f.wire, 0, "field %u of a flat message", f.num);
		if (f.num >= 1 && f.num <= max)
			out[f.num - 1] = f.v;
	}
}

static void decode_sample(const struct pb_field *m, struct d_sample *s)
{
	const uint8_t *p = m->p;
	struct pb_field f;

	memset(s, 0, sizeof(*s));
	while (pbr_next(&p, m->p + m->len, &f)) {
		if (f.num == 1)
			s->nlocs = pbr_unpack(&f, s->locs, s->nlocs, MAX_ITEMS);
		else if (f.num == 2)
			s->nvals = pbr_unpack(&f, s->vals, s->nvals, MAX_ITEMS);
		else if (f.num == 3) {
			uint64_t l[4] = {};

			cr_assert_lt(s->nlabels, 6);
			flat(&f, l, 4);
			s->labels[s->nlabels++] = (struct d_label){ l[0], l[1], l[2] };
		}
	}
}

static void decode_location(const struct pb_field *m, uint64_t *loc)
{
	const uint8_t *p = m->p;
	struct pb_field f;
	int lines = 0;

	while (pbr_next(&p, m->p + m->len, &f)) {
		if (f.num == 4) {
			uint64_t line[2] = {};

			flat(&f, line, 2);
			loc[3] = line[0];
			lines++;
		} else if (f.num >= 1 && f.num <= 3) {
			loc[f.num - 1] = f.v;
		}
	}
	cr_expect_eq(lines, 1, "one Line per Location");
}

static void decode(const uint8_t *buf, size_t len, struct d_profile *d)
{
	const uint8_t *p = buf;
	struct pb_field f;

	memset(d, 0, sizeof(*d));
	while (pbr_next(&p, buf + len, &f)) {
		switch (f.num) {
		case 1:
			flat(&f, d->types[d->ntypes++], 2);
			break;
		case 2:
			decode_sample(&f, &d->samples[d->nsamples++]);
			break;
		case 3:
			flat(&f, d->maps[d->nmaps++], 8);
			break;
		case 4:
			decode_location(&f, d->locs[d->nlocs++]);
			break;
		case 5:
			flat(&f, d->fns[d->nfns++], 4);
			break;
		case 6:
			d->strings[d->nstrings++] = strndup((const char *)f.p, f.len);
			break;
		case 9:
			d->time_ns = f.v;
			break;
		case 10:
			d->duration_ns = f.v;
			break;
		case 14:
			d->default_type = f.v;
			break;
		}
		cr_assert(d->ntypes < MAX_ITEMS && d->nsamples < MAX_ITEMS &&
			  d->nmaps < MAX_ITEMS && d->nlocs < MAX_ITEMS && d->nfns < MAX_ITEMS &&
			  d->nstrings < MAX_ITEMS * 4);
	}
}

static void d_free(struct d_profile *d)
{
	for (size_t i = 0; i < d->nstrings; i++)
		free(d->strings[i]);
}

static const char *str(const struct d_profile *d, uint64_t i)
{
	cr_assert_lt(i, d->nstrings, "string index %lu out of the table", (unsigned long)i);
	return d->strings[i];
}

/* pprof__write() into memory, checked to be gzip, gunzipped and decoded. */
static void write_and_decode(const struct pprof *p, struct d_profile *d)
{
	char *gz = NULL;
	size_t gzlen = 0, cap = 1 << 20;
	FILE *f = open_memstream(&gz, &gzlen);
	uint8_t *raw = malloc(cap);
	z_stream zs = {};

	cr_assert(f && raw);
	cr_assert_eq(pprof__write(f, p), 0);
	fclose(f);
	cr_assert_gt(gzlen, 2);
	cr_expect(gz[0] == '\x1f' && gz[1] == '\x8b', "no gzip magic");
	cr_assert_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)gzlen;
	zs.next_out = raw;
	zs.avail_out = (uInt)cap;
	cr_assert_eq(inflate(&zs, Z_FINISH), Z_STREAM_END, "not one whole gzip stream");
	decode(raw, cap - zs.avail_out, d);
	inflateEnd(&zs);
	free(raw);
	free(gz);
}

/* The index of the location whose function is named @name (the first one), or -1. */
static int loc_named(const struct d_profile *d, const char *name)
{
	for (size_t i = 0; i < d->nlocs; i++) {
		uint64_t fn = d->locs[i][3];

		cr_assert(fn >= 1 && fn <= d->nfns, "function id %lu", (unsigned long)fn);
		if (!strcmp(str(d, d->fns[fn - 1][1]), name))
			return (int)i;
	}
	return -1;
}

/* The function names of sample @s, leaf first, joined by ';'. */
static void sample_path(const struct d_profile *d, const struct d_sample *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->nlocs; i++) {
		uint64_t id = s->locs[i];

		cr_assert(id >= 1 && id <= d->nlocs);
		cr_assert_eq(d->locs[id - 1][0], id, "locations are listed by id");
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ";" : "",
					 str(d, d->fns[d->locs[id - 1][3] - 1][1]));
	}
}

static const uint8_t build_id[] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };
static const struct pprof_mapping app = { .start = 0x400000,
					  .limit = 0x402000,
					  .offset = 0x1000,
					  .file = "/usr/bin/app",
					  .build_id = build_id,
					  .build_id_len = sizeof(build_id) };

/* Three samples of one process: two share a location, one is all pseudo-frames. */
static struct pprof *sample_model(void)
{
	struct pprof *p = pprof__new();
	const struct pprof_frame touch[] = {
		{ "touch_a", 0x401010, 100, &app },
		{ "main", 0x401100, 100, &app },
		{ "app", 0, 100, NULL },
	};
	const struct pprof_frame exiting[] = { { "[exit]", 0, 100, NULL }, { "app", 0, 0, NULL } };
	const int64_t v1[] = { 8192, 0, 2 }, v2[] = { 0, 4096, 0 }, v3[] = { 100, 0, 1 };

	cr_assert_not_null(p);
	cr_assert_eq(pprof__add_type(p, "resident", "bytes"), 0);
	cr_assert_eq(pprof__add_type(p, "released", "bytes"), 1);
	cr_assert_eq(pprof__add_type(p, "faults", "count"), 2);
	pprof__set_default_type(p, 2);
	pprof__set_time(p, 1700000000000000000LL, 3000000000LL);
	cr_assert_eq(pprof__add_sample(p, touch, 3, v1, "worker", 100, 101), 0);
	cr_assert_eq(pprof__add_sample(p, exiting, 2, v2, "[kernel]", 100, 0), 0);
	cr_assert_eq(pprof__add_sample(p, touch, 2, v3, "worker", 100, 101), 0);
	return p;
}

Test(pprof, types_totals_and_strings)
{
	struct pprof *p = sample_model();
	struct d_profile d;
	uint64_t total[3] = {};

	write_and_decode(p, &d);
	cr_assert_gt(d.nstrings, 0);
	cr_expect_str_eq(d.strings[0], "", "string 0 must be empty");
	for (size_t i = 1; i < d.nstrings; i++)
		for (size_t j = 0; j < i; j++)
			cr_expect_str_neq(d.strings[i], d.strings[j], "string %zu twice", i);
	cr_assert_eq(d.ntypes, 3);
	cr_expect_str_eq(str(&d, d.types[0][0]), "resident");
	cr_expect_str_eq(str(&d, d.types[0][1]), "bytes");
	cr_expect_str_eq(str(&d, d.types[1][0]), "released");
	cr_expect_str_eq(str(&d, d.types[2][0]), "faults");
	cr_expect_str_eq(str(&d, d.types[2][1]), "count");
	cr_expect_str_eq(str(&d, d.default_type), "faults");
	cr_expect_eq(d.time_ns, 1700000000000000000ULL);
	cr_expect_eq(d.duration_ns, 3000000000ULL);
	cr_assert_eq(d.nsamples, 3);
	for (size_t i = 0; i < d.nsamples; i++) {
		cr_assert_eq(d.samples[i].nvals, 3, "each sample carries every value");
		for (size_t t = 0; t < 3; t++)
			total[t] += d.samples[i].vals[t];
	}
	cr_expect_eq(total[0], 8292);
	cr_expect_eq(total[1], 4096);
	cr_expect_eq(total[2], 3);
	cr_expect_eq(pprof__nr_samples(p), 3);
	d_free(&d);
	pprof__free(p);
}

Test(pprof, locations_mappings_functions)
{
	struct pprof *p = sample_model();
	struct d_profile d;
	char path[256];
	int touch, app_loc, exit_loc;
	const uint64_t *m;

	write_and_decode(p, &d);
	/* touch_a, main, app, [exit]: the repeated frames are one location each */
	cr_expect_eq(d.nlocs, 4);
	cr_expect_eq(pprof__nr_locations(p), 4);
	sample_path(&d, &d.samples[0], path, sizeof(path));
	cr_expect_str_eq(path, "touch_a;main;app");
	sample_path(&d, &d.samples[1], path, sizeof(path));
	cr_expect_str_eq(path, "[exit];app");
	sample_path(&d, &d.samples[2], path, sizeof(path));
	cr_expect_str_eq(path, "touch_a;main");
	touch = loc_named(&d, "touch_a");
	cr_assert_geq(touch, 0);
	cr_expect_eq(d.locs[touch][2], 0x401010);
	cr_assert_eq(d.nmaps, 1);
	cr_expect_eq(d.locs[touch][1], d.maps[0][0], "touch_a in the app mapping");
	m = d.maps[0];
	cr_expect_eq(m[1], 0x400000);
	cr_expect_eq(m[2], 0x402000);
	cr_expect_eq(m[3], 0x1000);
	cr_expect_str_eq(str(&d, m[4]), "/usr/bin/app");
	cr_expect_str_eq(str(&d, m[5]), "deadbeef01");
	cr_expect_eq(m[6], 1, "has_functions");
	/* the function: name, system name, and the module as its file */
	m = d.fns[d.locs[touch][3] - 1];
	cr_expect_str_eq(str(&d, m[1]), "touch_a");
	cr_expect_str_eq(str(&d, m[2]), "touch_a");
	cr_expect_str_eq(str(&d, m[3]), "/usr/bin/app");
	/* pseudo-frames: no address, no mapping, no file */
	app_loc = loc_named(&d, "app");
	exit_loc = loc_named(&d, "[exit]");
	cr_assert(app_loc >= 0 && exit_loc >= 0);
	cr_expect_eq(d.locs[app_loc][1], 0);
	cr_expect_eq(d.locs[app_loc][2], 0);
	cr_expect_eq(d.locs[exit_loc][2], 0);
	cr_expect_eq(d.fns[d.locs[exit_loc][3] - 1][3], 0);
	d_free(&d);
	pprof__free(p);
}

/* The label @key of @s: its string (NULL when numeric) and number. */
static const char *label(const struct d_profile *d, const struct d_sample *s, const char *key,
			 uint64_t *num)
{
	for (size_t i = 0; i < s->nlabels; i++) {
		if (strcmp(str(d, s->labels[i].key), key))
			continue;
		*num = s->labels[i].num;
		return s->labels[i].str ? str(d, s->labels[i].str) : NULL;
	}
	cr_assert_fail("no label %s", key);
	return NULL;
}

Test(pprof, labels)
{
	struct pprof *p = sample_model();
	struct d_profile d;
	uint64_t num = 0;

	write_and_decode(p, &d);
	cr_expect_str_eq(label(&d, &d.samples[0], "thread", &num), "worker");
	cr_expect_str_eq(label(&d, &d.samples[0], "pid", &num), "100");
	cr_expect_null(label(&d, &d.samples[0], "tid", &num), "tid is numeric");
	cr_expect_eq(num, 101);
	cr_expect_str_eq(label(&d, &d.samples[1], "thread", &num), "[kernel]");
	cr_expect_null(label(&d, &d.samples[1], "tid", &num));
	cr_expect_eq(num, 0);
	d_free(&d);
	pprof__free(p);
}

/* A process's comm and cgroup label its samples; none is written where it has neither. */
Test(pprof, comm_and_cgroup_labels)
{
	struct pprof *p = pprof__new();
	const struct pprof_frame f[] = { { "main", 0, 7, NULL } };
	const int64_t v[] = { 4096 };
	struct d_profile d;
	uint64_t num = 0;

	cr_assert_not_null(p);
	cr_assert_eq(pprof__add_type(p, "resident", "bytes"), 0);
	cr_assert_eq(pprof__add_sample_lines(
			     p, f, NULL, 1, v,
			     &(struct pprof_labels){ .thread = "w",
						     .pid = 7,
						     .tid = 8,
						     .comm = "mysqld",
						     .cgroup = "/system.slice/m.service" }),
		     0);
	cr_assert_eq(pprof__add_sample(p, f, 1, v, "w", 9, 9), 0);
	write_and_decode(p, &d);
	cr_expect_str_eq(label(&d, &d.samples[0], "comm", &num), "mysqld");
	cr_expect_str_eq(label(&d, &d.samples[0], "cgroup", &num), "/system.slice/m.service");
	cr_expect_eq(d.samples[1].nlabels, 3, "thread, pid and tid only");
	d_free(&d);
	pprof__free(p);
}

/* One address in two processes is two locations; a pseudo-frame is one whatever the pid. */
Test(pprof, locations_per_process_and_address)
{
	struct pprof *p = pprof__new();
	const struct pprof_mapping other = { .start = 0x400000,
					     .limit = 0x402000,
					     .file = "/usr/bin/other" };
	const struct pprof_frame a[] = { { "f", 0x401000, 1, &app }, { "[root]", 0, 1, NULL } };
	const struct pprof_frame b[] = { { "f", 0x401000, 2, &app }, { "[root]", 0, 2, NULL } };
	const struct pprof_frame c[] = { { "g", 0x401000, 3, &other } };
	const int64_t v[] = { 1 };
	struct d_profile d;

	cr_assert_eq(pprof__add_type(p, "faults", "count"), 0);
	cr_assert_eq(pprof__add_sample(p, a, 2, v, "t", 1, 1), 0);
	cr_assert_eq(pprof__add_sample(p, b, 2, v, "t", 2, 2), 0);
	cr_assert_eq(pprof__add_sample(p, c, 1, v, NULL, 3, 3), 0);
	cr_expect_eq(pprof__nr_locations(p), 4);
	cr_expect_eq(pprof__nr_mappings(p), 2, "one mapping shared by processes 1 and 2");
	write_and_decode(p, &d);
	cr_expect_eq(d.nlocs, 4);
	cr_expect_eq(d.nmaps, 2);
	cr_expect_eq(d.maps[1][5], 0, "no build-id: no string");
	cr_expect_eq(d.default_type, 0, "no default set: none written");
	d_free(&d);
	pprof__free(p);
}

/* Mapping 1 is the main binary whatever came first, and locations follow the renumbering. */
Test(pprof, main_binary_mapping_first)
{
	struct pprof *p = pprof__new();
	const struct pprof_mapping vdso = { .start = 0x7ff000,
					    .limit = 0x800000,
					    .file = "[vdso]" };
	const struct pprof_mapping libc = { .start = 0x7f0000,
					    .limit = 0x7f8000,
					    .file = "/lib/libc.so.6" };
	const struct pprof_frame f[] = { { "gettime", 0x7ff010, 5, &vdso },
					 { "malloc", 0x7f0010, 5, &libc },
					 { "main", 0x401000, 5, &app } };
	const int64_t v[] = { 1 };
	struct d_profile d;
	int loc;

	cr_assert_eq(pprof__add_type(p, "faults", "count"), 0);
	cr_assert_eq(pprof__add_sample(p, f, 3, v, "t", 5, 5), 0);
	write_and_decode(p, &d);
	cr_assert_eq(d.nmaps, 3);
	for (uint64_t i = 0; i < 3; i++)
		cr_expect_eq(d.maps[i][0], i + 1, "mappings listed by id");
	cr_expect_str_eq(str(&d, d.maps[0][4]), "/usr/bin/app");
	cr_expect_str_eq(str(&d, d.maps[1][4]), "/lib/libc.so.6");
	cr_expect_str_eq(str(&d, d.maps[2][4]), "[vdso]", "was first, swapped with the app");
	loc = loc_named(&d, "main");
	cr_expect_eq(d.locs[loc][1], 1);
	loc = loc_named(&d, "gettime");
	cr_expect_eq(d.locs[loc][1], 3);
	loc = loc_named(&d, "malloc");
	cr_expect_eq(d.locs[loc][1], 2);
	d_free(&d);
	pprof__free(p);
}

Test(pprof, misuse_rejected)
{
	struct pprof *p = pprof__new();
	const struct pprof_frame f[] = { { "f", 0, 0, NULL } };
	const int64_t v[] = { 1 };

	cr_expect_eq(pprof__add_sample(p, f, 1, v, "t", 1, 1), -EINVAL, "no sample type yet");
	cr_assert_eq(pprof__add_type(p, "faults", "count"), 0);
	cr_expect_eq(pprof__add_sample(p, f, 0, v, "t", 1, 1), -EINVAL, "no frame");
	cr_assert_eq(pprof__add_sample(p, f, 1, v, "t", 1, 1), 0);
	cr_expect_eq(pprof__add_type(p, "resident", "bytes"), -EBUSY);
	pprof__free(p);
}

Test(pprof, empty_model_is_a_valid_profile)
{
	struct pprof *p = pprof__new();
	struct d_profile d;

	write_and_decode(p, &d);
	cr_expect_eq(d.nsamples, 0);
	cr_expect_str_eq(d.strings[0], "");
	d_free(&d);
	pprof__free(p);
}

Test(pprof, many_samples_intern)
{
	struct pprof *p = pprof__new();
	const int64_t v[] = { 4096 };
	char name[32];

	cr_assert_eq(pprof__add_type(p, "resident", "bytes"), 0);
	for (int i = 0; i < 20000; i++) {
		struct pprof_frame f[] = { { name, 0x1000 + (uint64_t)(i % 5000), 7, &app },
					   { "main", 0x2000, 7, &app } };

		snprintf(name, sizeof(name), "fn%d", i % 5000);
		cr_assert_eq(pprof__add_sample(p, f, 2, v, "t", 7, 7), 0);
	}
	cr_expect_eq(pprof__nr_locations(p), 5001);
	cr_expect_eq(pprof__nr_mappings(p), 1);
	pprof__free(p);
}

Test(pprof, write_error_reported)
{
	struct pprof *p = sample_model();
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	cr_expect_eq(pprof__write(f, p), -ENOSPC);
	fclose(f);
	pprof__free(p);
}
