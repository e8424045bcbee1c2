/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The call tree of the live table. Which lines are shown is decided first: the "ends" are the
 * nodes' self values and, per node, the sum of its light children (a "[N more]" group); the
 * heaviest --top ends are selected, and a node is shown when an end selected is at or below
 * it. The frame name is the last field of a line, so cutting a line to the width keeps the
 * number columns aligned.
 */
#include "views/flametree.h"
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "base/units.h"

#define NAME_MIN_COLS 16 /* what deep indentation always leaves to a frame name */
#define BAR_MIN 5
#define BAR_MAX 20
#define VALUE_COLS (10 + 1 + 6 + 1 + 9 + 1) /* value, percent, second column, spaces */

struct tree {
	FILE *out;
	enum fl_metric metric;
	unsigned width;
	unsigned barw;
	uint64_t total;		  /* the profile's value */
	double light;		  /* nodes below this value collapse */
	const struct pnode **sel; /* nodes whose self value is shown, sorted by address */
	size_t nsel;
	const struct pnode **groups; /* nodes whose "[N more]" line is shown, sorted likewise */
	size_t ngroups;
	const struct pnode **vis; /* nodes shown: the above and their ancestors, sorted */
	size_t nvis;
	uint64_t shown_value;  /* the ends shown so far */
	uint64_t shown_second; /* ... their second column (faults, or bytes at the peak) */
	enum fl_metric second; /* the second column */
};

struct end {
	const struct pnode *node;
	uint64_t value;
	size_t order; /* tree order, for equal values */
	bool group;   /* the light children of node, not its self */
};

struct ends {
	struct end *v;
	size_t n;
	size_t cap;
};

/* Columns the bar takes at @width. */
static unsigned bar_width(unsigned width)
{
	unsigned w = width / 8;

	return w < BAR_MIN ? BAR_MIN : w > BAR_MAX ? BAR_MAX : w;
}

static uint64_t node_value(const struct tree *t, const struct pnode *n)
{
	return metric__value(&n->total, t->metric);
}

static bool is_light(const struct tree *t, const struct pnode *n)
{
	return (double)node_value(t, n) < t->light;
}

static int ends_push(struct ends *e, const struct pnode *n, uint64_t v, bool group)
{
	struct end *ends = grow__reserve(e->v, &e->cap, e->n, sizeof(*ends));

	if (!ends)
		return -1;
	e->v = ends;
	e->v[e->n] = (struct end){ .node = n, .value = v, .order = e->n, .group = group };
	e->n++;
	return 0;
}

/* The ends at and below @n, which is not light, in tree order. */
static int collect(const struct tree *t, const struct pnode *n, struct ends *e)
{
	uint64_t self = metric__value(&n->self, t->metric), light = 0;
	size_t i;

	if (self && ends_push(e, n, self, false))
		return -1;
	for (i = 0; i < n->nchildren; i++) {
		if (is_light(t, n->children[i]))
			light += node_value(t, n->children[i]);
		else if (collect(t, n->children[i], e))
			return -1;
	}
	return light ? ends_push(e, n, light, true) : 0;
}

static int end_cmp(const void *a, const void *b)
{
	const struct end *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)(*(const struct pnode *const *)a);
	uintptr_t y = (uintptr_t)(*(const struct pnode *const *)b);

	return x < y ? -1 : x > y;
}

static bool in_set(const struct pnode *const *set, size_t n, const struct pnode *node)
{
	return n && bsearch(&node, set, n, sizeof(*set), ptr_cmp);
}

/* Sorts @set by address and drops duplicates. */
static size_t set_finish(const struct pnode **set, size_t n)
{
	size_t i, j;

	if (n > 1) /* an empty set may be NULL */
		qsort(set, n, sizeof(*set), ptr_cmp);
	for (i = j = 0; i < n; i++) {
		if (!j || set[j - 1] != set[i])
			set[j++] = set[i];
	}
	return j;
}

/* Adds @n and its ancestors below @root to t->vis (room for @cap). */
static int vis_add(struct tree *t, size_t *cap, const struct pnode *n, const struct pnode *root)
{
	const struct pnode **vis;

	for (; n && n != root; n = n->parent) {
		vis = grow__reserve(t->vis, cap, t->nvis, sizeof(*vis));
		if (!vis)
			return -1;
		t->vis = vis;
		t->vis[t->nvis++] = n;
	}
	return 0;
}

/* Selects the heaviest @top ends (0: all) and the nodes they make visible. */
static int select_ends(struct tree *t, const struct pnode *root, unsigned top)
{
	struct ends e = { 0 };
	size_t i, n, cap;
	int err = -1;

	if (collect(t, root, &e))
		goto cleanup;
	if (e.n > 1) /* an empty profile has no ends, and e.v is NULL */
		qsort(e.v, e.n, sizeof(*e.v), end_cmp);
	n = top && top < e.n ? top : e.n;
	cap = n * 8 + 1;
	t->sel = malloc((n + 1) * sizeof(*t->sel));
	t->groups = malloc((n + 1) * sizeof(*t->groups));
	t->vis = malloc(cap * sizeof(*t->vis));
	if (!t->sel || !t->groups || !t->vis)
		goto cleanup;
	for (i = 0; i < n; i++) {
		if (e.v[i].group)
			t->groups[t->ngroups++] = e.v[i].node;
		else
			t->sel[t->nsel++] = e.v[i].node;
		if (vis_add(t, &cap, e.v[i].node, root))
			goto cleanup;
	}
	t->nsel = set_finish(t->sel, t->nsel);
	t->ngroups = set_finish(t->groups, t->ngroups);
	t->nvis = set_finish(t->vis, t->nvis);
	err = 0;
cleanup:
	free(e.v);
	return err;
}

