/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <string.h>
#include "model/cgroupmem.h"

Test(cgroupmem, contains)
{
	cr_expect(cgroup_recon__contains("/a", "/a"));
	cr_expect(cgroup_recon__contains("/a", "/a/b/c"));
	cr_expect(!cgroup_recon__contains("/a", "/ab"), "a sibling that shares a prefix");
	cr_expect(!cgroup_recon__contains("/a/b", "/a"));
	cr_expect(cgroup_recon__contains("/", "/x"), "the root holds every cgroup");
	cr_expect(!cgroup_recon__contains("/a", ""), "a process whose cgroup is unknown");
}

/* A process of cgroup @cg with RSS anon @then -> @now and faultline's anon growth @grow. */
static struct fl_proc_summary proc(const char *cg, bool alive, uint64_t then, uint64_t now,
				   uint64_t grow)
{
	struct fl_proc_summary s = { .alive = alive };

	snprintf(s.cgroup, sizeof(s.cgroup), "%s", cg);
	s.at_attach.rss_anon = then;
	s.now.rss_anon = now;
	s.attributed.grow[FL_ANON] = grow;
	return s;
}

Test(cgroupmem, sums_the_living_of_the_cgroup)
{
	struct fl_proc_summary procs[] = {
		proc("/svc", true, 100, 1100, 1000),	 /* exact */
		proc("/svc/worker", true, 0, 500, 400),	 /* below it; 100 B unseen */
		proc("/svc", false, 50, 9000, 8950),	 /* exited: its pages left */
		proc("/other", true, 0, 7000, 7000),	 /* outside */
		proc("/svcx", true, 0, 3000, 3000),	 /* a sibling, not below */
	};
	struct cgroup_recon r = { .rel = "/svc" };

	r.procs_net[FL_ANON] = 12345; /* zeroed first */
	cgroup_recon__sum(&r, procs, sizeof(procs) / sizeof(procs[0]), NULL);
	cr_expect_eq(r.nprocs, 3);
	cr_expect_eq(r.alive, 2);
	cr_expect_eq(r.procs_kern[FL_ANON], 1500);
	cr_expect_eq(r.procs_net[FL_ANON], 1400);
	cr_expect_eq(r.procs_kern[FL_FILE], 0);
}

Test(cgroupmem, change_counts_file_without_shmem)
{
	struct cgroup_recon r = { .rel = "/svc", .have_start = true, .have_now = true };

	r.start = (struct cgroup_mem){ .version = 1, .anon = 10, .file = 100, .shmem = 40 };
	r.now = (struct cgroup_mem){ .version = 1, .anon = 5, .file = 300, .shmem = 90 };
	cr_expect_eq(cgroup_recon__change(&r, FL_ANON), -5);
	/* RSS counts shmem apart from file pages; the cgroup's file holds it */
	cr_expect_eq(cgroup_recon__change(&r, FL_FILE), 150);
	cr_expect_eq(cgroup_recon__change(&r, FL_SHMEM), 50);
	r.have_start = false;
	cr_expect_eq(cgroup_recon__change(&r, FL_ANON), 0, "no figures: no change");
}
