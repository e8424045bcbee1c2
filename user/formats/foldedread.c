/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Folded stacks read back. The whole file is read even after a bad line, so that one run
 * names every problem (up to a bound), but a file with a bad line is refused: a diff of half
 * a file would rank the missing stacks as shrunk.
 */
#include "formats/foldedread.h"
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	const char *name;
	FILE *errs;
	size_t line;
	size_t bad;
	const char **frames; /* FOLDED_MAX_FRAMES pointers into the line */
};

__attribute__((format(printf, 2, 3))) static void bad_line(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (++r->bad > FOLDED_MAX_ERRORS)
		return;
	fprintf(r->errs, "faultline: %s:%zu: ", r->name, r->line);
	va_start(ap, fmt);
	vfprintf(r->errs, fmt, ap);
	va_end(ap);
	fputc('\n', r->errs);
}

/* @s cut to 40 bytes with control characters as '?', for a message. */
static const char *shown(char *buf, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len && i < 40; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

/* True when @s is digits with at most one '.' among them: a number, though maybe not whole. */
static bool decimal(const char *s)
{
	size_t whole = strspn(s, "0123456789"), frac = 0;

	if (s[whole] == '.')
		frac = strspn(s + whole + 1, "0123456789");
	return whole + frac > 0 && !s[whole + (s[whole] == '.') + frac];
}

/* A whole decimal number up to INT64_MAX: 0, or -EINVAL after saying what is wrong. */
static int parse_value(struct reader *r, const char *s, uint64_t *out)
{
	char tmp[48];
	uint64_t v = 0;

	if (!*s) {
		bad_line(r, "no value after the last space (expected 'frame;...;frame VALUE')");
		return -EINVAL;
	}
	if (s[strspn(s, "0123456789")]) {
		if (s[0] == '-' && decimal(s + 1))
			bad_line(r, "value '%s' is negative", shown(tmp, sizeof(tmp), s));
		else if (decimal(s))
			bad_line(r, "value '%s' is not a whole number", shown(tmp, sizeof(tmp), s));
		else
			bad_line(r, "value '%s' is not a whole decimal number",
				 shown(tmp, sizeof(tmp), s));
		return -EINVAL;
	}
	for (const char *p = s; *p; p++) {
		if (v > ((uint64_t)INT64_MAX - (uint64_t)(*p - '0')) / 10) {
			bad_line(r, "value '%s' is too large (more than %" PRId64 ")",
				 shown(tmp, sizeof(tmp), s), INT64_MAX);
			return -EINVAL;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

/* Splits @s (the frames, cut at the value) at ';' into r->frames: their number, or 0. */
static size_t split_frames(struct reader *r, char *s)
{
	size_t n = 0;

	if (!*s) {
		bad_line(r, "no frames before the value");
		return 0;
	}
	for (;;) {
		char *semi = strchr(s, ';');

		if (semi)
			*semi = '\0';
		if (!*s) {
			bad_line(r, "frame %zu is empty", n + 1);
			return 0;
		}
		if (n == FOLDED_MAX_FRAMES) {
			bad_line(r, "more than %d frames", FOLDED_MAX_FRAMES);
			return 0;
		}
		r->frames[n++] = s;
		if (!semi)
			return n;
		s = semi + 1;
	}
}

/* The value of "@key=" among the words of @s, into @out (@len bytes): 0, or -EINVAL. */
static int layout_word(const char *s, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key), vlen;

	for (const char *w = s; w && *w; w = strchr(w, ' ')) {
		w += *w == ' ';
		if (strncmp(w, key, klen) || w[klen] != '=')
			continue;
		w += klen + 1;
		vlen = strcspn(w, " \r\n");
		if (!vlen || vlen >= len)
			return -EINVAL;
		memcpy(out, w, vlen);
		out[vlen] = '\0';
		return 0;
	}
	return -EINVAL;
}

int folded__parse_layout(const char *line, struct folded_layout *l)
{
	static const char *const layouts[] = { "stack", "mapping", "stack,mapping" };
	const char *s = line + strlen(FOLDED_LAYOUT_PREFIX);
	char metric[32], threads[8];
	bool known = false;

	const char *last = strrchr(line, ' ');

	if (strncmp(line, FOLDED_LAYOUT_PREFIX, strlen(FOLDED_LAYOUT_PREFIX)))
		return 0;
	/* the layout line never ends in a count: one that does is a stack whose frame starts
	 * so, as flame graph tools read it too */
	if (last && last[1] && strspn(last + 1, "0123456789") == strlen(last + 1))
		return 0;
	memset(l, 0, sizeof(*l));
	if (layout_word(s, "metric", metric, sizeof(metric)) || metric__parse(metric, &l->metric) ||
	    layout_word(s, "by", l->by, sizeof(l->by)) ||
	    layout_word(s, "threads", threads, sizeof(threads)) ||
	    (strcmp(threads, "yes") && strcmp(threads, "no")))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		known |= !strcmp(l->by, layouts[i]);
	l->threads = !strcmp(threads, "yes");
	return known ? 1 : -EINVAL;
}

/* One line without its newline: 0 (added or skipped), -EINVAL (reported), -ENOMEM. */
static int read_line(struct reader *r, char *line, size_t len, struct profile *p, enum fl_metric m)
{
	struct folded_layout layout;
	struct fl_counts c;
	uint64_t v;
	size_t n;
	char *sp;
	int is_layout;

	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	if (strlen(line) != len) {
		bad_line(r, "the line holds a NUL byte");
		return -EINVAL;
	}
	/* the first line may say what the file holds; diff__main() read it already */
	is_layout = r->line == 1 ? folded__parse_layout(line, &layout) : 0;
	if (is_layout < 0) {
		bad_line(r, "a faultline layout line that names no known metric or layout "
			    "(expected '" FOLDED_LAYOUT_PREFIX "metric=NAME by=stack threads=no')");
		return -EINVAL;
	}
	if (is_layout)
		return 0;
	if (!line[strspn(line, " \t")])
		return 0;
	sp = strrchr(line, ' ');
	if (!sp) {
		bad_line(r, "no value (expected 'frame;...;frame VALUE')");
		return -EINVAL;
	}
	*sp = '\0';
	if (parse_value(r, sp + 1, &v))
		return -EINVAL;
	n = split_frames(r, line);
	if (!n)
		return -EINVAL;
	c = metric__counts(m, v);
	return profile__add(p, r->frames, n, &c);
}

/* Every line of @in; with @whole_lines, a last line without its newline is a bad line too. */
static int read_lines(FILE *in, const char *name, struct profile *p, enum fl_metric m, FILE *errs,
		      bool whole_lines)
{
	struct reader r = { .name = name, .errs = errs };
	bool ended = true;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	r.frames = malloc(FOLDED_MAX_FRAMES * sizeof(*r.frames));
	if (!r.frames)
		return -ENOMEM;
	errno = 0;
	while (err != -ENOMEM && (len = getline(&line, &cap, in)) >= 0) {
		r.line++;
		ended = len && line[len - 1] == '\n';
		if (ended)
			line[--len] = '\0';
		err = read_line(&r, line, (size_t)len, p, m);
	}
	if (err != -ENOMEM && whole_lines && !ended && !ferror(in))
		bad_line(&r, "the last line has no newline: the file is truncated (faultline ends "
			     "every line with one)");
	if (err != -ENOMEM && ferror(in)) {
		err = errno ? -errno : -EIO;
		fprintf(errs, "faultline: reading %s failed: %s\n", name, strerror(-err));
	} else if (err != -ENOMEM && r.bad) {
		if (r.bad > FOLDED_MAX_ERRORS)
			fprintf(errs, "faultline: %s: %zu more bad line%s\n", name,
				r.bad - FOLDED_MAX_ERRORS,
				r.bad - FOLDED_MAX_ERRORS > 1 ? "s" : "");
		err = -EINVAL;
	}
	free(line);
	free(r.frames);
	return err;
}

int folded__read(FILE *in, const char *name, struct profile *p, enum fl_metric m, FILE *errs)
{
	return read_lines(in, name, p, m, errs, false);
}

int folded__read_file(FILE *in, const char *name, struct profile *p, enum fl_metric m, FILE *errs)
{
	return read_lines(in, name, p, m, errs, true);
}
