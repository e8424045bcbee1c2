// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "snapshot.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "formats/folded.h"
#include "formats/output.h"
#include "formats/svg.h"
#include "model/calls.h"
#include "model/threadlabel.h"
#include "rowgroups.h"
#include "sites.h"
#include "stackpath.h"
#include "symbols/mapclass.h"
#include "trace/retired.h"
#include "treecache.h"

static void thread_name(const struct collector *col, uint32_t tid, char name[FL_COMM_LEN])
{
	struct fl_thread t;

	if (tid == 0)
		snprintf(name, FL_COMM_LEN, "[kernel]");
	else if (collector__thread(col, tid, &t) == 0 && t.comm[0])
		snprintf(name, FL_COMM_LEN, "%s", t.comm);
	else
		snprintf(name, FL_COMM_LEN, "tid-%u", tid);
}

/* The frame naming the mapping a row's changes hit: its class, or a file's path. */
static const char *mapping_frame(const struct target *t, const struct fl_key *key)
{
	const char *path = NULL;

	if (key->map_class == FL_MAP_FILE && key->map_file && t->sym)
		path = symbolizer__file_name(t->sym, key->map_file);
	return path ? path : map_class__name(key->map_class);
}

/*
 * The pprof sample types: the metric families every session has, those of --alloc and --vm,
 * and the --metric chosen when it is none of them (anon, file, ...), which views show first.
 */
static int pprof_setup(struct snapshot *snap, const struct snapshot_opts *o)
{
	static const enum fl_metric always[] = { FL_METRIC_RESIDENT, FL_METRIC_RELEASED,
						 FL_METRIC_FAULTS };
	static const enum fl_metric alloc[] = { FL_METRIC_ALLOC_COUNT, FL_METRIC_ALLOC_BYTES,
						FL_METRIC_LIVE_COUNT, FL_METRIC_LIVE_BYTES };
	static const enum fl_metric vm[] = { FL_METRIC_RESERVED, FL_METRIC_UNMAPPED };
	/* churn mode sees no free: its live metrics would be the allocations again */
	size_t nalloc = o->alloc_churn ? 2 : sizeof(alloc) / sizeof(alloc[0]);
	enum fl_metric *t = snap->pprof_types;
	size_t n = 0, dflt = FL_METRIC__COUNT;

	snap->pprof = pprof__new();
	if (!snap->pprof)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		t[n++] = always[i];
	for (size_t i = 0; o->alloc && i < nalloc; i++)
		t[n++] = alloc[i];
	for (size_t i = 0; o->vm && i < sizeof(vm) / sizeof(vm[0]); i++)
		t[n++] = vm[i];
	if (o->new_pages)
		t[n++] = FL_METRIC_NEW;
	for (size_t i = 0; i < n; i++)
		if (t[i] == o->metric)
			dflt = i;
	if (dflt == FL_METRIC__COUNT) {
		dflt = n;
		t[n++] = o->metric;
	}
	snap->npprof_types = n;
	for (size_t i = 0; i < n; i++)
		if (pprof__add_type(snap->pprof, metric__name(t[i]),
				    metric__is_bytes(t[i]) ? "bytes" : "count") < 0)
			return -ENOMEM;
	pprof__set_default_type(snap->pprof, dflt);
	return 0;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct fl_thread_summary *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return 0;
}

static int cmp_thread_weight(const void *a, const void *b, void *metric)
{
	enum fl_metric m = *(const enum fl_metric *)metric;
	uint64_t x = metric__value(&((const struct fl_thread_summary *)a)->counts, m);
	uint64_t y = metric__value(&((const struct fl_thread_summary *)b)->counts, m);

	if (x != y)
		return x > y ? -1 : 1;
	return cmp_thread(a, b);
}

/* Per-thread totals: one entry per tid (the pseudo-rows of other tasks have tid 0), named
 * once, in tid order until sort_threads(). */
