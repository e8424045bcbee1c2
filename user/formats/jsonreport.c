// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * The JSON view. Every figure is an integer in bytes (or a count), as the BPF side counted it,
 * never rounded to KiB; only the elapsed time has a fraction. A figure that could not be
 * measured is null, and a field only an option fills (--alloc, --vm, --by mapping) is absent
 * without it, so that 0 always means "measured, and zero". docs/json.md is the schema.
 */
#include "formats/jsonreport.h"
#include <string.h>
#include "formats/json.h"
#include "formats/jsoncgroups.h"
#include "formats/jsongroups.h"
#include "formats/jsoninventory.h"
#include "model/forgotten.h"
#include "model/retention.h"

/* The drops by name: identifiers a program can rely on, unlike the table's wording. */
static const char *const drop_keys[FL_DROP__COUNT] = {
	[FL_DROP_STACKS_FULL] = "stacks_map_full",   [FL_DROP_STACK_FAILED] = "stacks_failed",
	[FL_DROP_COUNTS_FULL] = "counts_map_full",   [FL_DROP_MM_FULL] = "mm_map_full",
	[FL_DROP_THREADS_FULL] = "threads_map_full", [FL_DROP_TASK_STORAGE] = "task_storage",
	[FL_DROP_LIVE_FULL] = "live_table_full",     [FL_DROP_ALLOC_STATE] = "alloc_calls_unseen",
	[FL_DROP_HISTS_FULL] = "hists_map_full",     [FL_DROP_PROCS_FULL] = "procs_map_full",
	[FL_DROP_VM_STATE] = "vm_calls_unseen",	     [FL_DROP_PID_REUSED] = "pid_reused",
	[FL_DROP_EXIT_MAPS] = "exit_maps_lost",	     [FL_DROP_REGIONS_FULL] = "regions_lost",
};

/* The RSS counter members in the order the schema lists them. */
static const struct {
	const char *key;
	int member;
} kinds[FL_MEMBERS] = {
	{ "anon", FL_ANON },
	{ "file", FL_FILE },
	{ "shmem", FL_SHMEM },
	{ "swap", FL_SWAP },
};

static void by_kind(struct json *j, const char *key, const __u64 v[FL_MEMBERS])
{
	json__object_begin(j, key);
	for (int i = 0; i < FL_MEMBERS; i++)
		json__u64(j, kinds[i].key, v[kinds[i].member]);
	json__object_end(j);
}

static void counts(struct json *j, const char *key, const struct fl_counts *c,
		   const struct fl_report *r)
{
	json__object_begin(j, key);
	by_kind(j, "growth", c->grow);
	by_kind(j, "released", c->release);
	json__u64(j, "faults", c->faults);
	json__u64(j, "write_faults", c->write_faults);
	json__i64(j, "at_peak", c->at_peak);
	if (r->alloc) {
		json__u64(j, "allocs", c->allocs);
		json__u64(j, "alloc_bytes", c->alloc_bytes);
	}
	/* --alloc=churn traces no free: these were never measured, so they are absent */
	if (r->alloc && !r->alloc_churn) {
		json__u64(j, "frees", c->frees);
		json__u64(j, "free_bytes", c->free_bytes);
		json__u64(j, "live_count", metric__value(c, FL_METRIC_LIVE_COUNT));
		json__u64(j, "live_bytes", metric__value(c, FL_METRIC_LIVE_BYTES));
		json__u64(j, "unmatched_frees", c->unmatched_frees);
	}
	if (r->vm) {
		json__u64(j, "reserved", c->reserved);
		json__u64(j, "unmapped", c->unmapped);
		json__u64(j, "advised", c->advised);
		json__u64(j, "vm_calls", c->vm_calls);
		json__u64(j, "vm_failed", c->vm_failed);
	}
	if (r->new_pages)
		json__u64(j, "new_bytes", c->new_bytes);
	json__object_end(j);
}

