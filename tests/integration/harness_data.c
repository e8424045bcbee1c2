/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The integration tests' harness, the data side: /proc/PID/status, folded files, tolerances,
 * the stack walks of a --json document, and the BPF object ids bpftool and /proc/PID/fdinfo
 * show. See harness.h.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/jsonread.h"
#include "harness.h"

int h_read_status(pid_t pid, struct h_rss *r)
{
	char path[64], line[256];
	int seen = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		long long kb;

		if (sscanf(line, "RssAnon: %lld kB", &kb) == 1)
			r->anon = kb * 1024, seen |= 1;
		else if (sscanf(line, "RssFile: %lld kB", &kb) == 1)
			r->file = kb * 1024, seen |= 2;
		else if (sscanf(line, "RssShmem: %lld kB", &kb) == 1)
			r->shmem = kb * 1024, seen |= 4;
	}
	fclose(f);
	return seen == 7 ? 0 : -ENODATA;
}

void h_read_status_ok(pid_t pid, struct h_rss *r)
{
	int err = h_read_status(pid, r);

	cr_assert_eq(err, 0, "reading /proc/%d/status: %s", pid, strerror(-err));
}

bool h_within(double got, double want)
{
	double diff = got > want ? got - want : want - got;

	return diff <= H_TOLERANCE * (want < 0 ? -want : want);
}

/* The folded file's heaviest lines, for failure messages. */
static void folded_summary(const struct h_folded *f, char *buf, size_t size)
{
	size_t len = 0;
	bool *shown = calloc(f->n + 1, sizeof(*shown));

	buf[0] = '\0';
	for (int k = 0; k < 8 && shown && len < size; k++) {
		size_t best = f->n;

		for (size_t i = 0; i < f->n; i++)
			if (!shown[i] && (best == f->n || f->lines[i].value > f->lines[best].value))
				best = i;
		if (best == f->n)
			break;
		shown[best] = true;
		len += (size_t)snprintf(buf + len, size - len, "\n  %" PRIu64 " ",
					f->lines[best].value);
		for (size_t j = 0; j < f->lines[best].nframes && len < size; j++)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", j ? ";" : "",
						f->lines[best].frames[j]);
	}
	free(shown);
}

void h_within_ok(const char *what, uint64_t got, int64_t want, const struct h_folded *f)
{
	char summary[2048];

	if (h_within((double)got, (double)want))
		return;
	folded_summary(f, summary, sizeof(summary));
	cr_expect_fail("%s: got %" PRIu64 " bytes, expected %" PRId64
		       " (off by %.2f%%, allowed %.0f%%)"
		"\nheaviest folded lines (%zu in all):%s",
		what, got, want, want ? 100.0 * ((double)got - (double)want) / (double)want : 0.0,
		100 * H_TOLERANCE, f->n, summary);
}

/* Splits "a;b;c" into frames; false when a frame is empty. */
static bool split_frames(char *stack, struct h_fline *l)
{
	size_t n = 1;

	for (char *p = stack; *p; p++)
		n += *p == ';';
	l->frames = calloc(n, sizeof(*l->frames));
	cr_assert(l->frames, "out of memory");
	for (char *p = stack, *semi; p; p = semi ? semi + 1 : NULL) {
		semi = strchr(p, ';');
		if (semi)
			*semi = '\0';
		if (!*p)
			return false;
		l->frames[l->nframes] = strdup(p);
		cr_assert(l->frames[l->nframes], "out of memory");
		l->nframes++;
	}
	return true;
}

/* One line, without its '\n': "frame;frame;...;leaf VALUE". */
static bool parse_line(char *line, struct h_fline *l)
{
	char *space = strrchr(line, ' '), *end;

	if (!space || space == line || !isdigit((unsigned char)space[1]))
		return false;
	errno = 0;
	l->value = strtoull(space + 1, &end, 10);
	if (errno || *end != '\0')
		return false;
	*space = '\0';
	return split_frames(line, l);
}

int h_folded_load(const char *path, struct h_folded *f)
{
	char *text, *line, *next;
	size_t lineno = 0;

	memset(f, 0, sizeof(*f));
	if (access(path, R_OK))
		return snprintf(f->err, sizeof(f->err), "%s: %s", path, strerror(errno)), -ENOENT;
	text = h_read_file(path);
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line); /* a last line without its newline */
		lineno++;
		/* faultline's first line says what the file holds: kept, not a stack */
		if (lineno == 1) {
			if (strncmp(line, "# faultline folded metric=", 26)) {
				snprintf(f->err, sizeof(f->err),
					 "line 1 is not the layout line: %.100s", line);
				break;
			}
			snprintf(f->layout, sizeof(f->layout), "%s", line);
			continue;
		}
		f->lines = realloc(f->lines, (f->n + 1) * sizeof(*f->lines));
		cr_assert(f->lines, "out of memory");
		memset(&f->lines[f->n], 0, sizeof(f->lines[f->n]));
		if (!parse_line(line, &f->lines[f->n++])) {
			snprintf(f->err, sizeof(f->err),
				 "line %zu is not 'frame;...;frame VALUE': %.100s", lineno, line);
			break;
		}
	}
	free(text);
	return f->err[0] ? -EINVAL : 0;
}

void h_folded_load_ok(const char *path, struct h_folded *f)
{
	int err = h_folded_load(path, f);

	cr_assert_eq(err, 0, "folded file %s: %s", path, f->err);
}