static int build_threads(struct snapshot *snap, const struct collector *col,
			 const struct fl_row *rows, size_t nrows)
{
	struct fl_thread_summary *th = calloc(nrows ? nrows : 1, sizeof(*th));
	size_t n = 0, out = 0;

	if (!th)
		return -ENOMEM;
	for (size_t i = 0; i < nrows; i++) {
		if (!rows[i].key.tid || counts__is_zero(&rows[i].counts))
			continue;
		th[n].tgid = rows[i].key.tgid;
		th[n].tid = rows[i].key.tid;
		th[n++].counts = rows[i].counts;
	}
	qsort(th, n, sizeof(*th), cmp_thread);
	for (size_t i = 0; i < n; i++) {
		if (out && th[out - 1].tid == th[i].tid) {
			counts__add(&th[out - 1].counts, &th[i].counts);
			continue;
		}
		th[out] = th[i];
		thread_name(col, th[out].tid, th[out].comm);
		out++;
	}
	snap->threads = th;
	snap->report.threads = th;
	snap->report.nthreads = out;
	return thread_labels__set(th, out);
}

/* The name of thread @tid (build_threads() named each once), while in tid order. */
static const char *row_thread(const struct snapshot *snap, uint32_t tid)
{
	struct fl_thread_summary k = { .tid = (pid_t)tid };
	const struct fl_thread_summary *t;

	if (!tid)
		return "[kernel]";
	t = bsearch(&k, snap->threads, snap->report.nthreads, sizeof(k), cmp_thread);
	return t ? t->label : "[unknown thread]";
}

/* The thread table's order: heaviest by @m first. */
static void sort_threads(struct snapshot *snap, enum fl_metric m)
{
	qsort_r(snap->threads, snap->report.nthreads, sizeof(*snap->threads), cmp_thread_weight,
		&m);
}

/* The pprof lines of @fi into @out: the function's alone, or with @inlined the calls inlined
 * at the address first. */
static struct pprof_lines pprof_lines(const struct frame_info *fi, bool inlined,
				      struct pprof_line out[SYMBOLIZER_MAX_FRAMES])
{
	size_t n = fi ? fi->nlines : 0, from = inlined || !n ? 0 : n - 1;

	if (n - from > SYMBOLIZER_MAX_FRAMES)
		from = n - SYMBOLIZER_MAX_FRAMES;
	for (size_t k = from; k < n; k++)
		out[k - from] = (struct pprof_line){ fi->lines[k].name, fi->lines[k].file,
						     fi->lines[k].line };
	return (struct pprof_lines){ out, n - from };
}

/*
 * One counts row as a pprof sample: the frames of its profile path, leaf first, with the
 * addresses frames named (0 for pseudo-frames), their source lines (@inlined: with the calls
 * inlined there) and the mappings holding them; every value.
 */
static int add_pprof_sample(struct snapshot *snap, const struct target *t, const struct fl_row *r,
			    const struct fl_counts *end, const char *const *path,
			    const uint64_t *addrs, const struct frame_info *const *infos,
			    size_t depth, bool inlined)
{
	struct pprof_frame frames[4 + FL_MAX_STACK_DEPTH];
	struct pprof_mapping maps[4 + FL_MAX_STACK_DEPTH];
	struct pprof_line lines[4 + FL_MAX_STACK_DEPTH][SYMBOLIZER_MAX_FRAMES];
	struct pprof_lines fl[4 + FL_MAX_STACK_DEPTH];
	int64_t values[FL_METRIC__COUNT];
	bool any = false;

	for (size_t i = 0; i < snap->npprof_types; i++) {
		enum fl_metric m = snap->pprof_types[i];

		values[i] =
			(int64_t)metric__value(end && metric__is_level(m) ? end : &r->counts, m);
		any |= values[i] != 0;
	}
	if (!any)
		return 0;
	for (size_t i = 0; i < depth; i++) {
		struct pprof_frame *f = &frames[depth - 1 - i];
		struct symbolizer_mapping m;

		*f = (struct pprof_frame){ .name = path[i],
					   .address = addrs[i],
					   .pid = r->key.tgid };
		fl[depth - 1 - i] = pprof_lines(infos[i], inlined, lines[i]);
		if (!addrs[i] || !t->sym || symbolizer__mapping(t->sym, addrs[i], &m))
			continue;
		maps[i] = (struct pprof_mapping){ .start = m.start,
						  .limit = m.end,
						  .offset = m.offset,
						  .file = m.path,
						  .build_id = m.build_id,
						  .build_id_len = m.build_id_len };
		f->mapping = &maps[i];
	}
	return pprof__add_sample_lines(snap->pprof, frames, fl, depth, values,
				       &(struct pprof_labels){ .thread =
								       row_thread(snap, r->key.tid),
							       .pid = r->key.tgid,
							       .tid = r->key.tid,
							       .comm = t->sum.comm,
							       .cgroup = t->sum.cgroup });
}