/* Bytes by how their stack's walk ended; keys that programs can rely on. */
static void share(struct json *j, const char *key, const uint64_t v[FL_SHARE__COUNT])
{
	static const char *const keys[FL_SHARE__COUNT] = {
		[FL_END_FP] = "frame_pointers_ended",
		[FL_END_WHOLE] = "whole",
		[FL_END_NO_TABLE] = "no_unwind_info",
		[FL_END_INVALID] = "unfollowable_rule",
		[FL_END_READ] = "unreadable_stack",
		[FL_END_DEPTH] = "depth",
		[FL_END_FALLBACK] = "frame_pointer_fallback",
		[FL_SHARE_LOST] = "stack_lost",
	};

	json__object_begin(j, key);
	for (int i = 0; i < FL_SHARE__COUNT; i++)
		json__u64(j, keys[i], v[i]);
	json__object_end(j);
}

static void stack_shares(struct json *j, const struct fl_report *r)
{
	const struct fl_unwind_figures *u = &r->unwind;

	json__object_begin(j, "stack_walks");
	share(j, "growth_bytes", r->stacks.growth);
	share(j, "alloc_bytes", r->stacks.alloc);
	json__object_begin(j, "unwind_tables");
	json__u64(j, "objects", u->objects);
	json__u64(j, "rows", u->rows);
	json__u64(j, "bytes", u->bytes);
	json__u64(j, "without_unwind_info", u->no_table);
	json__u64(j, "over_memory_bound", u->over_budget);
	json__u64(j, "refused_by_kernel", u->load_failed);
	json__u64(j, "mappings_past_limit", u->maps_cut);
	if (u->maps_cut)
		json__str(j, "mappings_past_limit_files", u->cut_names);
	json__fixed(j, "build_ms", u->compile_ms, 1);
	json__object_end(j);
	json__object_end(j);
}

/* --every: each endpoint's windows so far (empty without a window yet). */
static void shipping(struct json *j, const struct fl_report *r)
{
	json__array_begin(j, "shipping");
	for (size_t i = 0; i < r->nendpoints; i++) {
		const struct report_endpoint *e = &r->endpoints[i];

		json__object_begin(j, NULL);
		json__str(j, "option", e->option);
		json__str(j, "url", e->url);
		json__u64(j, "sent", e->sent);
		json__u64(j, "lost", e->lost);
		json__u64(j, "waiting", e->waiting);
		json__u64(j, "retries", e->retries);
		if (e->last_error[0])
			json__str(j, "last_error", e->last_error);
		else
			json__null(j, "last_error");
		json__object_end(j);
	}
	json__array_end(j);
}

static void header(struct json *j, const struct fl_report *r, const struct jsonreport_opts *o)
{
	json__str(j, "schema", JSONREPORT_SCHEMA);
	json__str(j, "version", o->version);
	json__bool(j, "final", r->final);
	json__fixed(j, "elapsed_s", r->elapsed_s, 3);
	json__str(j, "metric", metric__name(o->metric));
	json__object_begin(j, "options");
	json__str(j, "by",
		  o->by_stack && r->map_classes ? "stack,mapping" :
		  r->map_classes		? "mapping" :
						  "stack");
	json__str(j, "top", o->top ? o->top : "exe");
	json__bool(j, "threads", o->threads);
	json__bool(j, "children", o->children);
	json__bool(j, "alloc", r->alloc);
	if (r->alloc)
		json__str(j, "alloc_mode", r->alloc_churn ? "churn" : "exact");
	json__u64(j, "sample_bytes", r->sample_bytes);
	if (r->sample_time) {
		json__fixed(j, "sample_time", r->sample_time, 4);
		json__fixed(j, "probed_s", r->probed_s, 3);
	}
	json__bool(j, "vm", r->vm);
	json__bool(j, "new_pages", r->new_pages);
	json__object_end(j);
	json__str(j, "note", r->note);
	if (r->kernel_release) {
		json__object_begin(j, "kernel");
		json__str(j, "release", r->kernel_release);
		json__str(j, "rss_counters", r->rss_batched ? "batched" : "exact");
		json__str(j, "programs", r->kernel_legacy ? "legacy" : "full");
		json__array_begin(j, "missing");
		for (size_t i = 0; i < r->nkernel_missing; i++)
			json__str(j, NULL, r->kernel_missing[i]);
		json__array_end(j);
		json__object_end(j);
	}
	json__object_begin(j, "drops");
	for (int i = 0; i < FL_DROP__COUNT; i++)
		json__u64(j, drop_keys[i], r->drops[i]);
	json__object_end(j);
	shipping(j, r);
	stack_shares(j, r);
}

