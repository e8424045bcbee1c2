// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "formats/jsongroups.h"
#include "model/procgroups.h"
#include "model/sharedpages.h"

static void group(struct json *j, const struct fl_report *r, const struct proc_groups *g,
		  const struct proc_group *grp)
{
	json__object_begin(j, NULL);
	json__strn(j, "name", grp->name, sizeof(grp->name));
	json__u64(j, "processes", grp->nprocs);
	json__u64(j, "forgotten", grp->nprocs - grp->kept);
	json__u64(j, "alive", grp->alive);
	json__u64(j, "growth", grp->growth);
	json__object_begin(j, "private_cost");
	json__u64(j, "known", grp->nprocs - grp->unknown);
	json__u64(j, "total", grp->private_total);
	/* of no process: unknown, not 0 */
	if (grp->median_of)
		json__u64(j, "median", grp->private_median);
	else
		json__null(j, "median");
	json__object_end(j);
	json__array_begin(j, "pids");
	for (size_t i = 0; i < grp->kept; i++)
		json__i64(j, NULL, r->procs[g->members[grp->first + i]].pid);
	json__array_end(j);
	json__object_end(j);
}

static void shared(struct json *j, const struct fl_report *r)
{
	struct shared_pages s;

	shared_pages__sum(r->procs, r->nprocs, &s);
	json__object_begin(j, "shared_pages");
	json__u64(j, "growth", s.growth);
	json__u64(j, "processes", s.procs);
	json__i64(j, "rss_change", s.rss_change);
	json__i64(j, "pss_change", s.pss_change);
	json__bool(j, "overstated", shared_pages__overstated(&s));
	json__u64(j, "shareable_growth", s.shareable_growth);
	json__u64(j, "shareable_processes", s.shareable_procs);
	json__bool(j, "likely_overstated", shared_pages__likely(&s));
	json__object_end(j);
}

void jsongroups__write(struct json *j, const struct fl_report *r)
{
	struct proc_groups g;

	if (proc_groups__build(r->procs, r->nprocs, r->forgotten, &g)) {
		json__null(j, "process_groups");
	} else {
		json__array_begin(j, "process_groups");
		for (size_t k = 0; k < g.n; k++)
			group(j, r, &g, &g.v[k]);
		json__array_end(j);
		proc_groups__free(&g);
	}
	shared(j, r);
}
