// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * The pprof model and its writer. Strings, functions, mappings and locations are interned
 * (intern.h): their ids are the ids profile.proto uses (0 means none), and string 0 is "" as
 * the format requires.
 */
#include "formats/pprof.h"
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "base/grow.h"
#include "formats/pprof_model.h"
#include "formats/protobuf.h"

/* Field numbers of profile.proto. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,
	MAPPING_ID = 1,
	MAPPING_START = 2,
	MAPPING_LIMIT = 3,
	MAPPING_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

/* The string id of @s (0 for "" or NULL), added when new; (uint64_t)-1 when out of memory. */
static uint64_t string_id(struct pprof *p, const char *s)
{
	uint64_t id;

	if (!s || !*s)
		return 0;
	id = intern__id(&p->strings, s);
	return id ? id : (uint64_t)-1;
}

struct pprof *pprof__new(void)
{
	struct pprof *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	intern__init(&p->strings, 0);
	intern__init(&p->fns, sizeof(struct fn_rec));
	intern__init(&p->maps, sizeof(struct map_rec));
	intern__init(&p->locs, sizeof(struct loc_rec));
	intern__init(&p->lines, sizeof(struct line_rec));
	p->key_thread = string_id(p, "thread");
	p->key_pid = string_id(p, "pid");
	p->key_tid = string_id(p, "tid");
	p->key_comm = string_id(p, "comm");
	p->key_cgroup = string_id(p, "cgroup");
	if (p->key_tid == (uint64_t)-1 || p->key_pid == (uint64_t)-1 ||
	    p->key_thread == (uint64_t)-1 || p->key_comm == (uint64_t)-1 ||
	    p->key_cgroup == (uint64_t)-1) {
		pprof__free(p);
		return NULL;
	}
	return p;
}

void pprof__free(struct pprof *p)
{
	if (!p)
		return;
	intern__fini(&p->strings);
	intern__fini(&p->fns);
	intern__fini(&p->maps);
	intern__fini(&p->locs);
	intern__fini(&p->lines);
	free(p->types);
	free(p->samples);
	free(p->sample_locs);
	free(p->vals);
	free(p);
}