static void status(struct json *j, const char *key, const struct proc_status *s, bool known)
{
	if (!known) {
		json__null(j, key);
		return;
	}
	json__object_begin(j, key);
	json__u64(j, "vm_rss", s->vm_rss);
	json__u64(j, "rss_anon", s->rss_anon);
	json__u64(j, "rss_file", s->rss_file);
	json__u64(j, "rss_shmem", s->rss_shmem);
	json__u64(j, "vm_swap", s->vm_swap);
	json__u64(j, "vm_pte", s->vm_pte);
	json__u64(j, "hugetlb_pages", s->hugetlb);
	json__object_end(j);
}

/* @age_ns: how long before the report the figures were read (paced), or -1 to say nothing. */
static void rollup(struct json *j, const char *key, const struct proc_status *s, bool known,
		   int64_t age_ns)
{
	if (!known || !s->have_pss) {
		json__null(j, key);
		return;
	}
	json__object_begin(j, key);
	json__u64(j, "pss", s->pss);
	json__u64(j, "pss_anon", s->pss_anon);
	json__u64(j, "pss_file", s->pss_file);
	json__u64(j, "pss_shmem", s->pss_shmem);
	if (age_ns >= 0)
		json__i64(j, "age_ns", age_ns);
	json__object_end(j);
}

/*
 * The kernel's change since attach (or since a child's baselines) per kind, and the gap:
 * that change minus faultline's growth net of releases, as the table's reconciliation shows.
 */
static void reconcile(struct json *j, const struct fl_proc_summary *s)
{
	int64_t kern[FL_MEMBERS], gap[FL_MEMBERS];

	if (!proc_summary__reconciled(s)) {
		json__null(j, "kernel_change");
		json__null(j, "gap");
		return;
	}
	proc_summary__reconcile(s, kern, gap);
	json__object_begin(j, "kernel_change");
	for (int i = 0; i < FL_MEMBERS; i++)
		json__i64(j, kinds[i].key, kern[kinds[i].member]);
	json__object_end(j);
	json__object_begin(j, "gap");
	for (int i = 0; i < FL_MEMBERS; i++)
		json__i64(j, kinds[i].key, gap[kinds[i].member]);
	json__object_end(j);
}

/* Pss_Anon + VmPTE: what the process would give back if it went away. */
static void private_cost(struct json *j, const struct fl_proc_summary *s)
{
	const struct proc_status *n = &s->now, *t = &s->at_attach;

	if (s->no_status || !n->have_pss) {
		json__null(j, "private_cost");
		return;
	}
	json__object_begin(j, "private_cost");
	if (t->have_pss)
		json__u64(j, "at_attach", proc_status__private_cost(t));
	else
		json__null(j, "at_attach");
	json__u64(j, "now", proc_status__private_cost(n));
	json__object_end(j);
}

/* How a launched command ended; null for any process still alive or whose end is unknown. */
static void exit_fields(struct json *j, const struct fl_proc_summary *s)
{
	char sig[32];

	if (s->alive || !s->have_exit) {
		json__null(j, "exit_code");
		json__null(j, "exit_signal");
		return;
	}
	if (s->exit_signal > 0) {
		json__null(j, "exit_code");
		snprintf(sig, sizeof(sig), "SIG%s",
			 sigabbrev_np(s->exit_signal) ? sigabbrev_np(s->exit_signal) : "?");
		json__str(j, "exit_signal", sig);
		return;
	}
	json__i64(j, "exit_code", s->exit_code);
	json__null(j, "exit_signal");
}

