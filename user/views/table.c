/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The live table: the header figures and the per-thread table here, the tree in flametree.c.
 * Plain ASCII only, so that a line's length in bytes is its width in columns (frame names in
 * UTF-8 can only make a line look shorter than counted). Every line goes through
 * units__emit(), which cuts it to the width.
 */
#include "views/table.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"
#include "model/forgotten.h"
#include "views/alloctable.h"
#include "views/cgrouptable.h"
#include "views/flametree.h"
#include "views/grouptable.h"
#include "views/inventorytable.h"
#include "views/proctable.h"
#include "views/vmtable.h"

#define LINE_MIN_COLS 20
#define MAX_THREAD_ROWS 20
#define LABEL_COLS 28  /* row labels of the per-process block */
#define DETAIL_PROCS 3 /* with several processes, the heaviest few get the detailed block */

static const char *const drop_names[FL_DROP__COUNT] = {
	[FL_DROP_STACKS_FULL] = "stacks map full",
	[FL_DROP_STACK_FAILED] = "stacks failed",
	[FL_DROP_COUNTS_FULL] = "counts map full",
	[FL_DROP_MM_FULL] = "mm map full",
	[FL_DROP_THREADS_FULL] = "threads map full",
	[FL_DROP_TASK_STORAGE] = "task storage",
	[FL_DROP_LIVE_FULL] = "live table full",
	[FL_DROP_ALLOC_STATE] = "allocator calls unseen",
	[FL_DROP_HISTS_FULL] = "histograms map full",
	[FL_DROP_PROCS_FULL] = "procs map full (children not followed)",
	[FL_DROP_VM_STATE] = "memory syscalls unseen",
	[FL_DROP_PID_REUSED] = "pid reused before an exit was read (children not followed)",
	[FL_DROP_EXIT_MAPS] = "mappings of exiting processes lost",
	[FL_DROP_REGIONS_FULL] = "anonymous regions not recorded",
};

static const int row_members[3] = { FL_ANON, FL_FILE, FL_SHMEM };

/* One row of the per-process block: anon, file, shmem and their sum. */
static void proc_row(FILE *out, unsigned width, const char *label, const int64_t v[3], bool sign)
{
	char b[4][UNITS_BUF];
	int64_t sum = v[0] + v[1] + v[2];
	int i;

	for (i = 0; i < 4; i++) {
		int64_t x = i < 3 ? v[i] : sum;

		if (sign)
			units__sbytes(b[i], sizeof(b[i]), x);
		else
			units__bytes(b[i], sizeof(b[i]), x < 0 ? 0 : (uint64_t)x);
	}
	units__emit(out, width, "  %-*s%11s%11s%11s%11s", LABEL_COLS - 2, label, b[0], b[1], b[2],
		    b[3]);
}

static void proc_title(FILE *out, unsigned width, const struct fl_proc_summary *s)
{
	char label[96], ending[48];

	proc_summary__ending(s, ending, sizeof(ending));
	snprintf(label, sizeof(label), "pid %d %.*s (%s)", (int)s->pid, FL_COMM_LEN, s->comm,
		 ending);
	if (strlen(label) > LABEL_COLS) {
		units__emit(out, width, "%s", label);
		label[0] = '\0';
	}
	units__emit(out, width, "%-*s%11s%11s%11s%11s", LABEL_COLS, label, "anon", "file", "shmem",
		    "total");
}

/* Three rows of four kernel figures: their values @then ("at attach", "first seen"), now
 * (read @age_ns ago) and their change. */