/* Adds one counts row to the profile: process, [thread], then the stack or its pseudo-frame. */
/* The frames above the thread and the stack (--by): the executable's name; the process's,
 * name/pid; or its cgroup, then its name. Names made here live as long as @frames. Returns
 * how many. */
static size_t top_frames(struct frames *frames, enum fl_top top, const struct target *t,
			 const char **path)
{
	const char *comm = t->sum.comm[0] ? t->sum.comm : "[process]";
	char name[FL_COMM_LEN + 16];
	size_t n = 0;

	if (top == FL_TOP_CGROUP)
		path[n++] = t->sum.cgroup[0] ? frames__keep(frames, t->sum.cgroup) : NULL;
	if (top == FL_TOP_PROCESS) {
		snprintf(name, sizeof(name), "%.*s/%d", FL_COMM_LEN, comm, (int)t->sum.pid);
		path[n++] = frames__keep(frames, name);
	} else {
		path[n++] = comm;
	}
	for (size_t i = 0; i < n; i++)
		if (!path[i]) /* out of memory, or a cgroup unknown */
			path[i] = top == FL_TOP_CGROUP && i == 0 ? "[cgroup unknown]" : comm;
	return n;
}

/* Row @r into the tree, and the pprof model with @end's levels (NULL: @r's). */
static int add_row(struct snapshot *snap, const struct snapshot_opts *o,
		   const struct collector *col, struct frames *frames, struct target *t,
		   const struct fl_row *r, const struct fl_counts *end)
{
	/* [cgroup,] process, thread, the stack, the call, the mapping */
	const char *path[5 + FL_MAX_STACK_DEPTH];
	uint64_t addrs[5 + FL_MAX_STACK_DEPTH] = { 0 }; /* 0: a pseudo-frame */
	const struct frame_info *infos[5 + FL_MAX_STACK_DEPTH] = { 0 };
	const char *const *names = NULL;
	const struct frame_info *info = NULL;
	const uint64_t *ips = NULL;
	size_t n = 0, depth = 0;
	int err;

	/* a row of zeros says nothing: the overflow row made at attach, before any overflow (a
	 * window's row with only a level has an @end) */
	if (counts__is_zero(&r->counts) && !end)
		return 0;
	depth = top_frames(frames, o->by_top, t, path);
	if (o->threads)
		path[depth++] = row_thread(snap, r->key.tid);
	if (o->by_stack && r->key.origin == FL_ORIGIN_USER)
		n = frames__get_info(frames, col, t->sym, &r->key, &names, &ips, &info);
	if (n) {
		memcpy(&path[depth], names, n * sizeof(*names));
		memcpy(&addrs[depth], ips, n * sizeof(*ips));
		for (size_t i = 0; i < n; i++)
			infos[depth + i] = &info[i];
		depth += n;
	} else if (o->by_stack || r->key.origin != FL_ORIGIN_USER) {
		path[depth++] = r->key.origin == FL_ORIGIN_USER ? "[stack lost]" :
								  origin__name(r->key.origin);
	}
	/* the stack of a call's row ends in its caller: the call is the leaf */
	if (o->by_stack && r->key.call)
		path[depth++] = call__name(r->key.call);
	if (o->by_mapping)
		path[depth++] = mapping_frame(t, &r->key);
	err = treecache__add(snap->tree, path, infos, depth, o->inline_frames, &r->counts);
	if (!err && snap->pprof)
		err = add_pprof_sample(snap, t, r, end, path, addrs, infos, depth,
				       o->inline_frames);
	return err;
}