/* What the allocator holds beyond the live heap (model/retention.h); null without both reads
 * of the inventory. */
static void retention(struct json *j, const struct fl_proc_summary *s)
{
	const struct inventory *inv = s->inventory;
	struct retention ret;
	int64_t live = (int64_t)metric__value(&s->attributed, FL_METRIC_LIVE_BYTES);

	if (!inv || !inv->reads[INV_AT_ATTACH].taken || !inv->reads[INV_AT_END].taken) {
		json__null(j, "retention");
		return;
	}
	retention__compute(inv, live, &ret);
	json__object_begin(j, "retention");
	json__i64(j, "live_growth", live);
	json__i64(j, "allocator_growth", ret.allocator_growth);
	json__u64(j, "allocator_mappings", ret.allocator_mappings);
	json__i64(j, "allocator_holds", ret.holds);
	json__i64(j, "application_growth", ret.app_growth);
	json__u64(j, "application_mappings", ret.app_mappings);
	json__i64(j, "unknown_owner_growth", ret.unknown_growth);
	json__u64(j, "unknown_owner_mappings", ret.unknown_mappings);
	json__object_end(j);
}

static void process(struct json *j, const struct fl_report *r, const struct fl_proc_summary *s)
{
	json__object_begin(j, NULL);
	json__i64(j, "pid", s->pid);
	json__strn(j, "name", s->comm, sizeof(s->comm));
	if (s->cgroup[0])
		json__str(j, "cgroup", s->cgroup);
	else
		json__null(j, "cgroup");
	json__bool(j, "alive", s->alive);
	json__bool(j, "followed", s->followed);
	json__str(j, "since", (const char *const[]){ "attach", "fork", "joined" }[s->since]);
	if (s->folded_into)
		json__i64(j, "stacks_in", s->folded_into);
	exit_fields(j, s);
	status(j, "status_at_attach", &s->at_attach, !s->no_status);
	status(j, "status_now", &s->now, !s->no_status);
	rollup(j, "smaps_rollup_at_attach", &s->at_attach, !s->no_status, -1);
	rollup(j, "smaps_rollup_now", &s->now, !s->no_status, (int64_t)s->rollup_age_ns);
	counts(j, "attributed", &s->attributed, r);
	reconcile(j, s);
	private_cost(j, s);
	if (s->peak > 0)
		json__i64(j, "peak_rss", s->peak);
	else
		json__null(j, "peak_rss");
	if (r->map_classes)
		json__u64(j, "hugetlb_faults", s->hugetlb_faults);
	/* the final document only: a mapping each, too much for every line of a stream */
	if (r->final)
		jsoninventory__write(j, "inventory", s->inventory);
	if (r->alloc && !r->alloc_churn && r->final)
		retention(j, s);
	if (r->alloc && !r->alloc_churn) {
		json__object_begin(j, "exec_dropped");
		json__u64(j, "count", s->exec_dropped);
		json__u64(j, "bytes", s->exec_dropped_bytes);
		json__object_end(j);
	}
	json__object_end(j);
}

static void thread(struct json *j, const struct fl_report *r, const struct fl_thread_summary *t)
{
	json__object_begin(j, NULL);
	json__i64(j, "tid", t->tid);
	json__i64(j, "tgid", t->tgid);
	json__strn(j, "name", t->comm, sizeof(t->comm));
	counts(j, "counts", &t->counts, r);
	json__object_end(j);
}

static void hist(struct json *j, const char *key, const __u64 v[FL_HIST_BUCKETS])
{
	json__array_begin(j, key);
	for (int i = 0; i < FL_HIST_BUCKETS; i++)
		json__u64(j, NULL, v[i]);
	json__array_end(j);
}

