/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * faultline diff. A stack is a folded line, or an entry of a --json profile's "stacks": its
 * value in each file is the self value of its leaf node, so stacks are compared exactly as
 * the files list them, and the tree (with the frames' totals) is left to the differential
 * flame graph.
 */
#include "diff.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/grow.h"
#include "base/units.h"
#include "cli.h"
#include "formats/foldedread.h"
#include "formats/jsonprofile.h"
#include "formats/output.h"
#include "formats/svg.h"

#define FIXED_COLS 44 /* the four number columns and their spaces, before the stack */

struct stack_list {
	struct diff_row *v; /* only stack and one value used */
	size_t n, cap;
};

/* "frame;...;name" of @n, from the root's child down. */
static char *path_of(const struct pnode *n)
{
	size_t len = 0, o;
	char *s;

	for (const struct pnode *x = n; x->parent; x = x->parent)
		len += strlen(x->name) + 1;
	if (!len) /* the root */
		return strdup("");
	s = malloc(len);
	if (!s)
		return NULL;
	o = len - 1;
	s[o] = '\0';
	for (const struct pnode *x = n; x->parent; x = x->parent) {
		size_t k = strlen(x->name);

		o -= k;
		memcpy(s + o, x->name, k);
		if (o)
			s[--o] = ';';
	}
	return s;
}

static int row_stack_cmp(const void *a, const void *b)
{
	int r = strcmp(((const struct diff_row *)a)->stack, ((const struct diff_row *)b)->stack);

	return r < 0 ? -1 : r > 0;
}

/* @n and every node below it with a self value above 0, as (path, value in .after). */
static int collect(const struct pnode *n, enum fl_metric m, struct stack_list *l)
{
	uint64_t v = n->parent ? metric__value(&n->self, m) : 0;
	int err = 0;

	if (v) {
		struct diff_row *grown = grow__reserve(l->v, &l->cap, l->n, sizeof(*l->v));

		if (!grown)
			return -ENOMEM;
		l->v = grown;
		l->v[l->n].stack = path_of(n);
		if (!l->v[l->n].stack)
			return -ENOMEM;
		l->v[l->n++].after = v;
	}
	for (size_t i = 0; i < n->nchildren && !err; i++)
		err = collect(n->children[i], m, l);
	return err;
}

/* The stacks of @p sorted by path. Recursion is bounded by the reader's frame limit. */
static int stacks_of(const struct profile *p, enum fl_metric m, struct stack_list *l)
{
	int err = collect(&p->root, m, l);

	if (!err && l->n)
		qsort(l->v, l->n, sizeof(*l->v), row_stack_cmp);
	return err;
}

static uint64_t magnitude(const struct diff_row *r)
{
	return r->after > r->before ? r->after - r->before : r->before - r->after;
}

static int row_change_cmp(const void *a, const void *b)
{
	uint64_t x = magnitude(a), y = magnitude(b);

	if (x != y)
		return x > y ? -1 : 1;
	return row_stack_cmp(a, b);
}

/* *@sum += @v held at UINT64_MAX, which @d notes: values read from files can be anything. */
static void add_to(struct diff *d, uint64_t *sum, uint64_t v)
{
	if (__builtin_add_overflow(*sum, v, sum)) {
		*sum = UINT64_MAX;
		d->saturated = true;
	}
}

static void count_row(struct diff *d, const struct diff_row *r)
{
	add_to(d, &d->total_before, r->before);
	add_to(d, &d->total_after, r->after);
	d->stacks_before += r->before > 0;
	d->stacks_after += r->after > 0;
	d->added += !r->before;
	d->gone += !r->after;
	if (r->after > r->before) {
		d->grew++;
		add_to(d, &d->grown, r->after - r->before);
	} else if (r->after < r->before) {
		d->shrank++;
		add_to(d, &d->shrunk, r->before - r->after);
	} else {
		d->same++;
	}
}

/* Merges the two sorted lists into d->rows, taking over their strings; changed rows kept. */
static void merge(struct diff *d, struct stack_list *b, struct stack_list *a)
{
	size_t i = 0, j = 0;

	while (i < b->n || j < a->n) {
		int c = i == b->n ? 1 : j == a->n ? -1 : row_stack_cmp(&b->v[i], &a->v[j]);
		struct diff_row r = { .stack = c <= 0 ? b->v[i].stack : a->v[j].stack };

		r.before = c <= 0 ? b->v[i++].after : 0;
		if (c >= 0) {
			r.after = a->v[j].after;
			if (c == 0)
				free(a->v[j].stack);
			j++;
		}
		count_row(d, &r);
		if (r.before != r.after)
			d->rows[d->n++] = r;
		else
			free(r.stack);
	}
	b->n = a->n = 0;
}

static void list_fini(struct stack_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].stack);
	free(l->v);
}

