// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/procgroups.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/forgotten.h"
#include "model/profile.h"

bool proc_groups__cost(const struct fl_proc_summary *s, uint64_t *cost)
{
	*cost = 0;
	if (s->no_status || !s->now.have_pss)
		return false;
	*cost = proc_status__private_cost(&s->now);
	return true;
}

uint64_t proc_groups__median(const uint64_t *desc, size_t n)
{
	if (!n)
		return 0;
	if (n % 2)
		return desc[n / 2];
	/* half of each first: the sum of two large figures may not fit */
	return desc[n / 2 - 1] / 2 + desc[n / 2] / 2 + (desc[n / 2 - 1] % 2 + desc[n / 2] % 2) / 2;
}

static uint64_t growth_of(const struct fl_proc_summary *s)
{
	return metric__value(&s->attributed, FL_METRIC_RESIDENT);
}

/* Name, then the costliest first: so a group is a run, in the order it is listed. */
static int cmp_member(const void *a, const void *b, void *arg)
{
	const struct fl_proc_summary *procs = arg;
	const struct fl_proc_summary *x = &procs[*(const size_t *)a];
	const struct fl_proc_summary *y = &procs[*(const size_t *)b];
	uint64_t cx, cy, gx, gy;
	bool kx = proc_groups__cost(x, &cx), ky = proc_groups__cost(y, &cy);
	int c = strncmp(x->comm, y->comm, FL_COMM_LEN);

	if (c)
		return c;
	if (kx != ky)
		return kx ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	gx = growth_of(x);
	gy = growth_of(y);
	if (gx != gy)
		return gx > gy ? -1 : 1;
	if (x->alive != y->alive)
		return x->alive ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_group(const void *a, const void *b)
{
	const struct proc_group *x = a, *y = b;

	if (x->private_total != y->private_total)
		return x->private_total > y->private_total ? -1 : 1;
	if (x->growth != y->growth)
		return x->growth > y->growth ? -1 : 1;
	return strncmp(x->name, y->name, FL_COMM_LEN);
}

/* The figures of the group whose processes are the run @run[0 .. @len) (costliest first). */
static void sum_group(const struct fl_proc_summary *procs, const size_t *run, size_t len,
		      uint64_t *costs, struct proc_group *grp)
{
	size_t known = 0;

	memset(grp, 0, sizeof(*grp));
	memcpy(grp->name, procs[run[0]].comm, FL_COMM_LEN);
	grp->nprocs = grp->kept = len;
	for (size_t i = 0; i < len; i++) {
		const struct fl_proc_summary *s = &procs[run[i]];

		grp->alive += s->alive;
		grp->growth += growth_of(s);
		grp->new_bytes += s->attributed.new_bytes;
		/* the known ones lead the run, highest first */
		if (proc_groups__cost(s, &costs[known])) {
			grp->private_total += costs[known];
			known++;
		}
	}
	grp->unknown = len - known;
	grp->private_median = proc_groups__median(costs, known);
	grp->median_of = known;
}

/* Adds the processes forgotten under each name to its group, made when none is kept. */
static void add_forgotten(struct proc_groups *g, const struct forgotten *f)
{
	for (size_t i = 0; f && i < f->nnames; i++) {
		const struct forgotten_name *fn = &f->names[i];
		struct proc_group *grp = NULL;

		for (size_t k = 0; k < g->n && !grp; k++)
			if (!strncmp(g->v[k].name, fn->name, FL_COMM_LEN))
				grp = &g->v[k];
		if (!grp) {
			grp = &g->v[g->n++];
			memset(grp, 0, sizeof(*grp));
			memcpy(grp->name, fn->name, FL_COMM_LEN);
		}
		grp->nprocs += fn->nprocs;
		grp->unknown += fn->unknown;
		grp->private_total += fn->private_total;
		grp->growth += fn->growth;
		grp->new_bytes += fn->new_bytes;
	}
}

int proc_groups__build(const struct fl_proc_summary *procs, size_t n,
		       const struct forgotten *forgotten, struct proc_groups *g)
{
	size_t *sorted = calloc(n ? n : 1, sizeof(*sorted));
	uint64_t *costs = calloc(n ? n : 1, sizeof(*costs));
	size_t ngroups = n + (forgotten ? forgotten->nnames : 0), at = 0;

	memset(g, 0, sizeof(*g));
	g->members = calloc(n ? n : 1, sizeof(*g->members));
	g->v = calloc(ngroups ? ngroups : 1, sizeof(*g->v));
	if (!sorted || !costs || !g->members || !g->v) {
		free(sorted);
		free(costs);
		proc_groups__free(g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		sorted[i] = i;
	if (n > 1)
		qsort_r(sorted, n, sizeof(*sorted), cmp_member, (void *)procs);
	for (size_t i = 0, end; i < n; i = end) {
		for (end = i + 1; end < n && !strncmp(procs[sorted[end]].comm,
						      procs[sorted[i]].comm, FL_COMM_LEN);
		     end++)
			;
		sum_group(procs, &sorted[i], end - i, costs, &g->v[g->n]);
		g->v[g->n++].first = i;
	}
	add_forgotten(g, forgotten);
	qsort(g->v, g->n, sizeof(*g->v), cmp_group);
	/* the members in the groups' order */
	for (size_t k = 0; k < g->n; k++) {
		memcpy(&g->members[at], &sorted[g->v[k].first], g->v[k].kept * sizeof(*sorted));
		g->v[k].first = at;
		at += g->v[k].kept;
	}
	g->nmembers = at;
	free(sorted);
	free(costs);
	return 0;
}

void proc_groups__free(struct proc_groups *g)
{
	free(g->v);
	free(g->members);
	memset(g, 0, sizeof(*g));
}

size_t proc_groups__bound(const struct proc_groups *g, size_t max_groups,
			  struct proc_groups_rest *rest)
{
	size_t shown = max_groups && max_groups < g->n ? max_groups : g->n;

	memset(rest, 0, sizeof(*rest));
	for (size_t k = shown; k < g->n; k++) {
		rest->groups++;
		rest->nprocs += g->v[k].nprocs;
		rest->alive += g->v[k].alive;
		rest->private_total += g->v[k].private_total;
		rest->growth += g->v[k].growth;
		rest->new_bytes += g->v[k].new_bytes;
	}
	return shown;
}

size_t proc_group__listed(const struct proc_group *grp, size_t per_group)
{
	return per_group && per_group < grp->kept ? per_group : grp->kept;
}