static void site(struct json *j, const struct fl_report *r, const struct fl_call_site *s,
		 bool alloc)
{
	uint64_t ns;

	json__object_begin(j, NULL);
	json__i64(j, "pid", s->pid);
	json__strn(j, "caller", s->caller, sizeof(s->caller));
	json__str(j, "function", s->fn);
	counts(j, "counts", &s->counts, r);
	if (alloc && !r->alloc_churn) {
		hist(j, "size_hist", s->hist.size);
		hist(j, "latency_hist_ns", s->hist.latency);
		if (report__oldest_age(r, s, &ns) > 0)
			json__u64(j, "oldest_live_age_ns", ns);
		else
			json__null(j, "oldest_live_age_ns");
	}
	json__object_end(j);
}

static void sites(struct json *j, const struct fl_report *r, const char *key,
		  const struct fl_call_site *v, size_t n, bool alloc)
{
	json__array_begin(j, key);
	for (size_t i = 0; i < n; i++)
		site(j, r, &v[i], alloc);
	json__array_end(j);
}

/* The frames from the root's child down to @n. */
static void frames(struct json *j, const struct pnode *n)
{
	if (!n->parent)
		return;
	frames(j, n->parent);
	json__str(j, NULL, n->name);
}

/* The source line of each frame from the root's child down to @n ("file:line" or null). */
static void lines(struct json *j, const struct pnode *n)
{
	if (!n->parent)
		return;
	lines(j, n->parent);
	if (n->src)
		json__str(j, NULL, n->src);
	else
		json__null(j, NULL);
}

static bool has_lines(const struct pnode *n)
{
	for (; n; n = n->parent)
		if (n->src)
			return true;
	return false;
}

static void stacks(struct json *j, const struct fl_report *r, const struct pnode *n)
{
	if (n->leaf && n->parent) {
		json__object_begin(j, NULL);
		json__array_begin(j, "frames");
		frames(j, n);
		json__array_end(j);
		if (has_lines(n)) {
			json__array_begin(j, "lines");
			lines(j, n);
			json__array_end(j);
		}
		counts(j, "counts", &n->self, r);
		json__object_end(j);
	}
	for (size_t i = 0; i < n->nchildren && !j->err; i++)
		stacks(j, r, n->children[i]);
}

/* The exited processes no longer in "processes" (--keep-exited), summed. */
static void forgotten(struct json *j, const struct fl_report *r)
{
	static const struct forgotten none;
	const struct forgotten *f = r->forgotten ? r->forgotten : &none;

	json__object_begin(j, "forgotten");
	json__u64(j, "processes", f->nprocs);
	json__u64(j, "past_cgroup_bound", forgotten__past_cgroup_bound(f));
	counts(j, "attributed", &f->attributed, r);
	json__object_end(j);
}

int jsonreport__write(FILE *out, const struct fl_report *r, const struct profile *p,
		      const struct jsonreport_opts *o)
{
	struct json j;
	uint64_t ago;

	json__init(&j, out);
	json__object_begin(&j, NULL);
	header(&j, r, o);
	json__array_begin(&j, "processes");
	for (size_t i = 0; i < r->nprocs; i++)
		process(&j, r, &r->procs[i]);
	json__array_end(&j);
	forgotten(&j, r);
	jsongroups__write(&j, r);
	jsoncgroups__write(&j, r);
	json__array_begin(&j, "threads");
	for (size_t i = 0; i < r->nthreads; i++)
		thread(&j, r, &r->threads[i]);
	json__array_end(&j);
	if (r->alloc) {
		sites(&j, r, "allocation_sites", r->sites, r->nsites, true);
		/* how old the sites' oldest_live_age_ns are: a live refresh walks seldom */
		if (report__ages_as_of(r, &ago))
			json__u64(&j, "oldest_live_as_of_ns", ago);
		else
			json__null(&j, "oldest_live_as_of_ns");
	}
	if (r->vm)
		sites(&j, r, "memory_call_sites", r->vm_sites, r->nvm_sites, false);
	json__array_begin(&j, "stacks");
	stacks(&j, r, &p->root);
	json__array_end(&j);
	json__object_end(&j);
	return json__finish(&j);
}