static bool is_target_row(const struct fl_row *r, void *set)
{
	/* not: a process dropped from the targets */
	return target_set__find_gen(set, (pid_t)r->key.tgid, r->key.gen) != NULL;
}

/* Without -T, the rows that differ by their thread alone are summed and added to the tree once
 * (rowgroups.h). */
static int add_rows_merged(struct snapshot *snap, const struct snapshot_opts *o,
			   const struct collector *col, struct frames *frames,
			   struct target_set *set, const struct fl_row *rows, size_t nrows)
{
	struct row_group *g;
	size_t n;
	int err = row_groups__build(rows, nrows, is_target_row, set, &g, &n);

	if (err)
		return err;
	for (size_t i = 0, j; i < n && !err; i = j) {
		struct fl_row r = rows[g[i].row];

		j = row_groups__end(g, n, i);
		for (size_t k = i + 1; k < j; k++)
			treecache__profile(snap->tree)->saturated |=
				counts__add(&r.counts, &rows[g[k].row].counts);
		err = add_row(snap, o, col, frames,
			      target_set__find_gen(set, (pid_t)r.key.tgid, r.key.gen), &r, NULL);
	}
	free(g);
	return err;
}

/* The bytes of row @r by how the walk of its stack ended. */
static void add_stack_share(struct fl_stack_share *s, struct collector *col, const struct fl_row *r)
{
	int end = r->key.origin == FL_ORIGIN_USER ? collector__stack_end(col, r->key.stack) : -1;

	stack_share__add(s, end < 0 ? FL_SHARE_LOST : (unsigned)end, &r->counts);
}

/* The rows a snapshot is made of: a window's, or the collector's. */
static const struct fl_row *snapshot_rows(const struct snapshot_opts *o,
					  const struct collector *col, size_t *n)
{
	if (o->rows) {
		*n = o->nrows;
		return o->rows;
	}
	return collector__rows(col, n);
}

/* The rows into the tree: one by one for a thread's frame or pprof's thread labels, else
 * those that differ by their thread alone summed first. */
static int add_rows(struct snapshot *snap, const struct snapshot_opts *o, struct collector *col,
		    struct frames *frames, struct target_set *set)
{
	size_t nrows;
	const struct fl_row *rows = snapshot_rows(o, col, &nrows);
	int err = 0;

	if (!o->threads && !snap->pprof)
		return add_rows_merged(snap, o, col, frames, set, rows, nrows);
	for (size_t i = 0; i < nrows && !err; i++) {
		struct target *t =
			target_set__find_gen(set, (pid_t)rows[i].key.tgid, rows[i].key.gen);

		if (t)
			err = add_row(snap, o, col, frames, t, &rows[i],
				      o->ends ? &o->ends[i].counts : NULL);
	}
	return err;
}

/* What the rows' paths depend on beyond the rows: the options that shape them and the frames'
 * naming epoch. Never 0, a new cache's stamp: bit 4 is always set. */
static uint64_t tree_stamp(const struct snapshot_opts *o, const struct frames *frames)
{
	return (uint64_t)frames__epoch(frames) << 8 | 1u << 4 | (unsigned)o->threads << 3 |
	       (unsigned)o->by_stack << 2 | (unsigned)o->by_mapping << 1 |
	       (unsigned)o->inline_frames;
}

