/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Shared pages against the resident growth: RSS and PSS changes of the processes alive. */
#include <criterion/criterion.h>
#include "model/sharedpages.h"

#define MIB (1024ULL * 1024)

/* A process alive whose RSS rose @shared (shmem, mapped by all of @mappers) and @own (anon):
 * its PSS rose @own and its share of @shared. */
static struct fl_proc_summary proc(uint64_t own, uint64_t shared, unsigned mappers)
{
	struct fl_proc_summary s = { .alive = true };

	s.at_attach.have_pss = s.now.have_pss = true;
	s.at_attach.rss_anon = s.at_attach.pss = MIB;
	s.now.rss_anon = MIB + own;
	s.now.rss_shmem = shared;
	s.now.pss = MIB + own + shared / mappers;
	s.attributed.grow[FL_ANON] = own;
	s.attributed.grow[FL_SHMEM] = shared;
	return s;
}

/* The case: 8 children each map 64 MiB of shared memory and write 2 MiB their own. */
Test(sharedpages, children_mapping_shared_memory)
{
	struct fl_proc_summary p[8];
	struct shared_pages s;

	for (int i = 0; i < 8; i++)
		p[i] = proc(2 * MIB, 64 * MIB, 8);
	shared_pages__sum(p, 8, &s);
	cr_expect_eq(s.procs, 8);
	cr_expect_eq(s.growth, 8 * 66 * MIB);
	cr_expect_eq(s.rss_change, (int64_t)(8 * 66 * MIB));
	cr_expect_eq(s.pss_change, (int64_t)(8 * 10 * MIB));
	cr_expect(shared_pages__overstated(&s));
}

Test(sharedpages, private_growth_is_not_overstated)
{
	struct fl_proc_summary p[3] = { proc(32 * MIB, 0, 1), proc(8 * MIB, 0, 1),
					proc(1 * MIB, 4 * MIB, 2) };
	struct shared_pages s;

	shared_pages__sum(p, 3, &s);
	cr_expect_eq(s.rss_change - s.pss_change, (int64_t)(2 * MIB));
	cr_expect_not(shared_pages__overstated(&s), "2 MiB of 45: not worth a line");
}

Test(sharedpages, exited_and_unread_left_out)
{
	struct fl_proc_summary p[4] = { proc(0, 64 * MIB, 8), proc(0, 64 * MIB, 8),
					proc(0, 64 * MIB, 8), proc(0, 64 * MIB, 8) };
	struct shared_pages s;

	p[1].alive = false;
	p[2].no_status = true;
	p[3].at_attach.have_pss = false;
	shared_pages__sum(p, 4, &s);
	cr_expect_eq(s.growth, 4 * 64 * MIB, "the growth of all of them");
	cr_expect_eq(s.procs, 1);
	cr_expect_not(shared_pages__overstated(&s), "one process shares with no one compared");
	p[1].alive = true;
	shared_pages__sum(p, 4, &s);
	cr_expect_eq(s.procs, 2);
	cr_expect(shared_pages__overstated(&s));
}

Test(sharedpages, below_the_floor)
{
	struct fl_proc_summary p[2] = { proc(0, 2 * MIB, 2), proc(0, 2 * MIB, 2) };
	struct shared_pages s;

	shared_pages__sum(p, 2, &s);
	cr_expect_eq(s.rss_change - s.pss_change, (int64_t)(2 * MIB));
	cr_expect_not(shared_pages__overstated(&s), "under SHARED_PAGES_MIN_EXCESS");
}

/* pgbench's backends: each mapped 128 MiB of shared buffers and is gone by the end, so PSS
 * compares nothing; their shmem growth, summed over many, says shared pages likely count more
 * than once. One process's own file growth does not. */
Test(sharedpages, backends_gone_by_the_end)
{
	struct fl_proc_summary p[5];
	struct shared_pages s;

	for (int i = 0; i < 5; i++) {
		p[i] = proc(2 * MIB, 128 * MIB, 5);
		p[i].alive = false;
	}
	shared_pages__sum(p, 5, &s);
	cr_expect_not(shared_pages__overstated(&s), "no process left to compare");
	cr_expect_eq(s.shareable_procs, 5);
	cr_expect_eq(s.shareable_growth, 5 * 128 * MIB);
	cr_expect(shared_pages__likely(&s));
	shared_pages__sum(p, 1, &s);
	cr_expect_not(shared_pages__likely(&s), "one process shares with no one");
	p[1] = proc(64 * MIB, 0, 1);
	p[1].attributed.grow[FL_FILE] = 1 * MIB;
	shared_pages__sum(p, 2, &s);
	cr_expect(shared_pages__likely(&s), "128 + 1 MiB of 195");
	p[1].attributed.grow[FL_ANON] = 512 * MIB;
	shared_pages__sum(p, 2, &s);
	cr_expect_not(shared_pages__likely(&s), "mostly private growth");
}
