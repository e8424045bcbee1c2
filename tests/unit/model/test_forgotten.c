/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Exited processes forgotten: summed in all, by name and by cgroup; groups count them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include "model/cgroupmem.h"
#include "model/forgotten.h"
#include "model/procgroups.h"

#define MIB (1024ULL * 1024)

static struct fl_proc_summary gone(pid_t pid, const char *comm, const char *cg, uint64_t growth,
				   int64_t cost)
{
	struct fl_proc_summary s = { .pid = pid };

	snprintf(s.comm, sizeof(s.comm), "%s", comm);
	snprintf(s.cgroup, sizeof(s.cgroup), "%s", cg);
	s.attributed.grow[FL_ANON] = growth;
	s.attributed.faults = 1;
	if (cost >= 0) {
		s.now.have_pss = true;
		s.now.pss_anon = (uint64_t)cost;
	} else {
		s.no_status = true;
	}
	return s;
}

Test(forgotten, summed_in_all_by_name_and_by_cgroup)
{
	struct forgotten f = { 0 };
	struct fl_proc_summary a = gone(1, "sh", "/system.slice/cron.service", 2 * MIB, 1 * MIB);
	struct fl_proc_summary b = gone(2, "sh", "/system.slice/cron.service", 3 * MIB, -1);
	struct fl_proc_summary c = gone(3, "cc1", "/user.slice", 5 * MIB, 4 * MIB);
	struct fl_proc_summary d = gone(4, "cc1", "", 1 * MIB, -1);
	const struct forgotten_name *sh;

	cr_assert_eq(forgotten__add(&f, &a), 0);
	cr_assert_eq(forgotten__add(&f, &b), 0);
	cr_assert_eq(forgotten__add(&f, &c), 0);
	cr_assert_eq(forgotten__add(&f, &d), 0);
	cr_expect_eq(f.nprocs, 4);
	cr_expect_eq(f.attributed.grow[FL_ANON], 11 * MIB);
	cr_expect_eq(f.attributed.faults, 4);
	sh = forgotten__name(&f, "sh");
	cr_assert_not_null(sh);
	cr_expect_eq(sh->nprocs, 2);
	cr_expect_eq(sh->unknown, 1, "one gone before its cost was read");
	cr_expect_eq(sh->private_total, 1 * MIB);
	cr_expect_eq(sh->growth, 5 * MIB);
	cr_expect_eq(forgotten__in_cgroup(&f, "/system.slice"), 2, "below it");
	cr_expect_eq(forgotten__in_cgroup(&f, "/user.slice"), 1);
	cr_expect_eq(forgotten__in_cgroup(&f, "/"), 3, "the root: all whose cgroup was known");
	cr_expect_eq(forgotten__in_cgroup(&f, "/system"), 0, "a prefix is not a parent");
	forgotten__fini(&f);
}

/* Past the bound, new names are summed under one entry that says so: a host's week of
 * programs holds no more than the bound. */
Test(forgotten, names_past_the_bound_are_summed_together)
{
	struct forgotten f = { 0 };
	const struct forgotten_name *other;
	char name[16];

	for (int i = 0; i < FORGOTTEN_MAX_NAMES + 500; i++) {
		struct fl_proc_summary s;

		snprintf(name, sizeof(name), "job-%d", i);
		s = gone(i + 1, name, "", 4096, -1);
		cr_assert_eq(forgotten__add(&f, &s), 0);
	}
	cr_expect_eq(f.nnames, FORGOTTEN_MAX_NAMES);
	other = forgotten__name(&f, FORGOTTEN_OTHER_NAME);
	cr_assert_not_null(other);
	cr_expect_eq(other->nprocs, 501);
	cr_expect_eq(f.nprocs, FORGOTTEN_MAX_NAMES + 500, "every one counted");
	forgotten__fini(&f);
}