static void kernel_rows(FILE *out, unsigned width, const char *label, const char *then_label,
			uint64_t age_ns, const char *const names[4], const uint64_t now[4],
			const uint64_t then[4])
{
	char a[4][UNITS_BUF], v[4][UNITS_BUF], d[4][UNITS_BUF], l[3][LABEL_COLS + 1];

	for (int i = 0; i < 4; i++) {
		units__bytes(a[i], UNITS_BUF, then[i]);
		units__bytes(v[i], UNITS_BUF, now[i]);
		units__sbytes(d[i], UNITS_BUF, report__sdiff(now[i], then[i]));
	}
	snprintf(l[2], sizeof(l[2]), "%s %s", label, then_label);
	if (age_ns >= 500000000)
		snprintf(l[0], sizeof(l[0]), "%s %.0fs ago", label, (double)age_ns / 1e9);
	else
		snprintf(l[0], sizeof(l[0]), "%s now", label);
	snprintf(l[1], sizeof(l[1]), "%s change", label);
	units__emit(out, width, "%-*s%11s%11s%11s%11s", LABEL_COLS, "", names[0], names[1],
		    names[2], names[3]);
	units__emit(out, width, "  %-*s%11s%11s%11s%11s", LABEL_COLS - 2, l[2], a[0], a[1], a[2],
		    a[3]);
	units__emit(out, width, "  %-*s%11s%11s%11s%11s", LABEL_COLS - 2, l[0], v[0], v[1], v[2],
		    v[3]);
	units__emit(out, width, "  %-*s%11s%11s%11s%11s", LABEL_COLS - 2, l[1], d[0], d[1], d[2],
		    d[3]);
}

/* What @s's change is since (enum proc_since). */
static const char *since(const struct fl_proc_summary *s)
{
	return s->since == SINCE_JOINED ? "joined" : s->since == SINCE_FORK ? "fork" : "attach";
}

/*
 * What RSS does not tell: swap, page tables and hugetlb pages beside it, and from smaps_rollup
 * the proportional set (shared pages split among the processes that map them). A process's
 * private cost is what would go away with it: Pss_Anon + VmPTE. A child -f followed was not
 * there at attach: its figures start when faultline first read it, within 100 ms of its fork.
 */
static void render_kernel_view(FILE *out, unsigned width, const struct fl_proc_summary *s)
{
	const char *then = s->followed ? "first seen" : "at attach";
	static const char *const status[4] = { "VmRSS", "VmSwap", "VmPTE", "Hugetlb" };
	static const char *const rollup[4] = { "Pss", "Pss_Anon", "Pss_File", "Pss_Shmem" };
	const struct proc_status *n = &s->now, *t = &s->at_attach;
	uint64_t now[4] = { n->vm_rss, n->vm_swap, n->vm_pte, n->hugetlb };
	uint64_t start[4] = { t->vm_rss, t->vm_swap, t->vm_pte, t->hugetlb };
	char v[UNITS_BUF], d[UNITS_BUF];

	kernel_rows(out, width, "status", then, 0, status, now, start);
	if (!n->have_pss || !t->have_pss)
		return;
	/* paced: its read costs about 6 ms per GiB resident */
	kernel_rows(out, width, "smaps_rollup", then, s->rollup_age_ns, rollup,
		    (const uint64_t[4]){ n->pss, n->pss_anon, n->pss_file, n->pss_shmem },
		    (const uint64_t[4]){ t->pss, t->pss_anon, t->pss_file, t->pss_shmem });
	units__bytes(v, sizeof(v), proc_status__private_cost(n));
	units__sbytes(d, sizeof(d),
		      report__sdiff(proc_status__private_cost(n), proc_status__private_cost(t)));
	units__emit(out, width, "  private cost (Pss_Anon + VmPTE) %s, %s since %s", v, d,
		    s->followed ? "first seen" : "attach");
}

/* Swap beside RSS: VmSwap's change against the swap entries faultline saw come and go. */
static void render_swap(FILE *out, unsigned width, const struct fl_proc_summary *s)
{
	int64_t kern[FL_MEMBERS], gap[FL_MEMBERS];
	char k[UNITS_BUF], f[UNITS_BUF], g[UNITS_BUF];

	proc_summary__reconcile(s, kern, gap);
	units__sbytes(k, sizeof(k), kern[FL_SWAP]);
	units__sbytes(f, sizeof(f), kern[FL_SWAP] - gap[FL_SWAP]);
	units__sbytes(g, sizeof(g), gap[FL_SWAP]);
	units__emit(out, width, "  swap: VmSwap change %s, faultline %s, gap %s", k, f, g);
}

