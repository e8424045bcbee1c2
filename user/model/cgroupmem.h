/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A cgroup target's own memory counters (memory.stat: anon, file, shmem, kernel; the total
 * memory.current) at the start and now, beside what its traced processes' RSS did: the
 * kernel's change of their RSS, and faultline's net. What the cgroup's change holds beyond
 * its processes' RSS is memory no process maps: page cache read and written but not mapped,
 * kernel memory, pages of processes gone before the session. Pure: the final table and the
 * JSON report read the same figures.
 */
#ifndef FAULTLINE_CGROUPMEM_H
#define FAULTLINE_CGROUPMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/cgroupfs.h"
#include "model/report.h"

struct cgroup_recon {
	const char *rel;	   /* the cgroup, below the v2 root ("/a/b") */
	bool have_start, have_now; /* its counters were read (version != 0) at the start, now */
	struct cgroup_mem start, now;
	size_t nprocs; /* traced processes in it or below it (by /proc/PID/cgroup when first seen) */
	size_t alive;  /* ... of them alive: an exited one's pages left the cgroup with it */
	/* over the living: the kernel's change of their RSS, and faultline's growth net of
	 * release */
	int64_t procs_kern[FL_MEMBERS];
	int64_t procs_net[FL_MEMBERS];
};

/* Whether the cgroup @proc_cg (a process's, "/a/b/c") is @rel or below it. */
bool cgroup_recon__contains(const char *rel, const char *proc_cg);

/* Sums into @r the processes of @procs (@n) in its cgroup: their count (with those @forgotten,
 * NULL: none), and the kernel change and net of the living; zeroes those sums first. */
void cgroup_recon__sum(struct cgroup_recon *r, const struct fl_proc_summary *procs, size_t n,
		       const struct forgotten *forgotten);

/* The cgroup's figure of member @m (enum fl_member) as RSS counts it: its file pages less its
 * shmem, which the cgroup's page cache holds and RSS counts apart. */
uint64_t cgroup_mem__member(const struct cgroup_mem *c, int m);

/* The cgroup's change of member @m (FL_ANON, FL_FILE, FL_SHMEM) from the start to now. */
int64_t cgroup_recon__change(const struct cgroup_recon *r, int m);

#endif /* FAULTLINE_CGROUPMEM_H */
