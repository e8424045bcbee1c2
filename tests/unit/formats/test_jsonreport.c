/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The JSON view on a report and profile built here: the document parses (user/jsonread.c, and
 * Python's json module when python3 is installed), every schema field is there with the exact
 * numbers the model holds, and fields of options not in effect are absent.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/jsonread.h"
#include "formats/jsonreport.h"
#include "unit/model_builder.h"

#define MIB (1024ULL * 1024ULL)

struct model {
	struct profile *p;
	struct fl_proc_summary procs[2];
	struct fl_thread_summary threads[2];
	struct fl_call_site sites[1], vm_sites[1];
	struct fl_report r;
};

static void build(struct model *m, bool alloc, bool vm)
{
	struct fl_counts a = { 0 }, b = { 0 }, k = { 0 };
	struct fl_proc_summary *s = &m->procs[0];

	memset(m, 0, sizeof(*m));
	m->p = profile__new();
	cr_assert_not_null(m->p);
	a.grow[FL_ANON] = 8 * MIB;
	a.grow[FL_FILE] = 4096;
	a.release[FL_SHMEM] = 12288;
	a.grow[FL_SWAP] = 3;
	a.faults = 2048;
	a.write_faults = 2047;
	a.at_peak = -4096;
	a.allocs = 10;
	a.alloc_bytes = 1000;
	a.frees = 4;
	a.free_bytes = 1200; /* more than allocated: live_bytes stays 0 */
	a.unmatched_frees = 1;
	a.reserved = 16 * MIB;
	a.unmapped = 8 * MIB;
	a.advised = 4 * MIB;
	a.vm_calls = 5;
	a.vm_failed = 1;
	b.grow[FL_ANON] = UINT64_MAX; /* exact, not a double */
	model_add(m->p, "app|main|touch_a", a);
	model_add(m->p, "app|main|parse\"x\n\xff", b);
	model_add(m->p, "app|main", k); /* a leaf above another: both listed */

	s->pid = 42;
	memcpy(s->comm, "app-with-16char", 16); /* fills comm: no NUL */
	s->alive = true;
	s->at_attach = (struct proc_status){ .vm_rss = 1 * MIB,
					     .rss_anon = 100,
					     .rss_file = 200,
					     .rss_shmem = 300,
					     .vm_swap = 0,
					     .vm_pte = 4096,
					     .hugetlb = 0,
					     .have_pss = true,
					     .pss = 10,
					     .pss_anon = 20,
					     .pss_file = 30,
					     .pss_shmem = 40 };
	s->now = s->at_attach;
	s->now.rss_anon = 100 + 8 * MIB;
	s->now.rss_file = 100; /* fell by 100: a negative change */
	s->now.vm_swap = 8192;
	s->now.pss_anon = 20 + 8 * MIB;
	s->now.vm_pte = 8192;
	s->now.hugetlb = 2 * MIB;
	s->attributed = a;
	s->peak = 9 * (int64_t)MIB;
	s->hugetlb_faults = 1;
	m->procs[1] = (struct fl_proc_summary){ .pid = 43,
						.comm = "child",
						.followed = true,
						.since = SINCE_JOINED,
						.no_status = true };

	m->threads[0] = (struct fl_thread_summary){ .tgid = 42,
						    .tid = 44,
						    .comm = "toucher-a",
						    .counts = a };
	m->threads[1] = (struct fl_thread_summary){ .tgid = 42, .tid = 42, .comm = "app" };
	m->sites[0] = (struct fl_call_site){ .pid = 42,
					     .caller = "main > xmalloc",
					     .fn = "malloc",
					     .counts = a,
					     .oldest_ts = 1000 };
	m->sites[0].hist.size[10] = 7;
	m->sites[0].hist.latency[31] = 3;
	m->vm_sites[0] = (struct fl_call_site){ .pid = 42,
						.caller = "main > f > __munmap",
						.fn = "[munmap]",
						.counts = a };

	m->r = (struct fl_report){
		.elapsed_s = 2.5,
		.procs = m->procs,
		.nprocs = 2,
		.threads = m->threads,
		.nthreads = 2,
		.alloc = alloc,
		.vm = vm,
		.map_classes = true,
		.sample_bytes = alloc ? 4096 : 0,
		.now_ns = 5000,
		.sites = m->sites,
		.nsites = 1,
		.vm_sites = m->vm_sites,
		.nvm_sites = 1,
		.final = true,
		.note = "a note",
	};
	m->r.drops[FL_DROP_STACKS_FULL] = 7;
	m->r.drops[FL_DROP_VM_STATE] = 9;
}

/* The document for @m, parsed into @doc; the text, which the caller frees. */
static char *write_doc(struct model *m, struct jv *doc)
{
	struct jsonreport_opts o = { .version = "9.9.9",
				     .metric = FL_METRIC_ANON,
				     .threads = true,
				     .children = true,
				     .by_stack = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	cr_assert_not_null(f);
	cr_assert_eq(jsonreport__write(f, &m->r, m->p, &o), 0);
	fclose(f);
	cr_assert_eq(strchr(buf, '\n'), buf + len - 1, "not one line: %s", buf);
	err = jv_parse(buf, len, doc);
	cr_assert_eq(err, 0, "not JSON: %s", buf);
	return buf;
}

#define EXPECT_U64(v, path, want)                                                          \
	do {                                                                               \
		uint64_t got_;                                                             \
		cr_expect(jv_u64(jv_path((v), (path)), &got_) && got_ == (uint64_t)(want), \
			  "%s: want %" PRIu64, (path), (uint64_t)(want));                  \
	} while (0)

#define EXPECT_I64(v, path, want)                                                         \
	do {                                                                              \
		int64_t got_;                                                             \
		cr_expect(jv_i64(jv_path((v), (path)), &got_) && got_ == (int64_t)(want), \
			  "%s: want %" PRId64, (path), (int64_t)(want));                  \
	} while (0)

#define EXPECT_STR(v, path, want)                                                                 \
	do {                                                                                      \
		const struct jv *s_ = jv_path((v), (path));                                       \
		cr_expect(s_ && s_->type == JV_STR && !strcmp(s_->text, (want)), "%s: want '%s'", \
			  (path), (want));                                                        \
	} while (0)

#define EXPECT_TYPE(v, path, t)                                                                   \
	cr_expect_eq(jv_path((v), (path)) ? (int)jv_path((v), (path))->type : -1, (int)(t), "%s", \
		     (path))

static bool is_true(const struct jv *v, const char *path)
{
	const struct jv *b = jv_path(v, path);

	return b && b->type == JV_BOOL && b->b;
}

Test(jsonreport, header)
{
	struct model m;
	struct jv d;
	char *s;

	build(&m, true, true);
	m.r.stacks.growth[FL_END_WHOLE] = 987;
	m.r.stacks.growth[FL_END_NO_TABLE] = 13;
	m.r.stacks.alloc[FL_SHARE_LOST] = 5;
	m.r.unwind = (struct fl_unwind_figures){ .objects = 17, .rows = 234917, .bytes = 2819004 };
	s = write_doc(&m, &d);
	EXPECT_U64(&d, "stack_walks.growth_bytes.whole", 987);
	EXPECT_U64(&d, "stack_walks.growth_bytes.no_unwind_info", 13);
	EXPECT_U64(&d, "stack_walks.alloc_bytes.stack_lost", 5);
	EXPECT_U64(&d, "stack_walks.unwind_tables.objects", 17);
	EXPECT_U64(&d, "stack_walks.unwind_tables.rows", 234917);
	EXPECT_U64(&d, "stack_walks.unwind_tables.bytes", 2819004);
	EXPECT_STR(&d, "schema", "faultline/1");
	EXPECT_STR(&d, "version", "9.9.9");
	cr_expect(is_true(&d, "final"));
	cr_expect_str_eq(jv_get(&d, "elapsed_s")->text, "2.500");
	EXPECT_STR(&d, "metric", "anon");
	EXPECT_STR(&d, "options.by", "stack,mapping");
	cr_expect(is_true(&d, "options.threads") && is_true(&d, "options.children"));
	cr_expect(is_true(&d, "options.alloc") && is_true(&d, "options.vm"));
	EXPECT_STR(&d, "options.alloc_mode", "exact");
	EXPECT_U64(&d, "options.sample_bytes", 4096);
	EXPECT_STR(&d, "note", "a note");
	EXPECT_U64(&d, "drops.stacks_map_full", 7);
	EXPECT_U64(&d, "drops.vm_calls_unseen", 9);
	cr_expect_eq(jv_get(&d, "drops")->n, FL_DROP__COUNT, "every drop, by name");
	for (size_t i = 0; i < jv_get(&d, "drops")->n; i++)
		cr_expect(jv_u64(&jv_get(&d, "drops")->items[i], &(uint64_t){ 0 }));
	cr_expect_eq(jv_get(&d, "shipping")->n, 0, "no window yet");
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

/* --every: each endpoint's windows as of the document. */
Test(jsonreport, shipping)
{
	struct model m;
	const struct jv *e;
	struct jv d;
	char *s;

	build(&m, true, true);
	m.r.endpoints[0] = (struct report_endpoint){ .option = "--otlp",
						     .url = "http://c:4318",
						     .sent = 12,
						     .lost = 3,
						     .waiting = 2,
						     .retries = 9 };
	snprintf(m.r.endpoints[0].last_error, sizeof(m.r.endpoints[0].last_error), "%s",
		 "HTTP 503: busy");
	m.r.endpoints[1] = (struct report_endpoint){ .option = "--pyroscope",
						     .url = "http://p:4040",
						     .sent = 15 };
	m.r.nendpoints = 2;
	s = write_doc(&m, &d);
	cr_assert_eq(jv_get(&d, "shipping")->n, 2);
	e = &jv_get(&d, "shipping")->items[0];
	EXPECT_STR(e, "option", "--otlp");
	EXPECT_STR(e, "url", "http://c:4318");
	EXPECT_U64(e, "sent", 12);
	EXPECT_U64(e, "lost", 3);
	EXPECT_U64(e, "waiting", 2);
	EXPECT_U64(e, "retries", 9);
	EXPECT_STR(e, "last_error", "HTTP 503: busy");
	e = &jv_get(&d, "shipping")->items[1];
	EXPECT_U64(e, "sent", 15);
	cr_expect_eq(jv_get(e, "last_error")->type, JV_NULL);
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

Test(jsonreport, process_figures)
{
	struct model m;
	const struct jv *p, *q;
	struct jv d;
	char *s;

	build(&m, false, false);
	s = write_doc(&m, &d);
	cr_assert_eq(jv_get(&d, "processes")->n, 2);
	p = &jv_get(&d, "processes")->items[0];
	EXPECT_I64(p, "pid", 42);
	EXPECT_STR(p, "name", "app-with-16char");
	cr_expect(is_true(p, "alive") && !is_true(p, "followed"));
	EXPECT_U64(p, "status_at_attach.vm_rss", MIB);
	EXPECT_U64(p, "status_at_attach.rss_anon", 100);
	EXPECT_U64(p, "status_now.rss_anon", 100 + 8 * MIB);
	EXPECT_U64(p, "status_now.rss_file", 100);
	EXPECT_U64(p, "status_now.rss_shmem", 300);
	EXPECT_U64(p, "status_now.vm_swap", 8192);
	EXPECT_U64(p, "status_now.vm_pte", 8192);
	EXPECT_U64(p, "status_now.hugetlb_pages", 2 * MIB);
	EXPECT_U64(p, "smaps_rollup_at_attach.pss", 10);
	EXPECT_U64(p, "smaps_rollup_now.pss_anon", 20 + 8 * MIB);
	EXPECT_U64(p, "smaps_rollup_now.pss_file", 30);
	EXPECT_U64(p, "smaps_rollup_now.pss_shmem", 40);
	EXPECT_I64(p, "smaps_rollup_now.age_ns", 0);
	cr_expect_null(jv_path(p, "smaps_rollup_at_attach.age_ns"), "an age only for now's");
	EXPECT_U64(p, "attributed.growth.anon", 8 * MIB);
	EXPECT_U64(p, "attributed.released.shmem", 12288);
	EXPECT_I64(p, "kernel_change.anon", 8 * MIB);
	EXPECT_I64(p, "kernel_change.file", -100);
	EXPECT_I64(p, "kernel_change.swap", 8192);
	EXPECT_I64(p, "gap.anon", 0);
	EXPECT_I64(p, "gap.file", -100 - 4096);
	EXPECT_I64(p, "gap.shmem", 12288);
	EXPECT_I64(p, "gap.swap", 8192 - 3);
	EXPECT_U64(p, "private_cost.at_attach", 20 + 4096);
	EXPECT_U64(p, "private_cost.now", 20 + 8 * MIB + 8192);
	EXPECT_I64(p, "peak_rss", 9 * MIB);
	EXPECT_U64(p, "hugetlb_faults", 1);
	/* a child gone before its status was read: no kernel figures, not zeros */
	q = &jv_get(&d, "processes")->items[1];
	cr_expect(is_true(q, "followed") && !is_true(q, "alive"));
	/* found as it moved into a --cgroup; the given target was not */
	cr_expect_str_eq(jv_get(q, "since")->text, "joined");
	cr_expect_str_eq(jv_get(p, "since")->text, "attach");
	EXPECT_TYPE(q, "status_at_attach", JV_NULL);
	EXPECT_TYPE(q, "status_now", JV_NULL);
	EXPECT_TYPE(q, "smaps_rollup_now", JV_NULL);
	EXPECT_TYPE(q, "kernel_change", JV_NULL);
	EXPECT_TYPE(q, "gap", JV_NULL);
	EXPECT_TYPE(q, "private_cost", JV_NULL);
	EXPECT_TYPE(q, "peak_rss", JV_NULL);
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

/* A child gone before its status was read, whose counters at its exit the BPF side kept: its
 * kernel change and gap from those counters, still no /proc figures. */
Test(jsonreport, gone_child_reconciled_from_its_counters)
{
	struct fl_proc_summary *c;
	struct model m;
	const struct jv *q;
	struct jv d;
	char *s;

	build(&m, false, false);
	c = &m.procs[1];
	c->counters_only = true;
	c->now.rss_anon = MIB;
	c->attributed.grow[FL_ANON] = MIB + 4096;
	c->attributed.release[FL_ANON] = 4096;
	s = write_doc(&m, &d);
	q = &jv_get(&d, "processes")->items[1];
	EXPECT_TYPE(q, "status_at_attach", JV_NULL);
	EXPECT_TYPE(q, "status_now", JV_NULL);
	EXPECT_I64(q, "kernel_change.anon", MIB);
	EXPECT_I64(q, "kernel_change.file", 0);
	EXPECT_I64(q, "gap.anon", 0);
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

/* The processes by executable, every one of them, and the shared pages' figures. */
Test(jsonreport, process_groups)
{
	struct model m;
	const struct jv *g, *q;
	struct jv d;
	char *s;

	build(&m, false, false);
	s = write_doc(&m, &d);
	cr_assert_eq(jv_get(&d, "process_groups")->n, 2);
	g = &jv_get(&d, "process_groups")->items[0];
	EXPECT_STR(g, "name", "app-with-16char");
	EXPECT_U64(g, "processes", 1);
	EXPECT_U64(g, "alive", 1);
	EXPECT_U64(g, "growth", 8 * MIB + 4096);
	EXPECT_U64(g, "private_cost.known", 1);
	EXPECT_U64(g, "private_cost.total", 20 + 8 * MIB + 8192);
	EXPECT_U64(g, "private_cost.median", 20 + 8 * MIB + 8192);
	cr_assert_eq(jv_get(g, "pids")->n, 1);
	EXPECT_I64(&jv_get(g, "pids")->items[0], "", 42);
	q = &jv_get(&d, "process_groups")->items[1];
	EXPECT_STR(q, "name", "child");
	EXPECT_U64(q, "private_cost.known", 0);
	EXPECT_U64(q, "private_cost.total", 0);
	EXPECT_TYPE(q, "private_cost.median", JV_NULL);
	/* one process compared: nothing shared with another */
	EXPECT_U64(&d, "shared_pages.growth", 8 * MIB + 4096);
	EXPECT_U64(&d, "shared_pages.processes", 1);
	EXPECT_I64(&d, "shared_pages.rss_change", 8 * MIB - 100);
	EXPECT_I64(&d, "shared_pages.pss_change", 0);
	cr_expect(!is_true(&d, "shared_pages.overstated"));
	EXPECT_TYPE(&d, "shared_pages.overstated", JV_BOOL);
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

/* How a launched command ended: its status or the signal that killed it; null for a process
 * alive or whose end is unknown. */
Test(jsonreport, process_exit)
{
	struct model m;
	struct jv d;
	char *s;

	build(&m, false, false);
	s = write_doc(&m, &d);
	EXPECT_TYPE(&jv_get(&d, "processes")->items[0], "exit_code", JV_NULL);
	EXPECT_TYPE(&jv_get(&d, "processes")->items[1], "exit_signal", JV_NULL);
	jv_free(&d);
	free(s);
	m.procs[0].alive = false;
	m.procs[0].have_exit = true;
	m.procs[0].exit_code = 3;
	m.procs[1].have_exit = true;
	m.procs[1].exit_signal = 9;
	s = write_doc(&m, &d);
	EXPECT_I64(&jv_get(&d, "processes")->items[0], "exit_code", 3);
	EXPECT_TYPE(&jv_get(&d, "processes")->items[0], "exit_signal", JV_NULL);
	EXPECT_TYPE(&jv_get(&d, "processes")->items[1], "exit_code", JV_NULL);
	EXPECT_STR(&jv_get(&d, "processes")->items[1], "exit_signal", "SIGKILL");
	cr_expect_null(jv_path(&jv_get(&d, "processes")->items[0], "exec_dropped"),
		       "exec_dropped without --alloc");
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

/* --alloc: the live blocks an exec dropped, per process. */
Test(jsonreport, process_exec_dropped)
{
	struct model m;
	struct jv d;
	char *s;

	build(&m, true, false);
	m.procs[0].exec_dropped = 40;
	m.procs[0].exec_dropped_bytes = 120000;
	s = write_doc(&m, &d);
	EXPECT_U64(&jv_get(&d, "processes")->items[0], "exec_dropped.count", 40);
	EXPECT_U64(&jv_get(&d, "processes")->items[0], "exec_dropped.bytes", 120000);
	EXPECT_U64(&jv_get(&d, "processes")->items[1], "exec_dropped.count", 0);
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

/* Every counter of a stack, thread and site; alloc and vm fields only with their option. */
static void expect_counts(const struct jv *c, bool alloc, bool vm)
{
	EXPECT_U64(c, "growth.anon", 8 * MIB);
	EXPECT_U64(c, "growth.file", 4096);
	EXPECT_U64(c, "growth.shmem", 0);
	EXPECT_U64(c, "growth.swap", 3);
	EXPECT_U64(c, "released.shmem", 12288);
	EXPECT_U64(c, "faults", 2048);
	EXPECT_U64(c, "write_faults", 2047);
	EXPECT_I64(c, "at_peak", -4096);
	cr_expect_eq(jv_get(c, "allocs") != NULL, alloc);
	cr_expect_eq(jv_get(c, "reserved") != NULL, vm);
	if (alloc) {
		EXPECT_U64(c, "allocs", 10);
		EXPECT_U64(c, "alloc_bytes", 1000);
		EXPECT_U64(c, "frees", 4);
		EXPECT_U64(c, "free_bytes", 1200);
		EXPECT_U64(c, "live_count", 6);
		EXPECT_U64(c, "live_bytes", 0);
		EXPECT_U64(c, "unmatched_frees", 1);
	}
	if (vm) {
		EXPECT_U64(c, "reserved", 16 * MIB);
		EXPECT_U64(c, "unmapped", 8 * MIB);
		EXPECT_U64(c, "advised", 4 * MIB);
		EXPECT_U64(c, "vm_calls", 5);
		EXPECT_U64(c, "vm_failed", 1);
	}
}

static void check_stacks(bool alloc, bool vm)
{
	const struct jv *st, *f;
	struct model m;
	struct jv d;
	char *s;
	uint64_t v;

	build(&m, alloc, vm);
	s = write_doc(&m, &d);
	st = jv_get(&d, "stacks");
	cr_assert(st && st->type == JV_ARR && st->n == 3, "%s", s);
	/* pre-order, in the tree's (here insertion) order: main, then its two leaves */
	f = jv_get(&st->items[0], "frames");
	cr_assert(f && f->n == 2);
	cr_expect_str_eq(f->items[1].text, "main");
	f = jv_get(&st->items[1], "frames");
	cr_assert(f && f->n == 3);
	cr_expect_str_eq(f->items[0].text, "app");
	cr_expect_str_eq(f->items[2].text, "touch_a");
	expect_counts(jv_get(&st->items[1], "counts"), alloc, vm);
	f = jv_get(&st->items[2], "frames");
	cr_assert(f && f->n == 3);
	cr_expect_str_eq(f->items[2].text, "parse\"x\n\xef\xbf\xbd", "escaped and replaced");
	cr_expect(jv_u64(jv_path(&st->items[2], "counts.growth.anon"), &v) && v == UINT64_MAX);
	cr_assert_eq(jv_get(&d, "threads")->n, 2);
	EXPECT_I64(&jv_get(&d, "threads")->items[0], "tid", 44);
	EXPECT_I64(&jv_get(&d, "threads")->items[0], "tgid", 42);
	EXPECT_STR(&jv_get(&d, "threads")->items[0], "name", "toucher-a");
	expect_counts(jv_path(&jv_get(&d, "threads")->items[0], "counts"), alloc, vm);
	expect_counts(jv_path(&jv_get(&d, "processes")->items[0], "attributed"), alloc, vm);
	cr_expect_eq(jv_get(&d, "allocation_sites") != NULL, alloc);
	cr_expect_eq(jv_get(&d, "memory_call_sites") != NULL, vm);
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

Test(jsonreport, stacks_threads_every_counter)
{
	check_stacks(false, false);
	check_stacks(true, false);
	check_stacks(false, true);
	check_stacks(true, true);
}

Test(jsonreport, sites)
{
	const struct jv *a, *v;
	struct model m;
	struct jv d;
	char *s;

	build(&m, true, true);
	s = write_doc(&m, &d);
	a = &jv_get(&d, "allocation_sites")->items[0];
	EXPECT_I64(a, "pid", 42);
	EXPECT_STR(a, "caller", "main > xmalloc");
	EXPECT_STR(a, "function", "malloc");
	expect_counts(jv_get(a, "counts"), true, true);
	cr_assert_eq(jv_get(a, "size_hist")->n, FL_HIST_BUCKETS);
	EXPECT_U64(&jv_get(a, "size_hist")->items[10], "", 7);
	EXPECT_U64(&jv_get(a, "latency_hist_ns")->items[31], "", 3);
	EXPECT_U64(a, "oldest_live_age_ns", 4000);
	v = &jv_get(&d, "memory_call_sites")->items[0];
	EXPECT_STR(v, "function", "[munmap]");
	EXPECT_STR(v, "caller", "main > f > __munmap");
	cr_expect_null(jv_get(v, "size_hist"), "no histograms for memory calls");
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

/*
 * --alloc=churn: the mode in options; calls and bytes asked everywhere, and what it does not
 * measure (frees, live blocks, histograms, ages, blocks an exec dropped) absent, not 0.
 */
Test(jsonreport, churn_mode)
{
	static const char *const absent[] = { "frees", "free_bytes", "live_count", "live_bytes",
					      "unmatched_frees" };
	const struct jv *counts[4], *a;
	struct model m;
	struct jv d;
	char *s;

	build(&m, true, false);
	m.r.alloc_churn = true;
	s = write_doc(&m, &d);
	EXPECT_STR(&d, "options.alloc_mode", "churn");
	a = &jv_get(&d, "allocation_sites")->items[0];
	counts[0] = jv_get(a, "counts");
	counts[1] = jv_path(&jv_get(&d, "stacks")->items[1], "counts");
	counts[2] = jv_path(&jv_get(&d, "threads")->items[0], "counts");
	counts[3] = jv_path(&jv_get(&d, "processes")->items[0], "attributed");
	for (size_t i = 0; i < 4; i++) {
		cr_assert_not_null(counts[i]);
		EXPECT_U64(counts[i], "allocs", 10);
		EXPECT_U64(counts[i], "alloc_bytes", 1000);
		for (size_t k = 0; k < sizeof(absent) / sizeof(absent[0]); k++)
			cr_expect_null(jv_get(counts[i], absent[k]), "%s in counts %zu", absent[k],
				       i);
	}
	cr_expect_null(jv_get(a, "size_hist"));
	cr_expect_null(jv_get(a, "latency_hist_ns"));
	cr_expect_null(jv_get(a, "oldest_live_age_ns"));
	cr_expect_null(jv_path(&jv_get(&d, "processes")->items[0], "exec_dropped"));
	cr_expect_null(jv_path(&d, "options.sample_time"), "no windows without --sample-time");
	jv_free(&d);
	free(s);
	/* --sample-time: how long the probes were in, to the millisecond */
	m.r.sample_time = 0.1;
	m.r.probed_s = 0.2504;
	s = write_doc(&m, &d);
	cr_expect_str_eq(jv_path(&d, "options.sample_time")->text, "0.1000");
	cr_expect_str_eq(jv_path(&d, "options.probed_s")->text, "0.250");
	jv_free(&d);
	free(s);
	profile__free(m.p);
	build(&m, false, false);
	s = write_doc(&m, &d);
	cr_expect_null(jv_path(&d, "options.alloc_mode"), "no mode without --alloc");
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

/* A second, independent parser: Python's, when there is one. */
Test(jsonreport, python_parses_it_too)
{
	struct model m;
	struct jv d;
	char *s;
	FILE *py;

	if (system("command -v python3 >/dev/null 2>&1"))
		cr_skip_test("python3 not installed: only user/jsonread.c checked the syntax");
	build(&m, true, true);
	s = write_doc(&m, &d);
	py = popen("python3 -c 'import json,sys; d=json.loads(sys.stdin.buffer.read()); "
		   "sys.exit(0 if d[\"schema\"]==\"faultline/1\" and "
		   "d[\"stacks\"][2][\"counts\"][\"growth\"][\"anon\"]==2**64-1 else 3)'",
		   "w");
	cr_assert_not_null(py);
	fputs(s, py);
	cr_expect_eq(pclose(py), 0, "python3's json refused the document or its values");
	jv_free(&d);
	free(s);
	profile__free(m.p);
}

/*
 * A live refresh's oldest live ages come from the last walk of the live table: how old it is is
 * said, and a site whose live blocks all came after it has no age (they are younger than it).
 */
Test(jsonreport, oldest_live_ages_as_of_the_last_walk)
{
	const struct jv *a;
	struct model m;
	struct jv d;
	char *s;

	build(&m, true, false);
	s = write_doc(&m, &d);
	EXPECT_TYPE(&d, "oldest_live_as_of_ns", JV_NULL);
	jv_free(&d);
	free(s);
	m.r.final = false;
	m.r.ages_ns = 2000;
	s = write_doc(&m, &d);
	EXPECT_U64(&d, "oldest_live_as_of_ns", 3000);
	EXPECT_U64(&jv_get(&d, "allocation_sites")->items[0], "oldest_live_age_ns", 4000);
	jv_free(&d);
	free(s);
	m.sites[0].oldest_ts = 0;
	s = write_doc(&m, &d);
	a = &jv_get(&d, "allocation_sites")->items[0];
	EXPECT_TYPE(a, "oldest_live_age_ns", JV_NULL);
	jv_free(&d);
	free(s);
	m.r.ages_now = true;
	m.sites[0].oldest_ts = 1000;
	m.sites[0].counts.frees = m.sites[0].counts.allocs; /* freed since: none live */
	s = write_doc(&m, &d);
	EXPECT_U64(&d, "oldest_live_as_of_ns", 0);
	EXPECT_TYPE(&jv_get(&d, "allocation_sites")->items[0], "oldest_live_age_ns", JV_NULL);
	jv_free(&d);
	free(s);
	profile__free(m.p);
}