/*
 * The kernel's view next to faultline's: the gap is what the kernel's counters moved that
 * faultline did not attribute, kernel change - (growth - released), per kind.
 */
static void render_proc(FILE *out, unsigned width, const struct fl_proc_summary *s)
{
	const struct proc_status *now = &s->now, *then = &s->at_attach;
	int64_t rss[3] = { now->rss_anon, now->rss_file, now->rss_shmem };
	int64_t rss0[3] = { then->rss_anon, then->rss_file, then->rss_shmem };
	int64_t kern_m[FL_MEMBERS], gap_m[FL_MEMBERS], kern[3], grow[3], rel[3], gap[3];
	char label[LABEL_COLS];

	proc_summary__reconcile(s, kern_m, gap_m);
	for (int i = 0; i < 3; i++) {
		kern[i] = kern_m[row_members[i]];
		gap[i] = gap_m[row_members[i]];
		grow[i] = report__sdiff(s->attributed.grow[row_members[i]], 0);
		rel[i] = report__sdiff(s->attributed.release[row_members[i]], 0);
	}
	proc_title(out, width, s);
	if (!proc_summary__reconciled(s)) {
		proc_row(out, width, "faultline growth", grow, false);
		proc_row(out, width, "faultline released", rel, false);
		units__emit(out, width,
			    "  (exited before faultline could read its status: no "
			    "kernel figures)");
		return;
	}
	/* a child's RSS counters are the BPF side's first values after its fork, however late
	 * faultline first read it; its other figures are from that read (render_kernel_view) */
	snprintf(label, sizeof(label),
		 s->since == SINCE_ATTACH ? "rss at %s" : "rss first seen (%s)", since(s));
	proc_row(out, width, label, rss0, false);
	proc_row(out, width, s->alive ? "rss now" : "rss at exit", rss, false);
	snprintf(label, sizeof(label), "kernel change since %s", since(s));
	proc_row(out, width, label, kern, true);
	proc_row(out, width, "faultline growth", grow, false);
	proc_row(out, width, "faultline released", rel, false);
	proc_row(out, width, "gap (kernel - faultline)", gap, true);
	if (s->peak > 0) {
		char b[UNITS_BUF];

		units__bytes(b, sizeof(b), (uint64_t)s->peak);
		snprintf(label, sizeof(label), "peak rss since %s", since(s));
		units__emit(out, width, "  %-*s%44s", LABEL_COLS - 2, label, b);
	}
	if (s->no_status)
		units__emit(out, width,
			    "  (exited before faultline could read its status: the kernel figures "
			    "are its RSS counters as the probes saw them)");
	else
		render_kernel_view(out, width, s);
	render_swap(out, width, s);
}

static void render_drops(FILE *out, unsigned width, const struct fl_report *r)
{
	char line[UNITS_LINE_MAX + 1] = "drops:";
	size_t len = strlen(line);
	bool any = false;
	int i;

	for (i = 0; i < FL_DROP__COUNT; i++) {
		if (!r->drops[i])
			continue;
		len += snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
				"%s %s %" PRIu64, any ? "," : "", drop_names[i], r->drops[i]);
		any = true;
	}
	units__emit(out, width, "%s", any ? line : "drops: none");
}

/* --every: each endpoint's windows so far. */
static void render_endpoints(FILE *out, unsigned width, const struct fl_report *r)
{
	for (size_t i = 0; i < r->nendpoints; i++) {
		const struct report_endpoint *e = &r->endpoints[i];

		units__emit(out, width,
			    "%s %s: windows sent %" PRIu64 ", lost %" PRIu64 ", waiting %" PRIu64
			    "%s%s",
			    e->option, e->url, e->sent, e->lost, e->waiting,
			    e->last_error[0] ? "; last failure: " : "", e->last_error);
	}
}

