// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "sites.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/calls.h"
#include "rowgroups.h"

/* A site before merging: rows of one process, call and caller text are one site (two calls
 * from one function, which whole stacks tell apart by their return addresses, read alike). */
struct site_row {
	struct fl_key key;
	struct fl_call_site site;
};

static int cmp_site_key(const void *a, const void *b)
{
	const struct site_row *sx = a, *sy = b;
	const struct fl_key *x = &sx->key, *y = &sy->key;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->call != y->call)
		return x->call < y->call ? -1 : 1;
	if (x->origin != y->origin)
		return x->origin < y->origin ? -1 : 1;
	return strcmp(sx->site.caller, sy->site.caller);
}

static uint64_t site_bytes(const struct fl_counts *c)
{
	return c->alloc_bytes + c->reserved + c->unmapped + c->advised;
}

static int cmp_site_weight(const void *a, const void *b, void *metric)
{
	enum fl_metric m = *(const enum fl_metric *)metric;
	const struct fl_counts *cx = &((const struct fl_call_site *)a)->counts;
	const struct fl_counts *cy = &((const struct fl_call_site *)b)->counts;
	uint64_t x = metric__value(cx, m), y = metric__value(cy, m);

	if (x != y)
		return x > y ? -1 : 1;
	/* then the busiest: with nothing live, churn still ranks */
	x = site_bytes(cx);
	y = site_bytes(cy);
	if (x != y)
		return x > y ? -1 : 1;
	x = cx->allocs + cx->vm_calls;
	y = cy->allocs + cy->vm_calls;
	return x > y ? -1 : x < y;
}

static void site_merge(struct fl_call_site *dst, const struct fl_call_site *src)
{
	counts__add(&dst->counts, &src->counts);
	for (int i = 0; i < FL_HIST_BUCKETS; i++) {
		dst->hist.size[i] += src->hist.size[i];
		dst->hist.latency[i] += src->hist.latency[i];
	}
	if (src->oldest_ts && (!dst->oldest_ts || src->oldest_ts < dst->oldest_ts))
		dst->oldest_ts = src->oldest_ts;
}

void sites__name_caller(char *buf, size_t len, const char *const *names, size_t depth, size_t want)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = depth > want ? depth - want : 0; i < depth && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " > " : "",
					 names[i]);
}

/* What the call sites are ranked by: the metric when it means something for them (live bytes
 * for allocation sites otherwise; for memory calls, their bytes). */
static enum fl_metric site_metric(enum fl_metric m, bool vm)
{
	if (vm)
		return metric__needs_vm(m) || m == FL_METRIC_RELEASED ? m : FL_METRIC__COUNT;
	return metric__needs_alloc(m) ? m : FL_METRIC_LIVE_BYTES;
}

/* What sites__build() keeps: a target's rows of allocator calls (or, vm, memory syscalls). */
struct site_filter {
	bool vm;
	struct target_set *set;
};

static bool is_site_row(const struct fl_row *r, void *ctx)
{
	const struct site_filter *f = ctx;

	return (f->vm ? fl_call_is_vm(r->key.call) : fl_call_is_alloc(r->key.call)) &&
	       target_set__find_gen(f->set, (pid_t)r->key.tgid, r->key.gen);
}

/* The allocation histograms of row @key and the time of its oldest live block into @s. */
static void take_hist(struct fl_call_site *s, const struct collector *col, const struct fl_key *key,
		      bool vm)
{
	const struct collector_hist *h = vm ? NULL : collector__hist(col, key);

	if (h) {
		s->hist = h->hist;
		s->oldest_ts = h->oldest_ts;
	}
}

/* The site of row @r, its stack named (by its callers) and its histograms taken. */
static void site_of(struct site_row *sr, const struct fl_row *r, bool vm,
		    const struct collector *col, struct frames *frames, struct target *t)
{
	const char *const *names = NULL;
	size_t depth = 0;

	sr->key = r->key;
	sr->key.tid = 0;
	if (r->key.origin == FL_ORIGIN_USER)
		depth = frames__get(frames, col, t->sym, &r->key, &names);
	sr->site = (struct fl_call_site){
		.pid = (pid_t)r->key.tgid,
		.fn = call__name(r->key.call),
		.counts = r->counts,
	};
	if (depth)
		sites__name_caller(sr->site.caller, sizeof(sr->site.caller), names, depth,
				   vm ? 3 : 2);
	else
		snprintf(sr->site.caller, sizeof(sr->site.caller), "%s",
			 origin__name(r->key.origin));
	take_hist(&sr->site, col, &r->key, vm);
}

int sites__build(enum fl_metric metric, bool vm, const struct collector *col, struct frames *frames,
		 struct target_set *set, struct fl_call_site **out, size_t *nout)
{
	enum fl_metric m = site_metric(metric, vm);
	struct site_filter filter = { vm, set };
	size_t nrows, ngroups, n = 0, nsites = 0;
	const struct fl_row *rows = collector__rows(col, &nrows);
	struct fl_call_site *sites;
	struct row_group *g;
	struct site_row *sr;
	int err = row_groups__build(rows, nrows, is_site_row, &filter, &g, &ngroups);

	if (err)
		return err;
	sr = calloc(ngroups ? ngroups : 1, sizeof(*sr));
	if (!sr) {
		free(g);
		return -ENOMEM;
	}
	/* the threads of a stack: named once (rowgroups.h) */
	for (size_t i = 0, j; i < ngroups; i = j, n++) {
		const struct fl_row *r = &rows[g[i].row];

		j = row_groups__end(g, ngroups, i);
		site_of(&sr[n], r, vm, col, frames,
			target_set__find_gen(set, (pid_t)r->key.tgid, r->key.gen));
		for (size_t k = i + 1; k < j; k++) {
			struct fl_call_site more = { .counts = rows[g[k].row].counts };

			take_hist(&more, col, &rows[g[k].row].key, vm);
			site_merge(&sr[n].site, &more);
		}
	}
	free(g);
	qsort(sr, n, sizeof(*sr), cmp_site_key);
	sites = calloc(n ? n : 1, sizeof(*sites));
	if (!sites) {
		free(sr);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (nsites && !cmp_site_key(&sr[i - 1], &sr[i]))
			site_merge(&sites[nsites - 1], &sr[i].site);
		else
			sites[nsites++] = sr[i].site;
	}
	free(sr);
	qsort_r(sites, nsites, sizeof(*sites), cmp_site_weight, &m);
	*out = sites;
	*nout = nsites;
	return 0;
}
