// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/cgroupmem.h"
#include <string.h>
#include "model/forgotten.h"

bool cgroup_recon__contains(const char *rel, const char *proc_cg)
{
	size_t len = strlen(rel);

	if (!proc_cg[0])
		return false;
	if (!strcmp(rel, "/"))
		return true;
	return !strncmp(proc_cg, rel, len) && (proc_cg[len] == '\0' || proc_cg[len] == '/');
}

void cgroup_recon__sum(struct cgroup_recon *r, const struct fl_proc_summary *procs, size_t n,
		       const struct forgotten *forgotten)
{
	int64_t kern[FL_MEMBERS], gap[FL_MEMBERS];

	r->nprocs = forgotten ? forgotten__in_cgroup(forgotten, r->rel) : 0;
	r->alive = 0;
	memset(r->procs_kern, 0, sizeof(r->procs_kern));
	memset(r->procs_net, 0, sizeof(r->procs_net));
	for (size_t i = 0; i < n; i++) {
		const struct fl_proc_summary *s = &procs[i];

		if (!cgroup_recon__contains(r->rel, s->cgroup))
			continue;
		r->nprocs++;
		if (!s->alive)
			continue;
		r->alive++;
		proc_summary__reconcile(s, kern, gap);
		for (int m = 0; m < FL_MEMBERS; m++) {
			r->procs_net[m] += kern[m] - gap[m];
			r->procs_kern[m] += kern[m];
		}
	}
}

uint64_t cgroup_mem__member(const struct cgroup_mem *c, int m)
{
	switch (m) {
	case FL_ANON:
		return c->anon;
	/* the cgroup's file pages hold its shmem (the page cache's), RSS's do not */
	case FL_FILE:
		return c->file >= c->shmem ? c->file - c->shmem : 0;
	case FL_SHMEM:
		return c->shmem;
	default:
		return c->swap;
	}
}

int64_t cgroup_recon__change(const struct cgroup_recon *r, int m)
{
	if (!r->have_start || !r->have_now)
		return 0;
	return report__sdiff(cgroup_mem__member(&r->now, m), cgroup_mem__member(&r->start, m));
}