/* How whole the stacks are, and what the unwind tables cost. */
static void render_stacks(FILE *out, unsigned width, const struct fl_report *r)
{
	const struct fl_unwind_figures *u = &r->unwind;
	char growth[160], alloc[160], bytes[UNITS_BUF];

	stack_share__describe(r->stacks.growth, growth, sizeof(growth));
	stack_share__describe(r->stacks.alloc, alloc, sizeof(alloc));
	if (*growth)
		units__emit(out, width, "stacks of growth: %s", growth);
	if (r->alloc && *alloc)
		units__emit(out, width, "stacks of allocations: %s", alloc);
	if (!u->objects && !u->no_table && !u->over_budget && !u->load_failed)
		return;
	units__bytes(bytes, sizeof(bytes), u->bytes);
	snprintf(growth, sizeof(growth), "; %zu without unwind info", u->no_table);
	snprintf(alloc, sizeof(alloc), "; %zu left out by the memory bound", u->over_budget);
	units__emit(out, width, "unwind tables: %zu objects, %zu rows, %s, built in %.0f ms%s%s%s",
		    u->objects, u->rows, bytes, u->compile_ms, u->no_table ? growth : "",
		    u->over_budget ? alloc : "",
		    u->load_failed ? "; some refused by the kernel" : "");
	if (u->maps_cut)
		units__emit(out, width,
			    "unwind tables left out: %zu code mappings of a process past the %d "
			    "the walk holds (by frame pointers there): %s",
			    u->maps_cut, FL_UNWIND_MAPS, u->cut_names);
}

static void render_proc_detail(FILE *out, unsigned width, const struct fl_report *r,
			       const struct fl_proc_summary *s)
{
	render_proc(out, width, s);
	if (r->alloc)
		alloctable__render_heap(out, width, s, r);
	if (r->vm)
		vmtable__render_summary(out, width, s->pid, r);
	if (r->map_classes)
		units__emit(out, width,
			    "  hugetlb faults since attach: %" PRIu64 " (hugetlb pages "
			    "are outside RSS: see HugetlbPages)",
			    s->hugetlb_faults);
}

/* The final report's: by executable, the costliest few of each (the rest in JSON). */
static void render_groups(FILE *out, const struct fl_report *r, const struct table_opts *o,
			  unsigned width)
{
	struct proc_groups g;

	if (proc_groups__build(r->procs, r->nprocs, r->forgotten, &g)) {
		units__emit(out, width, "(out of memory: no process table)");
		return;
	}
	grouptable__render(out, width, r->procs, r->nprocs, &g, o->metric, GROUPTABLE_GROUPS,
			   GROUPTABLE_PER_GROUP);
	proc_groups__free(&g);
}

/* The exited processes no longer listed: how many, and that their bytes are still counted. */
static void render_forgotten(FILE *out, const struct forgotten *f, unsigned width)
{
	char growth[UNITS_BUF];

	units__bytes(growth, sizeof(growth), metric__value(&f->attributed, FL_METRIC_RESIDENT));
	units__emit(out, width,
		    "%zu exited processes forgotten, the oldest (--keep-exited): their growth %s "
		    "is in the groups and the tree, not listed",
		    f->nprocs, growth);
}

/*
 * Several processes: one line each (live, the heaviest ten; the final report summarizes them
 * by executable), the shared pages' note, then the detailed block of the heaviest few only,
 * so a hundred forked backends do not flood the screen.
 */
static void render_procs(FILE *out, const struct fl_report *r, const struct table_opts *o,
			 unsigned width)
{
	size_t *order = calloc(r->nprocs, sizeof(*order));

	if (proctable__order(r->procs, r->nprocs, o->metric, order)) {
		units__emit(out, width, "(out of memory: no process table)");
		return;
	}
	if (r->final)
		render_groups(out, r, o, width);
	else
		proctable__render(out, width, r->procs, order, r->nprocs, o->metric,
				  PROCTABLE_LIVE_LINES);
	if (r->forgotten && r->forgotten->nprocs)
		render_forgotten(out, r->forgotten, width);
	/* under --metric new the table already counts a shared page once */
	if (o->metric != FL_METRIC_NEW)
		proctable__render_shared(out, width, r->procs, r->nprocs);
	for (size_t i = 0; i < r->nprocs && i < DETAIL_PROCS; i++)
		render_proc_detail(out, width, r, &r->procs[order[i]]);
	if (r->nprocs > DETAIL_PROCS)
		units__emit(out, width, "(details of the %d heaviest processes only)",
			    DETAIL_PROCS);
	free(order);
}

