// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * The OTLP profiles encoder. The pprof model's ids are dense from 1 with 0 for none, so they
 * are the OTLP tables' indices as they are once entry 0 of each table is the zero value:
 * mappings, locations, functions and the model's strings go out in id order. Strings the
 * model lacks (attribute keys, units) follow its own; one Stack per pprof sample (the model
 * has one sample per stack and labels already).
 */
#include "formats/otlp.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "formats/pprof_model.h"

/* Field numbers of opentelemetry-proto v1.11.0 (profiles.v1development, common.v1,
 * resource.v1, collector.profiles.v1development). */
enum {
	REQUEST_RESOURCE_PROFILES = 1,
	REQUEST_DICTIONARY = 2,
	DICT_MAPPING = 1,
	DICT_LOCATION = 2,
	DICT_FUNCTION = 3,
	DICT_LINK = 4,
	DICT_STRING = 5,
	DICT_ATTRIBUTE = 6,
	DICT_STACK = 7,
	RESOURCE_PROFILES_RESOURCE = 1,
	RESOURCE_PROFILES_SCOPE_PROFILES = 2,
	RESOURCE_ATTRIBUTES = 1,
	SCOPE_PROFILES_SCOPE = 1,
	SCOPE_PROFILES_PROFILES = 2,
	SCOPE_NAME = 1,
	SCOPE_VERSION = 2,
	KEY_VALUE_KEY = 1,
	KEY_VALUE_VALUE = 2,
	ANY_VALUE_STRING = 1,
	ANY_VALUE_INT = 3,
	KVU_KEY_STRINDEX = 1,
	KVU_VALUE = 2,
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLES = 2,
	PROFILE_TIME_UNIX_NANO = 3,
	PROFILE_DURATION_NANO = 4,
	PROFILE_PERIOD_TYPE = 5,
	PROFILE_PERIOD = 6,
	PROFILE_ID = 7,
	VALUE_TYPE_TYPE_STRINDEX = 1,
	VALUE_TYPE_UNIT_STRINDEX = 2,
	SAMPLE_STACK_INDEX = 1,
	SAMPLE_ATTRIBUTE_INDICES = 2,
	SAMPLE_VALUES = 4,
	STACK_LOCATION_INDICES = 1,
	LOCATION_MAPPING_INDEX = 1,
	LOCATION_ADDRESS = 2,
	LOCATION_LINES = 3,
	LINE_FUNCTION_INDEX = 1,
	LINE_LINE = 2,
	FUNCTION_NAME_STRINDEX = 1,
	FUNCTION_SYSTEM_NAME_STRINDEX = 2,
	FUNCTION_FILENAME_STRINDEX = 3,
	MAPPING_MEMORY_START = 1,
	MAPPING_MEMORY_LIMIT = 2,
	MAPPING_FILE_OFFSET = 3,
	MAPPING_FILENAME_STRINDEX = 4,
	MAPPING_ATTRIBUTE_INDICES = 5,
};

/* The attributes of a sample, at most. */
#define SAMPLE_ATTRS 5

/* A dictionary attribute: @key a string index; a string value (its index) or a number. */
struct attr_rec {
	uint64_t key, str, num, is_num;
};

struct enc {
	const struct pprof *p;
	struct intern extra; /* strings after the model's: index p->strings.n + id */
	struct intern attrs; /* attr_rec; dictionary index = id */
	bool nomem;
};

/* The string table index of @s, the model's when it is the same id space, else added. */
static uint64_t str_index(struct enc *e, const char *s)
{
	uint64_t id;

	if (!s || !*s)
		return 0;
	id = intern__id(&e->extra, s);
	if (!id)
		e->nomem = true;
	return id ? e->p->strings.n + id : 0;
}

static const char *str_text(const struct enc *e, uint64_t index)
{
	if (index <= e->p->strings.n)
		return pprof_string(e->p, index);
	return intern__get(&e->extra, index - e->p->strings.n);
}

static uint64_t attr_of(struct enc *e, const struct attr_rec *r)
{
	uint64_t id = intern__id(&e->attrs, r);

	if (!id)
		e->nomem = true;
	return id;
}

/* The dictionary index of attribute @key = the model's string @str (its id: every value a
 * string attribute takes is in the model already, so it is not interned again). */
static uint64_t attr_str(struct enc *e, const char *key, uint64_t str)
{
	return attr_of(e, &(struct attr_rec){ .key = str_index(e, key), .str = str });
}

/* ... = the number @num. */
static uint64_t attr_num(struct enc *e, const char *key, int64_t num)
{
	return attr_of(e, &(struct attr_rec){ .key = str_index(e, key),
					      .num = (uint64_t)num,
					      .is_num = 1 });
}

/* The attribute indices of sample @s into @out; returns how many. */
static size_t sample_attrs(struct enc *e, const struct sample_rec *s, uint64_t *out)
{
	size_t n = 0;

	out[n++] = attr_num(e, "process.pid", strtoll(pprof_string(e->p, s->pid), NULL, 10));
	out[n++] = attr_num(e, "thread.id", (int64_t)s->tid);
	if (s->thread)
		out[n++] = attr_str(e, "thread.name", s->thread);
	if (s->comm)
		out[n++] = attr_str(e, "process.executable.name", s->comm);
	if (s->cgroup)
		out[n++] = attr_str(e, "process.linux.cgroup", s->cgroup);
	return n;
}

