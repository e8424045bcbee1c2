// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "views/inventorytable.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"

/* Short kind labels: the name column needs the room. */
static const char *const kind_labels[MAPKIND__COUNT] = {
	[MAPKIND_HEAP] = "heap",      [MAPKIND_ARENA] = "arena",
	[MAPKIND_STACK] = "stack",    [MAPKIND_THREAD_STACK] = "thread",
	[MAPKIND_ANON] = "anon",      [MAPKIND_FILE] = "file",
	[MAPKIND_SHMEM] = "shmem",    [MAPKIND_HUGETLB] = "hugetlb",
	[MAPKIND_NO_ACCESS] = "none", [MAPKIND_KERNEL] = "kernel",
};

/* What a group of small mappings of a kind is called, after its count. */
static const char *const group_names[MAPKIND__COUNT] = {
	[MAPKIND_ANON] = "small anonymous mappings",
	[MAPKIND_FILE] = "small file mappings",
	[MAPKIND_NO_ACCESS] = "no-access reservations (guard pages, reserves)",
	[MAPKIND_KERNEL] = "kernel mappings ([vdso], [vvar], ...)",
};

static uint64_t weight(const struct inv_row *r)
{
	uint64_t a = r->at[INV_AT_ATTACH].rss + r->at[INV_AT_ATTACH].hugetlb;
	uint64_t e = r->at[INV_AT_END].rss + r->at[INV_AT_END].hugetlb;

	return a > e ? a : e;
}

static void add(struct inv_row *r, const struct inv_row *x)
{
	for (int s = 0; s < INV_SIDES; s++) {
		struct inv_figures *f = &r->at[s];
		const struct inv_figures *g = &x->at[s];

		r->seen[s] |= x->seen[s];
		f->rss += g->rss;
		f->anon += g->anon;
		f->swap += g->swap;
		f->pss += g->pss;
		f->anon_huge += g->anon_huge;
		f->hugetlb += g->hugetlb;
	}
	if (r->owner != x->owner)
		r->owner = INVENTORYTABLE_OWNER_MIXED;
	r->nmappings += x->nmappings;
}

static int by_key(const void *a, const void *b)
{
	const struct inv_row *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_weight(const void *a, const void *b)
{
	const struct inv_row *x = a, *y = b;
	uint64_t wx = weight(x), wy = weight(y);

	if (wx != wy)
		return wx > wy ? -1 : 1;
	return by_key(a, b);
}

/* Grouped with the others of its kind: what is small and has no name of its own worth a row
 * (a thread's stack, the heap, an arena, shared memory always have one). */
static bool small(const struct inv_row *r)
{
	switch (r->kind) {
	case MAPKIND_NO_ACCESS:
	case MAPKIND_KERNEL:
		return true;
	case MAPKIND_ANON:
	case MAPKIND_FILE:
		return weight(r) < INVENTORYTABLE_SMALL;
	default:
		return false;
	}
}

int inventorytable__rows(const struct inventory *inv, struct inv_row **rows, size_t *n)
{
	struct inv_row *v = calloc(inv->n ? inv->n : 1, sizeof(*v));
	struct inv_row groups[MAPKIND__COUNT] = {};
	size_t nr = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n; i++) {
		const struct inv_mapping *m = &inv->v[i];
		struct inv_row *r = &v[i];

		r->kind = m->kind.kind;
		inventory__name(m, r->name, sizeof(r->name));
		if (m->mapped_by && inventory__caller(inv, m->mapped_by)) {
			size_t len = strlen(r->name);

			snprintf(r->name + len, sizeof(r->name) - len, " by %s",
				 inventory__caller(inv, m->mapped_by));
		}
		r->nmappings = 1;
		r->owner = m->owner;
		for (int s = 0; s < INV_SIDES; s++) {
			r->seen[s] = m->seen[s];
			r->at[s] = m->at[s];
			r->at[s].start = r->at[s].end = 0;
		}
	}
	/* one row per kind and name: a file's segments, an arena and its reserve */
	qsort(v, inv->n, sizeof(*v), by_key);
	for (size_t i = 0; i < inv->n; i++) {
		if (nr && !by_key(&v[nr - 1], &v[i]))
			add(&v[nr - 1], &v[i]);
		else
			v[nr++] = v[i];
	}
	/* small ones by kind */
	for (size_t i = 0, kept = 0; i <= nr; i++) {
		struct inv_row *g = i < nr ? &groups[v[i].kind] : NULL;

		if (i == nr)
			nr = kept;
		else if (!small(&v[i]))
			v[kept++] = v[i];
		else if (!g->nmappings)
			*g = v[i];
		else
			add(g, &v[i]);
	}
	for (int k = 0; k < MAPKIND__COUNT; k++) {
		if (!groups[k].nmappings)
			continue;
		groups[k].grouped = true;
		snprintf(groups[k].name, sizeof(groups[k].name), "%zu %s", groups[k].nmappings,
			 group_names[k] ? group_names[k] : "other mappings");
		v[nr++] = groups[k];
	}
	qsort(v, nr, sizeof(*v), by_weight);
	*rows = v;
	*n = nr;
	return 0;
}