/* The groups by executable count the forgotten beside those kept, and list only those kept. */
Test(forgotten, groups_count_them_and_list_those_kept)
{
	struct forgotten f = { 0 };
	struct fl_proc_summary kept[] = { gone(10, "sh", "", 1 * MIB, 2 * MIB),
					  gone(11, "make", "", 1 * MIB, 1 * MIB) };
	struct fl_proc_summary old[] = { gone(1, "sh", "", 2 * MIB, 3 * MIB),
					 gone(2, "sh", "", 2 * MIB, -1),
					 gone(3, "awk", "", 7 * MIB, -1) };
	struct proc_groups g;
	const struct proc_group *sh = NULL, *awk = NULL;

	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(forgotten__add(&f, &old[i]), 0);
	cr_assert_eq(proc_groups__build(kept, 2, &f, &g), 0);
	cr_assert_eq(g.n, 3, "sh, make, and awk of the forgotten alone");
	for (size_t k = 0; k < g.n; k++) {
		if (!strcmp(g.v[k].name, "sh"))
			sh = &g.v[k];
		if (!strcmp(g.v[k].name, "awk"))
			awk = &g.v[k];
	}
	cr_assert(sh && awk);
	cr_expect_eq(sh->nprocs, 3);
	cr_expect_eq(sh->kept, 1);
	cr_expect_eq(sh->unknown, 1);
	cr_expect_eq(sh->private_total, 5 * MIB);
	cr_expect_eq(sh->private_median, 2 * MIB, "of those kept");
	cr_expect_eq(sh->growth, 5 * MIB);
	cr_expect_eq(awk->nprocs, 1);
	cr_expect_eq(awk->kept, 0);
	cr_expect_eq(awk->median_of, 0, "no median of none kept");
	cr_expect_eq(sh->median_of, 1);
	cr_expect_eq(g.nmembers, 2, "only those kept are listed");
	cr_expect_eq(proc_group__listed(sh, 10), 1);
	proc_groups__free(&g);
	forgotten__fini(&f);
}

/* A cgroup counts its forgotten processes (none of them alive: nothing else to sum). */
Test(forgotten, cgroups_count_them)
{
	struct forgotten f = { 0 };
	struct fl_proc_summary old = gone(1, "sh", "/a/b", 1 * MIB, -1);
	struct cgroup_recon r = { .rel = "/a" };

	cr_assert_eq(forgotten__add(&f, &old), 0);
	cgroup_recon__sum(&r, NULL, 0, &f);
	cr_expect_eq(r.nprocs, 1);
	cr_expect_eq(r.alive, 0);
	forgotten__fini(&f);
}

/* Cgroups past the bound: counted together, and said (in no cgroup's count). */
Test(forgotten, cgroups_past_the_bound_are_counted_apart)
{
	struct forgotten f = { 0 };
	struct cgroup_recon r = { .rel = "/svc/unit-0" };
	char cg[64];

	for (int i = 0; i < FORGOTTEN_MAX_CGROUPS + 200; i++) {
		struct fl_proc_summary s;

		snprintf(cg, sizeof(cg), "/svc/unit-%d", i);
		s = gone(i + 1, "job", cg, 4096, -1);
		cr_assert_eq(forgotten__add(&f, &s), 0);
		/* the first cgroup again, after the bound: still its own */
		if (i == FORGOTTEN_MAX_CGROUPS + 100) {
			s = gone(i + 100000, "job", "/svc/unit-0", 4096, -1);
			cr_assert_eq(forgotten__add(&f, &s), 0);
		}
	}
	cr_expect_eq(f.ncgroups, FORGOTTEN_MAX_CGROUPS);
	cr_expect_eq(forgotten__past_cgroup_bound(&f), 201);
	cgroup_recon__sum(&r, NULL, 0, &f);
	cr_expect_eq(r.nprocs, 2);
	cr_expect_eq(f.nprocs, FORGOTTEN_MAX_CGROUPS + 201, "every one counted");
	forgotten__fini(&f);
}
