// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "views/grouptable.h"
#include <stdio.h>
#include <string.h>
#include "base/units.h"
#include "views/proctable.h"

#define NAME_COLS 15 /* a comm is at most 15 characters */

static void fit_name(char *dst, size_t len, const char *comm)
{
	snprintf(dst, len, "%.*s", FL_COMM_LEN, comm[0] ? comm : "?");
	units__sanitize(dst);
	units__fit(dst, NAME_COLS);
}

/* GROWTH, or NEW under --metric new: what the machine paid, not each process's RSS */
static void group_row(FILE *out, unsigned width, const struct proc_group *grp, enum fl_metric m)
{
	char name[FL_COMM_LEN + 4], growth[UNITS_BUF], total[UNITS_BUF], median[UNITS_BUF];
	bool any = grp->unknown < grp->nprocs;

	fit_name(name, sizeof(name), grp->name);
	units__bytes(growth, sizeof(growth), m == FL_METRIC_NEW ? grp->new_bytes : grp->growth);
	/* no process of it read: its cost is unknown, not 0 */
	strcpy(total, "-");
	strcpy(median, "-");
	if (any)
		units__bytes(total, sizeof(total), grp->private_total);
	/* of the processes kept: those forgotten have no figure of their own */
	if (grp->median_of)
		units__bytes(median, sizeof(median), grp->private_median);
	units__emit(out, width, "%-*s %6zu %6zu %6zu %10s %10s %10s", NAME_COLS, name, grp->nprocs,
		    grp->alive, grp->unknown, growth, total, median);
}

static void rest_row(FILE *out, unsigned width, const struct proc_groups_rest *rest,
		     enum fl_metric m)
{
	char growth[UNITS_BUF], total[UNITS_BUF];

	units__bytes(growth, sizeof(growth), m == FL_METRIC_NEW ? rest->new_bytes : rest->growth);
	units__bytes(total, sizeof(total), rest->private_total);
	units__emit(out, width,
		    "[%zu more executables: %zu processes, %zu alive, %s %s, private %s]",
		    rest->groups, rest->nprocs, rest->alive, m == FL_METRIC_NEW ? "new" : "growth",
		    growth, total);
}

void grouptable__render(FILE *out, unsigned width, const struct fl_proc_summary *procs, size_t n,
			const struct proc_groups *g, enum fl_metric m, size_t max_groups,
			size_t per_group)
{
	struct proc_groups_rest rest;
	size_t shown = proc_groups__bound(g, max_groups, &rest);
	char name[FL_COMM_LEN + 4];

	proctable__title(out, width, procs, n, m);
	units__emit(out, width,
		    "executables by private cost: %zu (PRIVATE, MEDIAN: of the processes read, "
		    "UNREAD the others)",
		    g->n);
	units__emit(out, width, "%-*s %6s %6s %6s %10s %10s %10s", NAME_COLS, "NAME", "PROCS",
		    "ALIVE", "UNREAD", m == FL_METRIC_NEW ? "NEW" : "GROWTH", "PRIVATE", "MEDIAN");
	for (size_t k = 0; k < shown; k++)
		group_row(out, width, &g->v[k], m);
	if (rest.groups)
		rest_row(out, width, &rest, m);
	proctable__heads(out, width, m);
	for (size_t k = 0; k < shown; k++) {
		const struct proc_group *grp = &g->v[k];
		size_t listed = proc_group__listed(grp, per_group);

		for (size_t i = 0; i < listed; i++)
			proctable__line(out, width, &procs[g->members[grp->first + i]], m);
		if (listed == grp->nprocs)
			continue;
		fit_name(name, sizeof(name), grp->name);
		if (grp->kept == grp->nprocs)
			units__emit(out, width, "%7s [%zu more %s processes]", "",
				    grp->nprocs - listed, name);
		else
			units__emit(out, width,
				    "%7s [%zu more %s processes, %zu of them exited and forgotten]",
				    "", grp->nprocs - listed, name, grp->nprocs - grp->kept);
	}
}