static const char *owner_label(int owner)
{
	switch (owner) {
	case INV_OWNER_ALLOCATOR:
		return "alloc";
	case INV_OWNER_APPLICATION:
		return "app";
	case INVENTORYTABLE_OWNER_MIXED:
		return "mixed";
	default:
		return "-";
	}
}

/* @v as bytes, or "-" when that read did not see it. */
static const char *cell(char buf[UNITS_BUF], bool seen, uint64_t v)
{
	if (!seen)
		return "-";
	return units__bytes(buf, UNITS_BUF, v);
}

static void render_row(FILE *out, unsigned width, const struct inv_row *r, bool swap)
{
	const struct inv_figures *a = &r->at[INV_AT_ATTACH], *e = &r->at[INV_AT_END];
	char b[6][UNITS_BUF], name[sizeof(r->name)];
	/* the end's figures, else (gone by then) the attach's: what it held when last seen */
	const struct inv_figures *last = r->seen[INV_AT_END] ? e : a;

	snprintf(name, sizeof(name), "%s", r->name);
	units__sanitize(name);
	units__sbytes(b[2], UNITS_BUF, report__sdiff(e->rss, a->rss));
	if (swap)
		units__emit(out, width, "  %9s %9s %10s %9s %9s %9s %-5s %-7s %s",
			    cell(b[0], r->seen[INV_AT_ATTACH], a->rss),
			    cell(b[1], r->seen[INV_AT_END], e->rss), b[2],
			    units__bytes(b[3], UNITS_BUF, last->anon),
			    units__bytes(b[4], UNITS_BUF, last->swap),
			    units__bytes(b[5], UNITS_BUF, last->pss), owner_label(r->owner),
			    kind_labels[r->kind], name);
	else
		units__emit(out, width, "  %9s %9s %10s %9s %9s %-5s %-7s %s",
			    cell(b[0], r->seen[INV_AT_ATTACH], a->rss),
			    cell(b[1], r->seen[INV_AT_END], e->rss), b[2],
			    units__bytes(b[3], UNITS_BUF, last->anon),
			    units__bytes(b[5], UNITS_BUF, last->pss), owner_label(r->owner),
			    kind_labels[r->kind], name);
}

/* The rows past the bound, in one line: how many of each kind, and what they hold. */
static void render_rest(FILE *out, unsigned width, const struct inv_row *v, size_t from, size_t n)
{
	char line[UNITS_LINE_MAX + 1], b[UNITS_BUF];
	size_t count[MAPKIND__COUNT] = {}, len;
	uint64_t rss = 0;

	for (size_t i = from; i < n; i++) {
		count[v[i].kind]++;
		rss += v[i].at[v[i].seen[INV_AT_END] ? INV_AT_END : INV_AT_ATTACH].rss;
	}
	len = (size_t)snprintf(line, sizeof(line), "  [%zu more rows:", n - from);
	for (int k = 0; k < MAPKIND__COUNT && len < sizeof(line); k++)
		if (count[k])
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %zu %s,",
						count[k], kind_labels[k]);
	if (len < sizeof(line))
		snprintf(line + len - 1, sizeof(line) - len + 1, "; %s resident when last seen]",
			 units__bytes(b, sizeof(b), rss));
	units__emit(out, width, "%s", line);
}