static void any_value(struct pb_buf *b, uint32_t field, struct pb_buf *v, const char *str,
		      int64_t num)
{
	pb__rewind(v);
	if (str)
		pb__string(v, ANY_VALUE_STRING, str);
	else
		pb__uint(v, ANY_VALUE_INT, (uint64_t)num);
	pb__message(b, field, v);
}

static void encode_resource(struct pb_buf *out, const struct otlp_attr *attrs, size_t nattrs)
{
	struct pb_buf res = {}, kv = {}, v = {};

	for (size_t i = 0; i < nattrs; i++) {
		pb__rewind(&kv);
		pb__string(&kv, KEY_VALUE_KEY, attrs[i].key);
		any_value(&kv, KEY_VALUE_VALUE, &v, attrs[i].str, attrs[i].num);
		pb__message(&res, RESOURCE_ATTRIBUTES, &kv);
	}
	pb__message(out, RESOURCE_PROFILES_RESOURCE, &res);
	pb__reset(&kv);
	pb__reset(&v);
	pb__reset(&res);
}

/* The Profile of sample type @t: the samples with a value of that type. */
static void encode_profile(struct enc *e, size_t t, const uint64_t *attrs, const size_t *nattrs,
			   struct pb_buf *out)
{
	const struct pprof *p = e->p;
	struct pb_buf prof = {}, m = {};
	uint8_t id[16];

	pb__rewind(&m);
	pb__uint(&m, VALUE_TYPE_TYPE_STRINDEX, p->types[t].type);
	pb__uint(&m, VALUE_TYPE_UNIT_STRINDEX, p->types[t].unit);
	pb__message(&prof, PROFILE_SAMPLE_TYPE, &m);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample_rec *s = &p->samples[i];
		uint64_t value = (uint64_t)p->vals[s->val_off + t];

		if (!value)
			continue;
		pb__rewind(&m);
		pb__uint(&m, SAMPLE_STACK_INDEX, i + 1);
		pb__packed(&m, SAMPLE_ATTRIBUTE_INDICES, &attrs[i * SAMPLE_ATTRS], nattrs[i]);
		pb__packed(&m, SAMPLE_VALUES, &value, 1);
		pb__message(&prof, PROFILE_SAMPLES, &m);
	}
	if (p->time_ns)
		pb__fixed64(&prof, PROFILE_TIME_UNIX_NANO, (uint64_t)p->time_ns);
	if (p->duration_ns)
		pb__uint(&prof, PROFILE_DURATION_NANO, (uint64_t)p->duration_ns);
	/* a profile id: the time and the type, which no other profile of this session has */
	for (int k = 0; k < 8; k++) {
		id[k] = (uint8_t)((uint64_t)p->time_ns >> (8 * k));
		id[8 + k] = (uint8_t)(((uint64_t)t + 1) >> (8 * k)) ^ 0x5a;
	}
	pb__bytes(&prof, PROFILE_ID, id, sizeof(id));
	pb__message(out, SCOPE_PROFILES_PROFILES, &prof);
	pb__reset(&prof);
	pb__reset(&m);
}

static void encode_mappings(struct enc *e, struct pb_buf *dict, struct pb_buf *m)
{
	const struct pprof *p = e->p;
	struct pb_buf zero = {};

	pb__message(dict, DICT_MAPPING, &zero);
	for (uint64_t id = 1; id <= p->maps.n; id++) {
		const struct map_rec *r = intern__get(&p->maps, id);

		pb__rewind(m);
		pb__uint(m, MAPPING_MEMORY_START, r->start);
		pb__uint(m, MAPPING_MEMORY_LIMIT, r->limit);
		if (r->offset)
			pb__uint(m, MAPPING_FILE_OFFSET, r->offset);
		if (r->file)
			pb__uint(m, MAPPING_FILENAME_STRINDEX, r->file);
		if (r->build_id) {
			uint64_t a = attr_str(e, "process.executable.build_id.gnu", r->build_id);

			pb__packed(m, MAPPING_ATTRIBUTE_INDICES, &a, 1);
		}
		pb__message(dict, DICT_MAPPING, m);
	}
}

static void encode_locations(const struct pprof *p, struct pb_buf *dict, struct pb_buf *m,
			     struct pb_buf *line)
{
	struct pb_buf zero = {};