int pprof__add_type(struct pprof *p, const char *type, const char *unit)
{
	struct value_type vt = { string_id(p, type), string_id(p, unit) };
	struct value_type *v;

	if (p->nsamples)
		return -EBUSY;
	if (vt.type == (uint64_t)-1 || vt.unit == (uint64_t)-1)
		return -ENOMEM;
	v = grow__reserve(p->types, &p->types_cap, p->ntypes, sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->types = v;
	v[p->ntypes] = vt;
	return (int)p->ntypes++;
}

void pprof__set_default_type(struct pprof *p, size_t i)
{
	if (i < p->ntypes)
		p->default_type = p->types[i].type;
}

void pprof__set_time(struct pprof *p, int64_t time_ns, int64_t duration_ns)
{
	p->time_ns = time_ns;
	p->duration_ns = duration_ns;
}

/* The mapping id of @m (0 for NULL), added when new; (uint64_t)-1 when out of memory. */
static uint64_t mapping_id(struct pprof *p, const struct pprof_mapping *m)
{
	char hex[2 * 64 + 1] = "";
	struct map_rec r;
	uint64_t id;

	if (!m)
		return 0;
	for (size_t i = 0; i < m->build_id_len && i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
	r = (struct map_rec){ .start = m->start,
			      .limit = m->limit,
			      .offset = m->offset,
			      .file = string_id(p, m->file),
			      .build_id = string_id(p, hex) };
	if (r.file == (uint64_t)-1 || r.build_id == (uint64_t)-1)
		return (uint64_t)-1;
	id = intern__id(&p->maps, &r);
	return id ? id : (uint64_t)-1;
}

/* The location id of @f; 0 when out of memory. */
/* The id of line @l of frame @f, @next the caller's line id: 0 when out of memory. */
static uint64_t line_id(struct pprof *p, const struct pprof_frame *f, const struct pprof_line *l,
			uint64_t next)
{
	struct fn_rec fn = { .name = string_id(p, l->name ? l->name : "[unknown]") };
	struct line_rec r = { .line = l->line, .next = next };

	/* a function without a source file is named after its object, as before lines existed */
	if (l->file)
		fn.file = string_id(p, l->file);
	else if (f->address && f->mapping)
		fn.file = string_id(p, f->mapping->file);
	if (fn.name == (uint64_t)-1 || fn.file == (uint64_t)-1)
		return 0;
	r.function = intern__id(&p->fns, &fn);
	return r.function ? intern__id(&p->lines, &r) : 0;
}

/* The location id of @f; 0 when out of memory. */
static uint64_t location_id(struct pprof *p, const struct pprof_frame *f,
			    const struct pprof_lines *fl)
{
	const struct pprof_line one = { .name = f->name };
	bool many = fl && fl->n && f->address;
	const struct pprof_line *lines = many ? fl->v : &one;
	size_t n = many ? fl->n : 1;
	struct loc_rec loc = { .address = f->address };

	if (f->address) {
		loc.pid = f->pid;
		loc.mapping = mapping_id(p, f->mapping);
		if (loc.mapping == (uint64_t)-1)
			return 0;
	}
	/* the outermost first, so that each line can point at its caller's */
	for (size_t i = n; i-- > 0;) {
		loc.lines = line_id(p, f, &lines[i], loc.lines);
		if (!loc.lines)
			return 0;
	}
	return intern__id(&p->locs, &loc);
}

int pprof__add_sample(struct pprof *p, const struct pprof_frame *frames, size_t n,
		      const int64_t *values, const char *thread, uint32_t pid, uint32_t tid)
{
	struct pprof_labels l = { .thread = thread, .pid = pid, .tid = tid };

	return pprof__add_sample_lines(p, frames, NULL, n, values, &l);
}

int pprof__add_sample_lines(struct pprof *p, const struct pprof_frame *frames,
			    const struct pprof_lines *lines, size_t n, const int64_t *values,
			    const struct pprof_labels *l)
{
	char pid_str[16];
	struct sample_rec s = { .loc_off = p->nsample_locs,
				.nlocs = n,
				.val_off = p->nvals,
				.tid = l->tid };
	void *grown;

	if (!n || !p->ntypes)
		return -EINVAL;
	snprintf(pid_str, sizeof(pid_str), "%" PRIu32, l->pid);
	s.thread = string_id(p, l->thread);
	s.pid = string_id(p, pid_str);
	s.comm = string_id(p, l->comm);
	s.cgroup = string_id(p, l->cgroup);
	if (s.thread == (uint64_t)-1 || s.pid == (uint64_t)-1 || s.comm == (uint64_t)-1 ||
	    s.cgroup == (uint64_t)-1)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t id = location_id(p, &frames[i], lines ? &lines[i] : NULL);

		grown = grow__reserve(p->sample_locs, &p->sample_locs_cap, p->nsample_locs,
				      sizeof(uint64_t));
		if (!id || !grown)
			goto nomem;
		p->sample_locs = grown;
		p->sample_locs[p->nsample_locs++] = id;
	}
	for (size_t i = 0; i < p->ntypes; i++) {
		grown = grow__reserve(p->vals, &p->vals_cap, p->nvals, sizeof(int64_t));
		if (!grown)
			goto nomem;
		p->vals = grown;
		p->vals[p->nvals++] = values[i];
	}
	grown = grow__reserve(p->samples, &p->samples_cap, p->nsamples, sizeof(s));
	if (!grown)
		goto nomem;
	p->samples = grown;
	p->samples[p->nsamples++] = s;
	return 0;
nomem:
	/* interned records stay (harmless); the sample's arrays go back */
	p->nsample_locs = s.loc_off;
	p->nvals = s.val_off;
	return -ENOMEM;
}

size_t pprof__nr_types(const struct pprof *p)
{
	return p->ntypes;
}

void pprof__type(const struct pprof *p, size_t i, const char **type, const char **unit)
{
	*type = pprof_string(p, p->types[i].type);
	*unit = pprof_string(p, p->types[i].unit);
}

size_t pprof__nr_samples(const struct pprof *p)
{
	return p->nsamples;
}

size_t pprof__nr_locations(const struct pprof *p)
{
	return p->locs.n;
}

size_t pprof__nr_mappings(const struct pprof *p)
{
	return p->maps.n;
}

/* The gzip stream the encoded fields go through, a top-level field at a time. */
struct gz_out {
	z_stream zs;
	FILE *out;
	int err;
};

static int write_err(void)
{
	return errno ? -errno : -EIO;
}

/* Compresses @len bytes of @data (@flush: Z_NO_FLUSH, or Z_FINISH at the end) to g->out. */
static void gz_feed(struct gz_out *g, const uint8_t *data, size_t len, int flush)
{
	uint8_t chunk[16384];
	int zerr;

	if (g->err)
		return;
	g->zs.next_in = (Bytef *)data;
	g->zs.avail_in = (uInt)len;
	do {
		g->zs.next_out = chunk;
		g->zs.avail_out = sizeof(chunk);
		zerr = deflate(&g->zs, flush);
		if (zerr == Z_STREAM_ERROR) {
			g->err = -EIO;
			return;
		}
		len = sizeof(chunk) - g->zs.avail_out;
		if (len && fwrite(chunk, 1, len, g->out) != len) {
			g->err = write_err();
			return;
		}
	} while (g->zs.avail_out == 0 || (flush == Z_FINISH && zerr != Z_STREAM_END));
}

/* Sends the top-level field(s) in @b to the stream and empties @b. */
static void gz_emit(struct gz_out *g, struct pb_buf *b)
{
	if (!g->err)
		g->err = pb__error(b);
	gz_feed(g, b->data, b->len, Z_NO_FLUSH);
	pb__rewind(b);
}

static void encode_types(const struct pprof *p, struct gz_out *g, struct pb_buf *b,
			 struct pb_buf *m)
{
	for (size_t i = 0; i < p->ntypes; i++) {
		pb__rewind(m);
		pb__uint(m, VALUE_TYPE_TYPE, p->types[i].type);
		pb__uint(m, VALUE_TYPE_UNIT, p->types[i].unit);
		pb__message(b, PROFILE_SAMPLE_TYPE, m);
		gz_emit(g, b);
	}
}

static void encode_label(struct pb_buf *m, struct pb_buf *label, uint64_t key, uint64_t str,
			 uint64_t num)
{
	pb__rewind(label);
	pb__uint(label, LABEL_KEY, key);
	if (str)
		pb__uint(label, LABEL_STR, str);
	else
		pb__uint(label, LABEL_NUM, num);
	pb__message(m, SAMPLE_LABEL, label);
}

static void encode_samples(const struct pprof *p, struct gz_out *g, struct pb_buf *b,
			   struct pb_buf *m, struct pb_buf *label)
{
	for (size_t i = 0; i < p->nsamples && !g->err; i++) {
		const struct sample_rec *s = &p->samples[i];

		pb__rewind(m);
		pb__packed(m, SAMPLE_LOCATION_ID, &p->sample_locs[s->loc_off], s->nlocs);
		/* int64 values as varints: their two's complement, as uint64_t holds them */
		pb__packed(m, SAMPLE_VALUE, (const uint64_t *)&p->vals[s->val_off], p->ntypes);
		if (s->thread)
			encode_label(m, label, p->key_thread, s->thread, 0);
		encode_label(m, label, p->key_pid, s->pid, 0);
		encode_label(m, label, p->key_tid, 0, s->tid);
		if (s->comm)
			encode_label(m, label, p->key_comm, s->comm, 0);
		if (s->cgroup)
			encode_label(m, label, p->key_cgroup, s->cgroup, 0);
		pb__message(b, PROFILE_SAMPLE, m);
		gz_emit(g, b);
	}
}

/* True for a shared library's name: ".so" at the end or followed by a version (".so.6"). */
static bool is_library(const char *file)
{
	for (const char *s = strstr(file, ".so"); s; s = strstr(s + 1, ".so"))
		if (!s[3] || ((s[3] == '.' || s[3] == '_') && s[4] >= '0' && s[4] <= '9'))
			return true;
	return false;
}

/*
 * profile.proto wants mapping[0] to be the main binary (tools name the profile after it): the
 * first mapping of a file that is not a shared library nor special ("[vdso]"), as pprof
 * guesses for legacy profiles. It swaps ids with mapping 1 in the output; 1 when none is.
 */
static uint64_t main_mapping(const struct pprof *p)
{
	for (uint64_t id = 1; id <= p->maps.n; id++) {
		const struct map_rec *r = intern__get(&p->maps, id);
		const char *file = pprof_string(p, r->file);

		if (r->file && file[0] != '[' && !is_library(file))
			return id;
	}
	return 1;
}

/* The id mapping @id is written with: the main one and the first swap places. */
static uint64_t out_mapping(uint64_t id, uint64_t main)
{
	return id == main ? 1 : id == 1 ? main : id;
}

static void encode_mappings(const struct pprof *p, struct gz_out *g, struct pb_buf *b,
			    struct pb_buf *m, uint64_t main)
{
	for (uint64_t id = 1; id <= p->maps.n && !g->err; id++) {
		const struct map_rec *r = intern__get(&p->maps, out_mapping(id, main));

		pb__rewind(m);
		pb__uint(m, MAPPING_ID, id);
		pb__uint(m, MAPPING_START, r->start);
		pb__uint(m, MAPPING_LIMIT, r->limit);
		if (r->offset)
			pb__uint(m, MAPPING_OFFSET, r->offset);
		if (r->file)
			pb__uint(m, MAPPING_FILENAME, r->file);
		if (r->build_id)
			pb__uint(m, MAPPING_BUILD_ID, r->build_id);
		/* every location is named already: no tool should symbolize it again */
		pb__uint(m, MAPPING_HAS_FUNCTIONS, 1);
		pb__message(b, PROFILE_MAPPING, m);
		gz_emit(g, b);
	}
}

static void encode_locations(const struct pprof *p, struct gz_out *g, struct pb_buf *b,
			     struct pb_buf *m, struct pb_buf *line, uint64_t main)
{
	for (uint64_t id = 1; id <= p->locs.n && !g->err; id++) {
		const struct loc_rec *r = intern__get(&p->locs, id);

		pb__rewind(m);
		pb__uint(m, LOCATION_ID, id);
		if (r->mapping)
			pb__uint(m, LOCATION_MAPPING_ID, out_mapping(r->mapping, main));
		if (r->address)
			pb__uint(m, LOCATION_ADDRESS, r->address);
		for (uint64_t l = r->lines; l;) {
			const struct line_rec *lr = intern__get(&p->lines, l);

			pb__rewind(line);
			pb__uint(line, LINE_FUNCTION_ID, lr->function);
			if (lr->line)
				pb__uint(line, LINE_LINE, lr->line);
			pb__message(m, LOCATION_LINE, line);
			l = lr->next;
		}
		pb__message(b, PROFILE_LOCATION, m);
		gz_emit(g, b);
	}
}

static void encode_functions(const struct pprof *p, struct gz_out *g, struct pb_buf *b,
			     struct pb_buf *m)
{
	for (uint64_t id = 1; id <= p->fns.n && !g->err; id++) {
		const struct fn_rec *r = intern__get(&p->fns, id);

		pb__rewind(m);
		pb__uint(m, FUNCTION_ID, id);
		pb__uint(m, FUNCTION_NAME, r->name);
		pb__uint(m, FUNCTION_SYSTEM_NAME, r->name);
		if (r->file)
			pb__uint(m, FUNCTION_FILENAME, r->file);
		pb__message(b, PROFILE_FUNCTION, m);
		gz_emit(g, b);
	}
}

static void encode_rest(const struct pprof *p, struct gz_out *g, struct pb_buf *b)
{
	for (uint64_t i = 0; i <= p->strings.n && !g->err; i++) {
		pb__string(b, PROFILE_STRING_TABLE, pprof_string(p, i));
		gz_emit(g, b);
	}
	if (p->time_ns)
		pb__uint(b, PROFILE_TIME_NANOS, (uint64_t)p->time_ns);
	if (p->duration_ns)
		pb__uint(b, PROFILE_DURATION_NANOS, (uint64_t)p->duration_ns);
	if (p->default_type)
		pb__uint(b, PROFILE_DEFAULT_SAMPLE_TYPE, p->default_type);
	gz_emit(g, b);
}

static int write_level(FILE *out, const struct pprof *p, int level)
{
	struct gz_out g = { .out = out };
	struct pb_buf b = {}, m = {}, sub = {};
	uint64_t main = main_mapping(p);

	errno = 0;
	/* 15 + 16: a 32 KiB window, with a gzip header and trailer rather than zlib's */
	if (deflateInit2(&g.zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	encode_types(p, &g, &b, &m);
	encode_samples(p, &g, &b, &m, &sub);
	encode_mappings(p, &g, &b, &m, main);
	encode_locations(p, &g, &b, &m, &sub, main);
	encode_functions(p, &g, &b, &m);
	encode_rest(p, &g, &b);
	gz_feed(&g, NULL, 0, Z_FINISH);
	deflateEnd(&g.zs);
	pb__reset(&b);
	pb__reset(&m);
	pb__reset(&sub);
	if (!g.err && fflush(out) == EOF)
		g.err = write_err();
	return g.err;
}

int pprof__write(FILE *out, const struct pprof *p)
{
	return write_level(out, p, Z_DEFAULT_COMPRESSION);
}

int pprof__write_fast(FILE *out, const struct pprof *p)
{
	return write_level(out, p, Z_BEST_SPEED);
}