static void render_header(FILE *out, const struct fl_report *r, const struct table_opts *o,
			  unsigned width)
{
	size_t i;

	if (r->nprocs < 2) {
		for (i = 0; i < r->nprocs; i++)
			render_proc_detail(out, width, r, &r->procs[i]);
	} else {
		render_procs(out, r, o, width);
	}
	for (i = 0; i < r->ncgroups; i++)
		cgrouptable__render(out, width, &r->cgroups[i]);
	render_drops(out, width, r);
	render_endpoints(out, width, r);
	render_stacks(out, width, r);
	if (r->note)
		units__emit(out, width, "note: %s", r->note);
}

/* Copies @src into @dst cut to @cols columns ("..." when cut). @dst holds FL_COMM_LEN + 4. */
static void fit_field(char *dst, size_t len, const char *src, unsigned cols)
{
	snprintf(dst, len, "%.*s", FL_COMM_LEN, src);
	units__sanitize(dst);
	units__fit(dst, cols);
}

/* The last three columns of the thread table: the allocator's with --alloc, the memory
 * calls' with --vm, else shmem growth, released bytes and faults. */
enum thread_cols {
	COLS_RSS,
	COLS_ALLOC,
	COLS_CHURN, /* --alloc=churn: nothing is live */
	COLS_VM
};

static const char *const thread_titles[4][3] = {
	[COLS_RSS] = { "SHMEM", "RELEASED", "FAULTS" },
	[COLS_ALLOC] = { "ALLOC-B", "LIVE-B", "ALLOCS" },
	[COLS_CHURN] = { "RELEASED", "ALLOC-B", "ALLOCS" },
	[COLS_VM] = { "RESERVED", "UNMAPPED", "CALLS" },
};

static void thread_extra(enum thread_cols k, const struct fl_counts *c, uint64_t v[3])
{
	switch (k) {
	case COLS_ALLOC:
		v[0] = c->alloc_bytes;
		v[1] = metric__value(c, FL_METRIC_LIVE_BYTES);
		v[2] = c->allocs;
		break;
	case COLS_CHURN:
		v[0] = metric__value(c, FL_METRIC_RELEASED);
		v[1] = c->alloc_bytes;
		v[2] = c->allocs;
		break;
	case COLS_VM:
		v[0] = c->reserved;
		v[1] = c->unmapped;
		v[2] = c->vm_calls;
		break;
	default:
		v[0] = c->grow[FL_SHMEM];
		v[1] = metric__value(c, FL_METRIC_RELEASED);
		v[2] = c->faults;
		break;
	}
}