	pb__message(dict, DICT_LOCATION, &zero);
	for (uint64_t id = 1; id <= p->locs.n; id++) {
		const struct loc_rec *r = intern__get(&p->locs, id);

		pb__rewind(m);
		if (r->mapping)
			pb__uint(m, LOCATION_MAPPING_INDEX, r->mapping);
		if (r->address)
			pb__uint(m, LOCATION_ADDRESS, r->address);
		for (uint64_t l = r->lines; l;) {
			const struct line_rec *lr = intern__get(&p->lines, l);

			pb__rewind(line);
			pb__uint(line, LINE_FUNCTION_INDEX, lr->function);
			if (lr->line)
				pb__uint(line, LINE_LINE, lr->line);
			pb__message(m, LOCATION_LINES, line);
			l = lr->next;
		}
		pb__message(dict, DICT_LOCATION, m);
	}
}

static void encode_functions(const struct pprof *p, struct pb_buf *dict, struct pb_buf *m)
{
	struct pb_buf zero = {};

	pb__message(dict, DICT_FUNCTION, &zero);
	for (uint64_t id = 1; id <= p->fns.n; id++) {
		const struct fn_rec *r = intern__get(&p->fns, id);

		pb__rewind(m);
		pb__uint(m, FUNCTION_NAME_STRINDEX, r->name);
		pb__uint(m, FUNCTION_SYSTEM_NAME_STRINDEX, r->name);
		if (r->file)
			pb__uint(m, FUNCTION_FILENAME_STRINDEX, r->file);
		pb__message(dict, DICT_FUNCTION, m);
	}
}

/* One Stack per sample, index = sample index + 1: its locations, leaf first. */
static void encode_stacks(const struct pprof *p, struct pb_buf *dict, struct pb_buf *m)
{
	struct pb_buf zero = {};

	pb__message(dict, DICT_STACK, &zero);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample_rec *s = &p->samples[i];

		pb__rewind(m);
		pb__packed(m, STACK_LOCATION_INDICES, &p->sample_locs[s->loc_off], s->nlocs);
		pb__message(dict, DICT_STACK, m);
	}
}

/* The attribute table; after it, no string may be added (the string table is last). */
static void encode_attributes(const struct enc *e, struct pb_buf *dict, struct pb_buf *m,
			      struct pb_buf *v)
{
	struct pb_buf zero = {};

	pb__message(dict, DICT_ATTRIBUTE, &zero);
	for (uint64_t id = 1; id <= e->attrs.n; id++) {
		const struct attr_rec *r = intern__get(&e->attrs, id);

		pb__rewind(m);
		pb__uint(m, KVU_KEY_STRINDEX, r->key);
		any_value(m, KVU_VALUE, v, r->is_num ? NULL : str_text(e, r->str), (int64_t)r->num);
		pb__message(dict, DICT_ATTRIBUTE, m);
	}
}

static void encode_strings(const struct enc *e, struct pb_buf *dict)
{
	uint64_t n = e->p->strings.n + e->extra.n;

	for (uint64_t i = 0; i <= n; i++)
		pb__string(dict, DICT_STRING, str_text(e, i));
}

int otlp__encode(const struct pprof *p, const struct otlp_attr *attrs, size_t nattrs,
		 struct pb_buf *out)
{
	struct enc e = { .p = p };
	struct pb_buf rp = {}, sp = {}, scope = {}, dict = {}, m = {}, sub = {}, link = {};
	uint64_t *sattrs = calloc(p->nsamples ? p->nsamples : 1, SAMPLE_ATTRS * sizeof(*sattrs));
	size_t *nsattrs = calloc(p->nsamples ? p->nsamples : 1, sizeof(*nsattrs));
	int err;

	intern__init(&e.extra, 0);
	intern__init(&e.attrs, sizeof(struct attr_rec));
	e.nomem = !sattrs || !nsattrs;
	for (size_t i = 0; i < p->nsamples && !e.nomem; i++)
		nsattrs[i] = sample_attrs(&e, &p->samples[i], &sattrs[i * SAMPLE_ATTRS]);
	encode_resource(&rp, attrs, nattrs);
	pb__string(&scope, SCOPE_NAME, "faultline");
	pb__string(&scope, SCOPE_VERSION, FAULTLINE_VERSION);
	pb__message(&sp, SCOPE_PROFILES_SCOPE, &scope);
	for (size_t t = 0; t < p->ntypes && !e.nomem; t++)
		encode_profile(&e, t, sattrs, nsattrs, &sp);
	pb__message(&rp, RESOURCE_PROFILES_SCOPE_PROFILES, &sp);
	pb__message(out, REQUEST_RESOURCE_PROFILES, &rp);

	encode_mappings(&e, &dict, &m);
	encode_locations(p, &dict, &m, &sub);
	encode_functions(p, &dict, &m);
	pb__message(&dict, DICT_LINK, &link);
	encode_stacks(p, &dict, &m);
	encode_attributes(&e, &dict, &m, &sub);
	encode_strings(&e, &dict);
	pb__message(out, REQUEST_DICTIONARY, &dict);

	err = e.nomem ? -ENOMEM : pb__error(out);
	free(sattrs);
	free(nsattrs);
	intern__fini(&e.extra);
	intern__fini(&e.attrs);
	pb__reset(&rp);
	pb__reset(&sp);
	pb__reset(&scope);
	pb__reset(&dict);
	pb__reset(&m);
	pb__reset(&sub);
	return err;
}