void h_folded_free(struct h_folded *f)
{
	for (size_t i = 0; i < f->n; i++) {
		for (size_t j = 0; j < f->lines[i].nframes; j++)
			free(f->lines[i].frames[j]);
		free(f->lines[i].frames);
	}
	free(f->lines);
	memset(f, 0, sizeof(*f));
}

uint64_t h_folded_total(const struct h_folded *f)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < f->n; i++)
		sum += f->lines[i].value;
	return sum;
}

/*
 * @frame names function @name: equal, or followed by a decoration that cannot continue an
 * identifier ("touch_a+0x1f", "touch_a [threads]"), so touch_a never matches touch_ab.
 */
static bool frame_is(const char *frame, const char *name)
{
	size_t len = strlen(name);
	char next = frame[len];

	if (strncmp(frame, name, len))
		return false;
	return next == '\0' || !(isalnum((unsigned char)next) || next == '_' || next == '.');
}

uint64_t h_folded_frame(const struct h_folded *f, const char *name)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < f->n; i++) {
		for (size_t j = 1; j < f->lines[i].nframes; j++) {
			if (frame_is(f->lines[i].frames[j], name)) {
				sum += f->lines[i].value;
				break;
			}
		}
	}
	return sum;
}

uint64_t h_folded_edge(const struct h_folded *f, const char *caller, const char *callee)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < f->n; i++) {
		for (size_t j = 1; j + 1 < f->lines[i].nframes; j++) {
			if (frame_is(f->lines[i].frames[j], caller) &&
			    frame_is(f->lines[i].frames[j + 1], callee)) {
				sum += f->lines[i].value;
				break;
			}
		}
	}
	return sum;
}

uint64_t h_folded_thread(const struct h_folded *f, const char *name)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < f->n; i++)
		if (f->lines[i].nframes > 1 && !strcmp(f->lines[i].frames[1], name))
			sum += f->lines[i].value;
	return sum;
}

void h_folded_root_ok(const struct h_folded *f, const char *comm)
{
	for (size_t i = 0; i < f->n; i++)
		cr_assert_str_eq(f->lines[i].frames[0], comm,
				 "folded line %zu starts with \"%s\", not the process name \"%s\"",
				 i + 1, f->lines[i].frames[0], comm);
}

void h_walks_ok(const char *path, const char *what, uint64_t *whole, uint64_t *cut)
{
	char *text = h_read_file(path), key[64];
	const struct jv *ends;
	struct jv doc;

	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "%s is not JSON: %.300s", path, text);
	snprintf(key, sizeof(key), "stack_walks.%s", what);
	ends = jv_path(&doc, key);
	cr_assert(ends && ends->type == JV_OBJ, "%s has no %s", path, key);
	*whole = *cut = 0;
	for (size_t i = 0; i < ends->n; i++) {
		uint64_t v;

		cr_assert(jv_u64(&ends->items[i], &v), "%s.%s is no byte count", key,
			  ends->keys[i]);
		if (!strcmp(ends->keys[i], "whole"))
			*whole += v;
		else
			*cut += v;
	}
	jv_free(&doc);
	free(text);
}

static int add_id(uint32_t *ids, size_t *n, size_t max, unsigned long id)
{
	for (size_t i = 0; i < *n; i++)
		if (ids[i] == id)
			return 0;
	if (*n >= max)
		return -ENOBUFS;
	ids[(*n)++] = (uint32_t)id;
	return 0;
}

int h_bpftool_ids(const char *kind, uint32_t *ids, size_t max)
{
	const char *bpftool = getenv("BPFTOOL") ? getenv("BPFTOOL") : "bpftool";
	char cmd[256], *text = NULL;
	size_t len = 0, n = 0;
	FILE *p;
	int err = 0;

	snprintf(cmd, sizeof(cmd), "%s -j %s show 2>/dev/null", bpftool, kind);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	/* bpftool -j prints one JSON array on one line; read it whole. */
	if (getdelim(&text, &len, '\0', p) < 0)
		err = -EIO;
	if (pclose(p) != 0)
		err = -EIO;
	/* Objects' own ids are the "id" keys; "prog_id", "btf_id" and friends do not match. */
	for (char *s = text; !err && s && (s = strstr(s, "\"id\":")); s += 5)
		err = add_id(ids, &n, max, strtoul(s + 5, NULL, 10));
	free(text);
	return err ? err : (int)n;
}

int h_fdinfo_ids(pid_t pid, const char *key, uint32_t *ids, size_t max)
{
	char path[PATH_MAX], line[256];
	size_t keylen = strlen(key), n = 0;
	struct dirent *e;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!err && (e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, e->d_name);
		f = fopen(path, "r");
		while (f && !err && fgets(line, sizeof(line), f))
			if (!strncmp(line, key, keylen) && line[keylen] == ':')
				err = add_id(ids, &n, max, strtoul(line + keylen + 1, NULL, 10));
		if (f)
			fclose(f);
	}
	closedir(d);
	return err ? err : (int)n;
}

const struct h_toucher h_touchers[H_NTOUCHERS] = {
	{ "touch_a", "toucher-a", 8 * H_MIB },
	{ "touch_b", "toucher-b", 16 * H_MIB },
	{ "touch_c", "toucher-c", 24 * H_MIB },
};
