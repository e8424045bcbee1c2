/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Exited processes no longer kept one by one (--keep-exited): a host followed for days starts
 * millions, and each kept costs memory and a turn at every refresh. What they were charged
 * stays, summed: in all, by name for the groups by executable, by cgroup for a cgroup's count
 * of processes. Each list is bounded; a name or cgroup past the bound is summed under one
 * entry that says so. Pure.
 */
#ifndef FAULTLINE_FORGOTTEN_H
#define FAULTLINE_FORGOTTEN_H

#include <stddef.h>
#include <stdint.h>
#include "base/intern.h"
#include "model/report.h"

#define FORGOTTEN_MAX_NAMES 1024
#define FORGOTTEN_MAX_CGROUPS 1024
#define FORGOTTEN_OTHER_NAME "[other names]"
#define FORGOTTEN_OTHER_CGROUP "[other cgroups]"

struct forgotten_name {
	char name[FL_COMM_LEN];
	size_t nprocs;
	size_t unknown;		/* ... of them whose private cost is not known */
	uint64_t private_total; /* sum of the known private costs */
	uint64_t growth;	/* resident growth (anon + file + shmem) */
	uint64_t new_bytes;
};

struct forgotten_cgroup {
	char path[sizeof(((struct fl_proc_summary *)0)->cgroup)];
	size_t nprocs;
};

struct forgotten {
	size_t nprocs;
	struct fl_counts attributed; /* all of them, summed (held at the types' limits) */
	uint64_t hugetlb_faults;
	struct forgotten_name *names; /* by id - 1 in name_ids */
	size_t nnames, names_cap;
	struct intern name_ids;		  /* zeroed: empty */
	struct forgotten_cgroup *cgroups; /* of the processes whose cgroup was known */
	size_t ncgroups, cgroups_cap;
	struct intern cgroup_ids;
};

/* Adds exited process @s to @f. Returns 0 or -ENOMEM (@f unchanged). */
int forgotten__add(struct forgotten *f, const struct fl_proc_summary *s);

/* The entry of name @name, or NULL. */
const struct forgotten_name *forgotten__name(const struct forgotten *f, const char *name);

/* The processes forgotten whose cgroup came past the bound (FORGOTTEN_OTHER_CGROUP): in no
 * cgroup's count. */
size_t forgotten__past_cgroup_bound(const struct forgotten *f);

/* The processes forgotten whose cgroup is @rel or below it (cgroup_recon__contains()). */
size_t forgotten__in_cgroup(const struct forgotten *f, const char *rel);

void forgotten__fini(struct forgotten *f);

#endif /* FAULTLINE_FORGOTTEN_H */