static void render_threads(FILE *out, const struct fl_report *r, const struct table_opts *o,
			   unsigned width)
{
	/* tid, a space, the name, then six columns of " %9s": the name gets what is left. */
	int ncols = (int)width - 8 - 60;
	unsigned nw = ncols < 4 ? 4 : ncols > FL_COMM_LEN - 1 ? FL_COMM_LEN - 1 : (unsigned)ncols;
	enum thread_cols k = r->alloc_churn ? COLS_CHURN :
			     r->alloc	    ? COLS_ALLOC :
			     r->vm	    ? COLS_VM :
					      COLS_RSS;
	const char *const *titles = thread_titles[k];
	char name[FL_COMM_LEN + 4], b[5][UNITS_BUF];
	uint64_t v[3];
	size_t i;

	units__emit(out, width, "threads by %s:", metric__name(o->metric));
	units__emit(out, width, "%7s %-*s %9s %9s %9s %9s %9s %9s", "TID", nw, "NAME", "RESIDENT",
		    "ANON", "FILE", titles[0], titles[1], titles[2]);
	for (i = 0; i < r->nthreads && i < MAX_THREAD_ROWS; i++) {
		const struct fl_thread_summary *t = &r->threads[i];
		const struct fl_counts *c = &t->counts;

		fit_field(name, sizeof(name), t->comm, nw);
		thread_extra(k, c, v);
		units__bytes(b[0], UNITS_BUF, metric__value(c, FL_METRIC_RESIDENT));
		units__bytes(b[1], UNITS_BUF, c->grow[FL_ANON]);
		units__bytes(b[2], UNITS_BUF, c->grow[FL_FILE]);
		units__bytes(b[3], UNITS_BUF, v[0]);
		units__bytes(b[4], UNITS_BUF, v[1]);
		units__emit(out, width, "%7d %-*s %9s %9s %9s %9s %9s %9" PRIu64, (int)t->tid, nw,
			    name, b[0], b[1], b[2], b[3], b[4], v[2]);
	}
	if (r->nthreads > MAX_THREAD_ROWS)
		units__emit(out, width, "[%zu more threads]", r->nthreads - MAX_THREAD_ROWS);
	if (!r->nthreads)
		units__emit(out, width, "(no threads seen yet)");
}

static unsigned fit_width(const struct table_opts *o)
{
	unsigned width = o->width ? o->width : 80;

	if (width < LINE_MIN_COLS)
		width = LINE_MIN_COLS;
	return width > UNITS_LINE_MAX ? UNITS_LINE_MAX : width;
}

void table__render_figures(FILE *out, const struct fl_report *r, const struct table_opts *o)
{
	unsigned width = fit_width(o);

	render_header(out, r, o, width);
	if (o->threads) {
		units__emit(out, width, "%s", "");
		render_threads(out, r, o, width);
	}
	if (r->vm) {
		units__emit(out, width, "%s", "");
		vmtable__render_calls(out, width, r);
	}
	if (r->alloc) {
		units__emit(out, width, "%s", "");
		alloctable__render_sites(out, width, r);
		if (r->final)
			alloctable__render_hists(out, width, r);
	}
}

bool table__has_panel(const struct fl_report *r, enum table_panel p)
{
	switch (p) {
	case TABLE_PANEL_SITES:
		return r->alloc;
	case TABLE_PANEL_CALLS:
		return r->vm;
	default:
		return p < TABLE_PANEL__COUNT;
	}
}

void table__render_panel(FILE *out, const struct fl_report *r, const struct table_opts *o,
			 enum table_panel p)
{
	unsigned width = fit_width(o);

	switch (p) {
	case TABLE_PANEL_THREADS:
		render_threads(out, r, o, width);
		break;
	case TABLE_PANEL_SITES:
		alloctable__render_sites(out, width, r);
		break;
	case TABLE_PANEL_CALLS:
		vmtable__render_calls(out, width, r);
		break;
	default:
		table__render_figures(out, r, o);
		break;
	}
}

void table__render(FILE *out, const struct fl_report *r, const struct profile *p,
		   const struct table_opts *o)
{
	unsigned width = fit_width(o);

	if (r->final)
		units__emit(out, width, "faultline final report: %.1f s, metric %s", r->elapsed_s,
			    metric__name(o->metric));
	else
		units__emit(out, width, "faultline: %.1f s elapsed, metric %s", r->elapsed_s,
			    metric__name(o->metric));
	table__render_figures(out, r, o);
	units__emit(out, width, "%s", "");
	flametree__render(out, p, o, width);
	/* what each process holds resident, read at attach and now: after the tree, which is
	 * what the session measured */
	for (size_t i = 0; r->final && i < r->nprocs; i++) {
		if (!r->procs[i].inventory)
			continue;
		units__emit(out, width, "%s", "");
		inventorytable__render(out, width, &r->procs[i], INVENTORYTABLE_ROWS, true,
				       r->now_ns);
	}
}
