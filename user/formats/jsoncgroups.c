// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "formats/jsoncgroups.h"
#include "model/cgroupmem.h"

static const struct {
	const char *key;
	int member;
} kinds[] = { { "anon", FL_ANON }, { "file", FL_FILE }, { "shmem", FL_SHMEM } };

/* The counters as the cgroup's files say them; null when they could not be read. */
static void counters(struct json *j, const char *key, const struct cgroup_mem *c, bool have)
{
	if (!have) {
		json__null(j, key);
		return;
	}
	json__object_begin(j, key);
	json__u64(j, "current", c->current);
	json__u64(j, "anon", c->anon);
	json__u64(j, "file", c->file);
	json__u64(j, "shmem", c->shmem);
	json__u64(j, "file_mapped", c->file_mapped);
	if (c->have_kernel)
		json__u64(j, "kernel", c->kernel);
	else
		json__null(j, "kernel");
	json__u64(j, "swap", c->swap);
	json__object_end(j);
}

static void by_kind(struct json *j, const char *key, const int64_t v[FL_MEMBERS])
{
	json__object_begin(j, key);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		json__i64(j, kinds[i].key, v[kinds[i].member]);
	json__object_end(j);
}

static void cgroup(struct json *j, const struct cgroup_recon *r)
{
	json__object_begin(j, NULL);
	json__str(j, "path", r->rel);
	if (r->have_now)
		json__str(j, "counters_from", r->now.source);
	else
		json__null(j, "counters_from");
	json__i64(j, "version", r->have_now ? r->now.version : 0);
	counters(j, "at_start", &r->start, r->have_start);
	counters(j, "now", &r->now, r->have_now);
	json__u64(j, "processes", r->nprocs);
	json__u64(j, "alive", r->alive);
	by_kind(j, "processes_kernel_change", r->procs_kern);
	by_kind(j, "attributed_net", r->procs_net);
	json__object_end(j);
}

void jsoncgroups__write(struct json *j, const struct fl_report *r)
{
	if (!r->cgroups) {
		json__null(j, "cgroups");
		return;
	}
	json__array_begin(j, "cgroups");
	for (size_t i = 0; i < r->ncgroups; i++)
		cgroup(j, &r->cgroups[i]);
	json__array_end(j);
}
