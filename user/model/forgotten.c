// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/forgotten.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "model/cgroupmem.h"
#include "model/procgroups.h"

/* The entry of @name, made when new: past the bound, the one of FORGOTTEN_OTHER_NAME. */
static struct forgotten_name *name_entry(struct forgotten *f, const char *name)
{
	struct forgotten_name *v;

	for (size_t i = 0; i < f->nnames; i++)
		if (!strncmp(f->names[i].name, name, FL_COMM_LEN))
			return &f->names[i];
	if (f->nnames >= FORGOTTEN_MAX_NAMES - 1 && strcmp(name, FORGOTTEN_OTHER_NAME))
		return name_entry(f, FORGOTTEN_OTHER_NAME);
	v = grow__reserve(f->names, &f->names_cap, f->nnames, sizeof(*v));
	if (!v)
		return NULL;
	f->names = v;
	v = &f->names[f->nnames++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	return v;
}

static struct forgotten_cgroup *cgroup_entry(struct forgotten *f, const char *path)
{
	struct forgotten_cgroup *v;

	for (size_t i = 0; i < f->ncgroups; i++)
		if (!strcmp(f->cgroups[i].path, path))
			return &f->cgroups[i];
	if (f->ncgroups >= FORGOTTEN_MAX_CGROUPS - 1 && strcmp(path, FORGOTTEN_OTHER_CGROUP))
		return cgroup_entry(f, FORGOTTEN_OTHER_CGROUP);
	v = grow__reserve(f->cgroups, &f->cgroups_cap, f->ncgroups, sizeof(*v));
	if (!v)
		return NULL;
	f->cgroups = v;
	v = &f->cgroups[f->ncgroups++];
	memset(v, 0, sizeof(*v));
	snprintf(v->path, sizeof(v->path), "%s", path);
	return v;
}

int forgotten__add(struct forgotten *f, const struct fl_proc_summary *s)
{
	struct forgotten_name *n = name_entry(f, s->comm);
	struct forgotten_cgroup *cg = s->cgroup[0] ? cgroup_entry(f, s->cgroup) : NULL;
	uint64_t cost;

	if (!n || (s->cgroup[0] && !cg))
		return -ENOMEM;
	f->nprocs++;
	counts__add(&f->attributed, &s->attributed);
	f->hugetlb_faults += s->hugetlb_faults;
	n->nprocs++;
	if (proc_groups__cost(s, &cost))
		n->private_total += cost;
	else
		n->unknown++;
	n->growth += metric__value(&s->attributed, FL_METRIC_RESIDENT);
	n->new_bytes += s->attributed.new_bytes;
	if (cg)
		cg->nprocs++;
	return 0;
}

const struct forgotten_name *forgotten__name(const struct forgotten *f, const char *name)
{
	for (size_t i = 0; i < f->nnames; i++)
		if (!strncmp(f->names[i].name, name, FL_COMM_LEN))
			return &f->names[i];
	return NULL;
}

size_t forgotten__in_cgroup(const struct forgotten *f, const char *rel)
{
	size_t n = 0;

	for (size_t i = 0; i < f->ncgroups; i++)
		if (cgroup_recon__contains(rel, f->cgroups[i].path))
			n += f->cgroups[i].nprocs;
	return n;
}

void forgotten__fini(struct forgotten *f)
{
	free(f->names);
	free(f->cgroups);
	memset(f, 0, sizeof(*f));
}
