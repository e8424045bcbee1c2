/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Processes summarized by executable: grouping by name, the median, the orders, the bound. */
#include <criterion/criterion.h>
#include <stdio.h>
#include "model/procgroups.h"

#define MIB (1024ULL * 1024)

/* A process of @comm whose private cost is @cost (unknown when @cost is -1), with @growth bytes
 * of anon growth. */
static struct fl_proc_summary proc(pid_t pid, const char *comm, bool alive, int64_t cost,
				   uint64_t growth)
{
	struct fl_proc_summary s = { .pid = pid, .alive = alive };

	snprintf(s.comm, sizeof(s.comm), "%s", comm);
	s.attributed.grow[FL_ANON] = growth;
	if (cost < 0) {
		s.no_status = true;
		return s;
	}
	s.now.have_pss = true;
	s.now.pss_anon = (uint64_t)cost - 4096;
	s.now.vm_pte = 4096;
	return s;
}

Test(procgroups, cost_is_private_when_read)
{
	struct fl_proc_summary read = proc(1, "a", true, 3 * MIB, 0);
	struct fl_proc_summary gone = proc(2, "a", false, -1, 5 * MIB);
	struct fl_proc_summary no_rollup = proc(3, "a", true, 3 * MIB, 0);
	uint64_t c;

	cr_expect(proc_groups__cost(&read, &c));
	cr_expect_eq(c, 3 * MIB, "Pss_Anon + VmPTE");
	cr_expect_not(proc_groups__cost(&gone, &c), "gone before it was read");
	no_rollup.now.have_pss = false;
	cr_expect_not(proc_groups__cost(&no_rollup, &c), "no smaps_rollup");
}

Test(procgroups, median)
{
	cr_expect_eq(proc_groups__median(NULL, 0), 0);
	cr_expect_eq(proc_groups__median((const uint64_t[]){ 7 }, 1), 7);
	cr_expect_eq(proc_groups__median((const uint64_t[]){ 9, 5, 1 }, 3), 5);
	cr_expect_eq(proc_groups__median((const uint64_t[]){ 9, 6, 3, 1 }, 4), 4, "(6 + 3) / 2");
	cr_expect_eq(proc_groups__median((const uint64_t[]){ UINT64_MAX, UINT64_MAX - 2 }, 2),
		     UINT64_MAX - 1, "no overflow");
}

/* A postmaster and five backends (one gone before it was read), two of a build's cc1. */
Test(procgroups, grouped_by_name_ordered_by_total_cost)
{
	struct fl_proc_summary p[] = {
		proc(100, "postgres", true, 20 * MIB, 1 * MIB), /* the postmaster */
		proc(101, "postgres", true, 2 * MIB, 130 * MIB),
		proc(102, "postgres", true, 1 * MIB, 130 * MIB),
		proc(103, "postgres", false, 3 * MIB, 130 * MIB),
		proc(104, "postgres", false, -1, 200 * MIB),
		proc(105, "postgres", true, 2 * MIB, 131 * MIB),
		proc(200, "cc1", false, 30 * MIB, 40 * MIB),
		proc(201, "cc1", false, 25 * MIB, 40 * MIB),
	};
	struct proc_groups g;
	const struct proc_group *pg, *cc;

	cr_assert_eq(proc_groups__build(p, 8, NULL, &g), 0);
	cr_assert_eq(g.n, 2);
	cr_expect_eq(g.nmembers, 8);
	cc = &g.v[0];
	pg = &g.v[1];
	cr_expect_str_eq(cc->name, "cc1", "55 MiB of private cost before 28 MiB");
	cr_expect_eq(cc->nprocs, 2);
	cr_expect_eq(cc->alive, 0);
	cr_expect_eq(cc->private_total, 55 * MIB);
	cr_expect_eq(cc->private_median, 55 * MIB / 2);
	cr_expect_eq(cc->growth, 80 * MIB);
	cr_expect_str_eq(pg->name, "postgres");
	cr_expect_eq(pg->nprocs, 6);
	cr_expect_eq(pg->alive, 4);
	cr_expect_eq(pg->unknown, 1);
	cr_expect_eq(pg->private_total, 28 * MIB, "the unknown one adds nothing");
	cr_expect_eq(pg->private_median, 2 * MIB, "of 20, 3, 2, 2, 1");
	cr_expect_eq(pg->growth, 722 * MIB);
	/* costliest first: 20, 3, then the two of 2 MiB by growth, 1, the unknown last */
	cr_expect_eq(g.members[cc->first], 6);
	cr_expect_eq(g.members[cc->first + 1], 7);
	cr_expect_eq(p[g.members[pg->first]].pid, 100);
	cr_expect_eq(p[g.members[pg->first + 1]].pid, 103);
	cr_expect_eq(p[g.members[pg->first + 2]].pid, 105, "2 MiB and more growth");
	cr_expect_eq(p[g.members[pg->first + 3]].pid, 101);
	cr_expect_eq(p[g.members[pg->first + 4]].pid, 102);
	cr_expect_eq(p[g.members[pg->first + 5]].pid, 104, "unknown cost last");
	proc_groups__free(&g);
}

