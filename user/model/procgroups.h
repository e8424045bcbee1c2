/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Processes of the same executable summarized (-f on a server's backends, a build's
 * compilers): grouped by name (comm), each group with its count, how many are alive, the
 * total and median of their private cost, its costliest processes first; groups by total
 * cost. Pure: the final table and the JSON report read the same groups.
 */
#ifndef FAULTLINE_PROCGROUPS_H
#define FAULTLINE_PROCGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/report.h"

struct forgotten;

/*
 * A process's cost is its private cost, Pss_Anon + VmPTE (the PRIVATE column): what would go
 * away with it, a page it shares with others split among them. It is known of a process whose
 * smaps_rollup faultline read (now, or last before it exited); not of one gone before.
 */
bool proc_groups__cost(const struct fl_proc_summary *s, uint64_t *cost);

/* The median of the @n costs in @desc (sorted, highest first): the middle one, or the mean of
 * the two middle ones, rounded down; 0 when @n is 0. */
uint64_t proc_groups__median(const uint64_t *desc, size_t n);

struct proc_group {
	char name[FL_COMM_LEN]; /* the processes' comm ("" kept as is) */
	size_t nprocs;		/* all of them: those kept and those forgotten */
	size_t kept;		/* ... of them kept one by one (forgotten.h) */
	size_t alive;
	size_t unknown; /* processes whose private cost is not known (not in the two below) */
	uint64_t private_total;	 /* sum of the known private costs */
	uint64_t private_median; /* ... of the processes kept */
	size_t median_of;	 /* ... of so many (0: no median) */
	uint64_t growth;	 /* resident growth (anon + file + shmem) of all of them */
	uint64_t new_bytes;	 /* --metric new: the new memory of all of them */
	size_t first;		 /* its processes kept are members[first .. first + kept) */
};

struct proc_groups {
	struct proc_group *v; /* costliest group first: total private cost, then growth, name */
	size_t n;
	/* indices into the processes, group after group in v's order, each group's costliest
	 * first: known cost (highest first), then unknown; ties by growth, alive, pid */
	size_t *members;
	size_t nmembers;
};

/* Groups the @n processes @procs, and those @forgotten sums (NULL: none), into @g (freed with
 * proc_groups__free()). 0 or -ENOMEM. */
int proc_groups__build(const struct fl_proc_summary *procs, size_t n,
		       const struct forgotten *forgotten, struct proc_groups *g);
void proc_groups__free(struct proc_groups *g);

/* What a bound on the groups shown leaves out, for a "[N more ...]" line. */
struct proc_groups_rest {
	size_t groups; /* groups left out */
	size_t nprocs;
	size_t alive;
	uint64_t private_total;
	uint64_t growth;
	uint64_t new_bytes;
};

/*
 * At most @max_groups groups of @g shown (0: all): returns how many, and sums what the rest
 * hold into @rest.
 */
size_t proc_groups__bound(const struct proc_groups *g, size_t max_groups,
			  struct proc_groups_rest *rest);

/* At most @per_group of group @grp's processes kept listed by themselves (0: all): how many. */
size_t proc_group__listed(const struct proc_group *grp, size_t per_group);

#endif /* FAULTLINE_PROCGROUPS_H */