int diff__compute(const struct profile *before, const struct profile *after, enum fl_metric m,
		  struct diff *d)
{
	struct stack_list b = { 0 }, a = { 0 };
	int err;

	memset(d, 0, sizeof(*d));
	d->saturated = before->saturated || after->saturated;
	err = stacks_of(before, m, &b) ?: stacks_of(after, m, &a);
	if (!err && b.n + a.n && !(d->rows = calloc(b.n + a.n, sizeof(*d->rows))))
		err = -ENOMEM;
	if (!err) {
		merge(d, &b, &a);
		if (d->n)
			qsort(d->rows, d->n, sizeof(*d->rows), row_change_cmp);
	}
	list_fini(&b);
	list_fini(&a);
	if (err)
		diff__fini(d);
	return err;
}

void diff__fini(struct diff *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->rows[i].stack);
	free(d->rows);
	memset(d, 0, sizeof(*d));
}

/* @stack within @room bytes: "first;..;callers;leaf" keeping as many leaf-side frames as fit
 * (at least the leaf, whatever its length). Returns true when frames were left out. */
static bool fit_stack(char *out, size_t len, const char *stack, size_t room)
{
	const char *first_end = strchr(stack, ';'), *tail;
	size_t first = first_end ? (size_t)(first_end - stack) : 0;

	if (strlen(stack) <= room || !first_end) {
		snprintf(out, len, "%s", stack);
		return false;
	}
	tail = strrchr(stack, ';') + 1; /* the leaf */
	while (tail - 1 > first_end) {
		const char *prev = tail - 2;

		while (*prev != ';')
			prev--;
		if (first + 4 + strlen(prev + 1) > room)
			break;
		tail = prev + 1;
	}
	if (first + 4 + strlen(tail) <= room)
		snprintf(out, len, "%.*s;..;%s", (int)first, stack, tail);
	else
		snprintf(out, len, "..;%s", tail);
	return true;
}

static void print_row(FILE *out, uint64_t b, uint64_t a, const char *what, enum fl_metric m,
		      unsigned width)
{
	char vb[UNITS_BUF], va[UNITS_BUF], vd[UNITS_BUF], pc[16];

	units__emit(out, width, "%10s %10s %11s %8s  %s",
		    units__value(vb, sizeof(vb), b, metric__is_bytes(m)),
		    units__value(va, sizeof(va), a, metric__is_bytes(m)),
		    units__delta(vd, sizeof(vd), b, a, metric__is_bytes(m)),
		    units__change(pc, sizeof(pc), b, a, true), what);
}