Test(procgroups, unknown_costs_order_by_growth)
{
	struct fl_proc_summary p[] = {
		proc(1, "sh", false, -1, 1 * MIB),
		proc(2, "as", false, -1, 9 * MIB),
		proc(3, "as", false, -1, 12 * MIB),
		proc(4, "sh", true, -1, 1 * MIB),
	};
	struct proc_groups g;

	cr_assert_eq(proc_groups__build(p, 4, NULL, &g), 0);
	cr_assert_eq(g.n, 2);
	cr_expect_str_eq(g.v[0].name, "as", "no cost known anywhere: by growth");
	cr_expect_eq(g.v[0].unknown, 2);
	cr_expect_eq(g.v[0].private_median, 0);
	cr_expect_eq(p[g.members[0]].pid, 3);
	cr_expect_eq(p[g.members[g.v[1].first]].pid, 4, "same growth: the live one first");
	proc_groups__free(&g);
}

Test(procgroups, none_and_one)
{
	struct fl_proc_summary p = proc(7, "", true, MIB, 0);
	struct proc_groups g;

	cr_assert_eq(proc_groups__build(NULL, 0, NULL, &g), 0);
	cr_expect_eq(g.n, 0);
	proc_groups__free(&g);
	cr_assert_eq(proc_groups__build(&p, 1, NULL, &g), 0);
	cr_expect_eq(g.n, 1);
	cr_expect_str_eq(g.v[0].name, "");
	cr_expect_eq(g.v[0].private_median, MIB);
	proc_groups__free(&g);
}

Test(procgroups, bound_sums_the_rest)
{
	struct fl_proc_summary p[12];
	struct proc_groups_rest rest;
	struct proc_groups g;
	char name[8];

	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "p%02d", i / 2);
		p[i] = proc(i + 1, name, i % 2, (int64_t)(i / 2 + 1) * MIB, MIB);
	}
	cr_assert_eq(proc_groups__build(p, 12, NULL, &g), 0);
	cr_assert_eq(g.n, 6);
	cr_expect_str_eq(g.v[0].name, "p05");
	cr_expect_eq(proc_groups__bound(&g, 4, &rest), 4);
	cr_expect_eq(rest.groups, 2);
	cr_expect_eq(rest.nprocs, 4);
	cr_expect_eq(rest.alive, 2);
	cr_expect_eq(rest.private_total, (2 + 2 + 1 + 1) * MIB, "p01 and p00");
	cr_expect_eq(rest.growth, 4 * MIB);
	cr_expect_eq(proc_groups__bound(&g, 0, &rest), 6, "0: all");
	cr_expect_eq(rest.groups, 0);
	cr_expect_eq(proc_groups__bound(&g, 10, &rest), 6);
	cr_expect_eq(proc_group__listed(&g.v[0], 3), 2);
	cr_expect_eq(proc_group__listed(&g.v[0], 1), 1);
	cr_expect_eq(proc_group__listed(&g.v[0], 0), 2, "0: all");
	proc_groups__free(&g);
}