/*
 * The call tree of the rows: in @keep's tree, kept from the last refresh, when given; in a new
 * one otherwise (pprof's samples are added with the paths, once: a new tree never asks for
 * its rows again).
 */
static int build_tree(struct snapshot *snap, const struct snapshot_opts *o, struct collector *col,
		      struct frames *frames, struct target_set *set, struct treecache *keep)
{
	struct treecache *tree = keep && !snap->pprof ? keep : treecache__new();
	int err = tree ? treecache__begin(tree, tree_stamp(o, frames)) : -ENOMEM;

	snap->tree = tree;
	if (!err)
		err = add_rows(snap, o, col, frames, set);
	if (!err && (err = treecache__end(tree)) == -EAGAIN) {
		/* a kept path no row brought: the tree was started over */
		err = add_rows(snap, o, col, frames, set);
		err = err ?: treecache__end(tree);
	}
	snap->tree = NULL;
	if (tree == keep) {
		snap->profile = treecache__profile(tree);
		snap->profile_kept = true;
	} else if (tree) {
		snap->profile = err ? NULL : treecache__take(tree);
		treecache__free(tree);
		err = err ?: (snap->profile ? 0 : -ENOMEM);
	}
	return err;
}

void snapshot__summary(const struct collector *col, const struct target *t,
		       struct fl_proc_summary *out)
{
	const struct fl_mm *mm = collector__mm(col, (uint32_t)t->sum.pid, t->gen);
	const struct retired_sum *folded = collector__folded(col, (uint32_t)t->sum.pid, t->gen);

	*out = t->sum;
	memset(&out->attributed, 0, sizeof(out->attributed));
	if (folded) {
		out->attributed = folded->attributed;
		out->hugetlb_faults = folded->hugetlb_faults;
	}
	out->peak = mm ? mm->peak : 0;
	collector__exec_dropped(col, (uint32_t)t->sum.pid, &out->exec_dropped,
				&out->exec_dropped_bytes);
}

int snapshot__build(struct snapshot *snap, const struct snapshot_opts *o, struct collector *col,
		    struct frames *frames, struct target_set *set, struct treecache *keep)
{
	size_t nrows, ntargets = set->n;
	const struct fl_row *rows = snapshot_rows(o, col, &nrows);
	struct target *targets = set->v;
	int err = 0;

	memset(snap, 0, sizeof(*snap));
	snap->procs = calloc(ntargets ? ntargets : 1, sizeof(*snap->procs));
	if (!snap->procs || (o->pprof && pprof_setup(snap, o)))
		return -ENOMEM;
	for (size_t i = 0; i < ntargets; i++)
		snapshot__summary(col, &targets[i], &snap->procs[i]);
	snap->report.procs = snap->procs;
	snap->report.nprocs = ntargets;
	snap->report.alloc = o->alloc;
	snap->report.alloc_churn = o->alloc && o->alloc_churn;
	if (o->alloc)
		snap->report.ages_ns = collector__walked(col, &snap->report.ages_now);
	snap->report.vm = o->vm;
	snap->report.new_pages = o->new_pages;
	snap->report.map_classes = o->by_mapping;
	err = build_threads(snap, col, rows, nrows);
	for (size_t i = 0; i < nrows && !err; i++) {
		struct target *t =
			target_set__find_gen(set, (pid_t)rows[i].key.tgid, rows[i].key.gen);

		if (!t)
			continue; /* a process dropped from the targets */
		/* a folded process's rows hold others' too: its share was summed as they moved */
		if (!collector__folded(col, rows[i].key.tgid, rows[i].key.gen))
			report__charge(&snap->procs[t - targets].attributed,
				       &snap->procs[t - targets].hugetlb_faults, &rows[i].key,
				       &rows[i].counts);
		if (rows[i].key.origin == FL_ORIGIN_USER ||
		    rows[i].key.origin == FL_ORIGIN_STACK_LOST)
			add_stack_share(&snap->report.stacks, col, &rows[i]);
	}
	if (!err)
		err = build_tree(snap, o, col, frames, set, keep);
	if (!err)
		sort_threads(snap, o->metric);
	/* allocation sites by the metric, else live bytes, or in churn mode bytes asked */
	snap->report.sites_by = metric__needs_alloc(o->metric) ? o->metric :
				o->alloc_churn		       ? FL_METRIC_ALLOC_BYTES :
								 FL_METRIC_LIVE_BYTES;
	if (!err && o->alloc)
		err = sites__build(snap->report.sites_by, false, col, frames, set, &snap->sites,
				   &snap->report.nsites);
	if (!err && o->vm)
		err = sites__build(o->metric, true, col, frames, set, &snap->vm_sites,
				   &snap->report.nvm_sites);
	snap->report.sites = snap->sites;
	snap->report.vm_sites = snap->vm_sites;
	if (!err)
		profile__sort(snap->profile, o->metric);
	return err;
}