bool diff__print(FILE *out, const struct diff *d, const struct diff_config *cfg, unsigned width)
{
	char stack[UNITS_LINE_MAX + 1], vg[UNITS_BUF], vs[UNITS_BUF];
	enum fl_metric m = cfg->metric;
	size_t shown = d->n < cfg->top ? d->n : cfg->top;
	bool shortened = false;

	units__emit(out, width, "faultline diff (%s): %s -> %s", metric__name(m), cfg->before,
		    cfg->after);
	units__emit(out, width, "%10s %10s %11s %8s", "BEFORE", "AFTER", "DELTA", "CHANGE");
	print_row(out, d->total_before, d->total_after, "total", m, width);
	units__emit(out, width,
		    "stacks: %zu -> %zu; %zu grew (%s), %zu shrank (%s), %zu new, "
		    "%zu gone, %zu unchanged",
		    d->stacks_before, d->stacks_after, d->grew,
		    units__delta(vg, sizeof(vg), 0, d->grown, metric__is_bytes(m)), d->shrank,
		    units__delta(vs, sizeof(vs), d->shrunk, 0, metric__is_bytes(m)), d->added,
		    d->gone, d->same);
	if (d->saturated)
		units__emit(out, width,
			    "note: a sum passed its limit (2^64-1) and was held there "
			    "(saturated): totals are lower bounds");
	fputc('\n', out);
	if (!d->n) {
		units__emit(out, width, "no stack changed");
		return false;
	}
	units__emit(out, width, "stacks by absolute change (%zu of %zu):", shown, d->n);
	units__emit(out, width, "%10s %10s %11s %8s  %s", "BEFORE", "AFTER", "DELTA", "CHANGE",
		    "STACK");
	for (size_t i = 0; i < shown; i++) {
		const struct diff_row *r = &d->rows[i];

		shortened |= fit_stack(stack, sizeof(stack), r->stack,
				       width > FIXED_COLS ? width - FIXED_COLS : 1);
		print_row(out, r->before, r->after, stack, m, width);
	}
	fflush(out);
	return shortened;
}

/* A --json profile begins with '{'; a folded line never does (its first frame is a name).
 * Leaves @f where it was. */