/* value, percent, the second column, bar, then the name indented by depth. */
static void tree_line(struct tree *t, unsigned depth, const char *name, uint64_t v, uint64_t second)
{
	char val[UNITS_BUF], sec[UNITS_BUF], bar[BAR_MAX + 1];
	double share = t->total ? (double)v / (double)t->total : 0;
	unsigned nbar = (unsigned)(share * t->barw + 0.5);
	int indent = 2 * (int)depth;
	int room = (int)t->width - VALUE_COLS - (int)t->barw - 1 - NAME_MIN_COLS;

	/* Deep stacks stop indenting rather than squeezing the names away. */
	if (indent > room)
		indent = room > 0 ? room : 0;
	memset(bar, '#', nbar);
	bar[nbar] = '\0';
	units__value(val, sizeof(val), v, metric__is_bytes(t->metric));
	units__value(sec, sizeof(sec), second, metric__is_bytes(t->second));
	units__emit(t->out, t->width, "%10s %5.1f%% %9s %-*s %*s%s", val, share * 100.0, sec,
		    (int)t->barw, bar, indent, "", name);
}

/* The "[N more]" line of @n's light children, when that group was selected. */
static void render_group(struct tree *t, const struct pnode *n, unsigned depth)
{
	uint64_t v = 0, second = 0;
	size_t i, count = 0;
	char label[48];

	if (!in_set(t->groups, t->ngroups, n))
		return;
	for (i = 0; i < n->nchildren; i++) {
		if (is_light(t, n->children[i])) {
			count++;
			v += node_value(t, n->children[i]);
			second += metric__value(&n->children[i]->total, t->second);
		}
	}
	snprintf(label, sizeof(label), "[%zu more]", count);
	tree_line(t, depth, label, v, second);
	t->shown_value += v;
	t->shown_second += second;
}

static int render_node(struct tree *t, const struct pnode *n, unsigned depth);

/* The shown children of @n, heaviest first, then its "[N more]" line. */
static int render_children(struct tree *t, const struct pnode *n, unsigned depth)
{
	const struct pnode **kids;
	size_t i, nkids = 0;
	int err = 0;

	kids = malloc((n->nchildren ? n->nchildren : 1) * sizeof(*kids));
	if (!kids)
		return -1;
	for (i = 0; i < n->nchildren; i++) {
		if (!is_light(t, n->children[i]) && in_set(t->vis, t->nvis, n->children[i]))
			kids[nkids++] = n->children[i];
	}
	if (nkids > 1)
		qsort_r(kids, nkids, sizeof(*kids), pnode__cmp_weight, &t->metric);
	for (i = 0; i < nkids && !err; i++)
		err = render_node(t, kids[i], depth);
	free(kids);
	if (!err)
		render_group(t, n, depth);
	return err;
}

static int render_node(struct tree *t, const struct pnode *n, unsigned depth)
{
	tree_line(t, depth, n->name, node_value(t, n), metric__value(&n->total, t->second));
	if (in_set(t->sel, t->nsel, n)) {
		t->shown_value += metric__value(&n->self, t->metric);
		t->shown_second += metric__value(&n->self, t->second);
	}
	return render_children(t, n, depth + 1);
}

static void render_titles(struct tree *t, const char *frames)
{
	char metric[16];
	size_t i;

	snprintf(metric, sizeof(metric), "%s", metric__name(t->metric));
	for (i = 0; metric[i]; i++)
		metric[i] = (char)toupper((unsigned char)metric[i]);
	units__emit(t->out, t->width, "%10s %6s %9s %-*s %s", metric, "%",
		    t->second == FL_METRIC_PEAK ? "AT-PEAK" : "FAULTS", (int)t->barw, "", frames);
}

void flametree__render(FILE *out, const struct profile *p, const struct table_opts *o,
		       unsigned width)
{
	const struct pnode *root = &p->root;
	struct tree t = {
		.out = out,
		.metric = o->metric,
		.width = width,
		.barw = bar_width(width),
		.total = metric__value(&root->total, o->metric),
		.second = o->peak_column ? FL_METRIC_PEAK : FL_METRIC_FAULTS,
	};

	t.light = o->min_share > 0 ? o->min_share * (double)t.total : 0;
	render_titles(&t, o->by_mapping_only ? "MAPPING" : "STACK");
	if (!t.total) {
		units__emit(out, width, "(no growth attributed yet)");
		return;
	}
	if (select_ends(&t, root, o->top) || render_children(&t, root, 0)) {
		units__emit(out, width, "(out of memory: the tree is not shown)");
		goto cleanup;
	}
	if (t.total > t.shown_value) {
		uint64_t second = metric__value(&root->total, t.second);

		/* at-peak values are clamped at 0 per node: the shown ones can sum past the root */
		tree_line(&t, 0, "[other stacks]", t.total - t.shown_value,
			  second > t.shown_second ? second - t.shown_second : 0);
	}
cleanup:
	free(t.sel);
	free(t.groups);
	free(t.vis);
}