int64_t snapshot__stamp_pprof(const struct snapshot *snap)
{
	struct timespec now;
	int64_t end_ns, len_ns = (int64_t)(snap->report.elapsed_s * 1e9);

	/* the session's wall-clock start: now less its length */
	clock_gettime(CLOCK_REALTIME, &now);
	end_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	pprof__set_time(snap->pprof, end_ns - len_ns, len_ns);
	return end_ns;
}

int snapshot__write_pprof(const struct snapshot *snap, struct output *o)
{
	FILE *f;
	int err;

	if (!snap->pprof)
		return output__close(o, -EINVAL);
	err = output__file(o, &f);
	if (err)
		return output__close(o, err);
	snapshot__stamp_pprof(snap);
	return output__close(o, pprof__write(f, snap->pprof));
}

int snapshot__write_folded(const struct snapshot *snap, struct output *o,
			   const struct folded_layout *l)
{
	FILE *f;
	int err = output__file(o, &f);

	err = err ?: folded__write_layout(f, l);
	return output__close(o, err ?: folded__write(f, snap->profile, l->metric));
}

int snapshot__write_json(const struct snapshot *snap, struct output *o,
			 const struct jsonreport_opts *jo)
{
	FILE *f;
	int err = output__file(o, &f);

	return output__close(o, err ?: jsonreport__write(f, &snap->report, snap->profile, jo));
}

/* "pid 12 app, pid 14 worker, +3 more", in the targets' order. */
static void svg_subject(const struct snapshot *snap, char *buf, size_t len)
{
	size_t n = 0, i;

	buf[0] = '\0';
	for (i = 0; i < snap->report.nprocs && i < 4 && n < len; i++)
		n += snprintf(buf + n, len - n, "%spid %d %s", i ? ", " : "",
			      snap->report.procs[i].pid, snap->report.procs[i].comm);
	if (i < snap->report.nprocs && n < len)
		snprintf(buf + n, len - n, ", +%zu more", snap->report.nprocs - i);
}

int snapshot__write_svg(const struct snapshot *snap, struct output *out, enum fl_metric m)
{
	char subject[160];
	struct svg_opts o = { .metric = m, .subject = subject };
	FILE *f;
	int err = output__file(out, &f);

	if (err)
		return output__close(out, err);
	svg_subject(snap, subject, sizeof(subject));
	return output__close(out, svg__write(f, snap->profile, &o));
}

void snapshot__fini(struct snapshot *snap)
{
	if (!snap->profile_kept)
		profile__free(snap->profile);
	free(snap->procs);
	free(snap->threads);
	free(snap->sites);
	free(snap->vm_sites);
	pprof__free(snap->pprof);
	memset(snap, 0, sizeof(*snap));
}