static bool starts_like_json(FILE *f)
{
	int c;

	while ((c = getc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		;
	rewind(f);
	return c == '{';
}

const char *diff__unmeasured(const struct jsonprofile_scope *scope, enum fl_metric m)
{
	if (!scope->known)
		return NULL;
	if (metric__needs_alloc(m) && !scope->alloc)
		return "it was written without --alloc";
	if (metric__needs_frees(m) && scope->churn)
		return "it was written by --alloc=churn, which does not trace frees (compare "
		       "alloc-bytes or alloc-count)";
	if (metric__needs_vm(m) && !scope->vm)
		return "it was written without --vm";
	if (metric__needs_new(m) && !scope->new_pages)
		return "it was written without --metric new";
	return NULL;
}

/* The layout line of folded file @path into *@l: 1 when it has one, else 0 (a file of another
 * tool or an older faultline, a JSON profile, or one that cannot be read, which load() says). */
static int read_layout(const char *path, struct folded_layout *l)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int has = 0;

	if (!f)
		return 0;
	if ((len = getline(&line, &cap, f)) > 0) {
		line[strcspn(line, "\r\n")] = '\0';
		has = folded__parse_layout(line, l) > 0;
	}
	free(line);
	fclose(f);
	return has;
}

static void describe_layout(char *buf, size_t len, const struct folded_layout *l)
{
	snprintf(buf, len, "metric=%s by=%s threads=%s", metric__name(l->metric), l->by,
		 l->threads ? "yes" : "no");
}

/*
 * Folded files that say what they hold are compared only with their like (issue 25: a
 * --metric peak file was diffed with a --by mapping one without a word), and their metric is
 * the one the values are read as. Files without the line (older, or another tool's) are taken
 * as before, by --metric. Returns 0, or -EDOM after saying on one line why not.
 */
static int check_layouts(struct diff_config *cfg)
{
	struct folded_layout b, a;
	int has_b = read_layout(cfg->before, &b), has_a = read_layout(cfg->after, &a);
	const struct folded_layout *l = has_b ? &b : has_a ? &a : NULL;
	const char *path = has_b ? cfg->before : cfg->after;
	char lb[96], la[96];

	if (has_b && has_a &&
	    (b.metric != a.metric || strcmp(b.by, a.by) || b.threads != a.threads)) {
		describe_layout(lb, sizeof(lb), &b);
		describe_layout(la, sizeof(la), &a);
		fprintf(stderr,
			"faultline diff: %s holds %s, %s holds %s: different metrics or layouts "
			"do not compare\n",
			cfg->before, lb, cfg->after, la);
		return -EDOM;
	}
	if (!l)
		return 0;
	if (cfg->metric_given && cfg->metric != l->metric) {
		fprintf(stderr, "faultline diff: %s holds metric %s, not --metric %s\n", path,
			metric__name(l->metric), metric__name(cfg->metric));
		return -EDOM;
	}
	cfg->metric = l->metric;
	return 0;
}

/* @path's stacks (a folded or a --json file) into a new *@p: 0, -EDOM when a --json file did
 * not measure @m, or -errno; reported. */
static int load(const char *path, enum fl_metric m, struct profile **p)
{
	struct jsonprofile_scope scope = { 0 };
	FILE *f = fopen(path, "re");
	const char *why;
	int err;

	if (!f) {
		err = -errno;
		fprintf(stderr, "faultline: cannot read %s: %s\n", path, strerror(errno));
		return err;
	}
	*p = profile__new();
	if (!*p)
		err = -ENOMEM;
	else if (starts_like_json(f))
		err = jsonprofile__read(f, path, *p, stderr, &scope);
	else
		err = folded__read_file(f, path, *p, m, stderr);
	fclose(f);
	why = err ? NULL : diff__unmeasured(&scope, m);
	if (why) {
		fprintf(stderr, "faultline: %s has no %s to compare: %s\n", path, metric__name(m),
			why);
		err = -EDOM;
	}
	return err;
}

static int write_svg(const struct diff_config *cfg, struct output *out, const struct profile *b,
		     const struct profile *a)
{
	struct svg_opts o = { .metric = cfg->metric,
			      .title = "faultline diff",
			      .before_name = cfg->before,
			      .after_name = cfg->after };
	FILE *f;
	int err = output__file(out, &f);

	return output__close(out, err ?: svg__write_diff(f, b, a, &o));
}

/* The report on stdout. A reader that closed it early (`| head`) has what it wanted: only
 * another failure makes the exit status 1. */
static int print_report(const struct diff *d, const struct diff_config *cfg)
{
	unsigned width, rows;
	bool shortened;
	int err;

	units__terminal(cfg->width, &width, &rows);
	/* a stack shortened in the middle hides callers as a cut line does */
	shortened = diff__print(stdout, d, cfg, width);
	if (cfg->width == UNITS_WIDTH_UNSET && (shortened || units__lines_cut()))
		units__say_cut(stderr, "faultline diff", width);
	err = output__stream_error(stdout);
	if (err)
		fprintf(stderr, "faultline: writing the report to stdout failed: %s\n",
			strerror(-err));
	return err == -EPIPE ? 0 : err;
}

int diff__main(int argc, char **argv)
{
	struct profile *before = NULL, *after = NULL;
	struct diff_config cfg;
	struct output svg = { 0 };
	struct diff d = { 0 };
	int err = diff__parse_args(argc, argv, &cfg);

	if (err)
		return err == FL_CLI_DONE ? 0 : 2;
	/* before reading anything: a path that cannot be written is told at once */
	if (cfg.svg)
		err = output__open(&svg, cfg.svg);
	if (!err)
		err = check_layouts(&cfg);
	if (!err)
		err = load(cfg.before, cfg.metric, &before) ?: load(cfg.after, cfg.metric, &after);
	if (!err)
		err = diff__compute(before, after, cfg.metric, &d);
	if (!err) {
		err = print_report(&d, &cfg);
		/* written even when the report failed: it is a separate file */
		if (cfg.svg)
			err = write_svg(&cfg, &svg, before, after) ?: err;
	}
	if (err == -ENOMEM)
		fprintf(stderr, "faultline: out of memory\n");
	output__discard(&svg);
	diff__fini(&d);
	profile__free(before);
	profile__free(after);
	return err == -EDOM ? 2 : err ? 1 : 0;
}