/* The sum of the rows at @side against VmRSS read with them. */
static void render_sum(FILE *out, unsigned width, const struct inventory *inv, enum inv_side side,
		       const char *label)
{
	const struct inv_read *r = &inv->reads[side];
	char b[6][UNITS_BUF];
	struct inv_figures sum;

	if (!r->taken) {
		units__emit(out, width, "  %-9s (not read: the process %s)", label,
			    side == INV_AT_END ? "had exited" : "was not running its image yet");
		return;
	}
	inventory__totals(inv, side, &sum);
	units__bytes(b[0], UNITS_BUF, sum.rss);
	units__bytes(b[1], UNITS_BUF, sum.anon);
	units__bytes(b[2], UNITS_BUF, sum.swap);
	units__bytes(b[3], UNITS_BUF, sum.pss);
	if (r->have_vm_rss) {
		units__bytes(b[4], UNITS_BUF, r->vm_rss);
		units__sbytes(b[5], UNITS_BUF, inventory__gap(inv, side));
	}
	units__emit(out, width, "  %-9s rows %s (anon %s, swap %s, pss %s); VmRSS %s, gap %s",
		    label, b[0], b[1], b[2], b[3], r->have_vm_rss ? b[4] : "?",
		    r->have_vm_rss ? b[5] : "?");
	if (sum.anon_huge || sum.hugetlb)
		units__emit(out, width,
			    "  %-9s of anon in transparent huge pages %s; hugetlb pages %s "
			    "(outside RSS)",
			    "", units__bytes(b[0], UNITS_BUF, sum.anon_huge),
			    units__bytes(b[1], UNITS_BUF, sum.hugetlb));
}

static bool any_swap(const struct inv_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].at[INV_AT_ATTACH].swap || v[i].at[INV_AT_END].swap)
			return true;
	return false;
}

static void render_title(FILE *out, unsigned width, const struct fl_proc_summary *s, bool final,
			 uint64_t now_ns)
{
	const struct inventory *inv = s->inventory;
	const struct inv_read *a = &inv->reads[INV_AT_ATTACH], *e = &inv->reads[INV_AT_END];
	char ago[48] = "";

	if (!final && e->taken && now_ns > e->at_ns + 500000000ull)
		snprintf(ago, sizeof(ago), ", %.0fs ago", (double)(now_ns - e->at_ns) / 1e9);
	units__emit(out, width,
		    "inventory of pid %d %.*s: %zu mappings at attach, %zu %s%s (smaps read in "
		    "%.1f ms, %.1f ms)",
		    (int)s->pid, FL_COMM_LEN, s->comm, a->nmappings, e->nmappings,
		    final ? "at end" : "now", ago, (double)a->cost_ns / 1e6,
		    (double)e->cost_ns / 1e6);
}

void inventorytable__render(FILE *out, unsigned width, const struct fl_proc_summary *s,
			    size_t max_rows, bool final, uint64_t now_ns)
{
	const struct inventory *inv = s->inventory;
	struct inv_row *v;
	char d[UNITS_BUF];
	struct inv_figures a, e;
	size_t n, shown;
	bool swap;

	if (!inv || (!inv->reads[INV_AT_ATTACH].taken && !inv->reads[INV_AT_END].taken))
		return;
	if (inventorytable__rows(inv, &v, &n)) {
		units__emit(out, width, "(out of memory: no inventory of pid %d)", (int)s->pid);
		return;
	}
	swap = any_swap(v, n);
	render_title(out, width, s, final, now_ns);
	if (swap)
		units__emit(out, width, "  %9s %9s %10s %9s %9s %9s %-5s %-7s %s", "AT-ATTACH",
			    final ? "AT-END" : "NOW", "CHANGE", "ANON", "SWAP", "PSS", "OWNER",
			    "KIND", "NAME");
	else
		units__emit(out, width, "  %9s %9s %10s %9s %9s %-5s %-7s %s", "AT-ATTACH",
			    final ? "AT-END" : "NOW", "CHANGE", "ANON", "PSS", "OWNER", "KIND",
			    "NAME");
	shown = max_rows && n > max_rows ? max_rows - 1 : n;
	for (size_t i = 0; i < shown; i++)
		render_row(out, width, &v[i], swap);
	if (shown < n)
		render_rest(out, width, v, shown, n);
	render_sum(out, width, inv, INV_AT_ATTACH, "at attach");
	render_sum(out, width, inv, INV_AT_END, final ? "at end" : "now");
	if (inv->reads[INV_AT_ATTACH].taken && inv->reads[INV_AT_END].taken) {
		inventory__totals(inv, INV_AT_ATTACH, &a);
		inventory__totals(inv, INV_AT_END, &e);
		units__emit(out, width, "  %-9s rows %s", "change",
			    units__sbytes(d, sizeof(d), report__sdiff(e.rss, a.rss)));
	}
	free(v);
}
