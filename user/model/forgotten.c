// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/forgotten.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "base/intern.h"
#include "model/cgroupmem.h"
#include "model/procgroups.h"

/*
 * The index of @key among the strings @ids holds, @key interned when new, unless @ids holds
 * @max - 1 already: then the index of @other (the entry past the bound). -1 when out of
 * memory. *@fresh says whether the index is new.
 */
static long index_of(struct intern *ids, const char *key, size_t max, const char *other,
		     bool *fresh)
{
	uint64_t id = intern__find(ids, key);

	*fresh = false;
	if (!id && ids->n >= max - 1 && strcmp(key, other))
		return index_of(ids, other, max, other, fresh);
	if (!id) {
		id = intern__id(ids, key);
		*fresh = id != 0;
	}
	return (long)id - 1;
}

/* The entry of @name (cut as kept), made when new: past the bound, FORGOTTEN_OTHER_NAME's. */
static struct forgotten_name *name_entry(struct forgotten *f, const char *name)
{
	/* room first: every name interned has its entry */
	struct forgotten_name *v = grow__reserve(f->names, &f->names_cap, f->nnames, sizeof(*v));
	char key[FL_COMM_LEN];
	bool fresh;
	long i;

	if (!v)
		return NULL;
	f->names = v;
	snprintf(key, sizeof(key), "%s", name);
	i = index_of(&f->name_ids, key, FORGOTTEN_MAX_NAMES, FORGOTTEN_OTHER_NAME, &fresh);
	if (i < 0)
		return NULL;
	if (fresh) {
		memset(&v[i], 0, sizeof(v[i]));
		memcpy(v[i].name, key, sizeof(key));
		f->nnames++;
	}
	return &v[i];
}

static struct forgotten_cgroup *cgroup_entry(struct forgotten *f, const char *path)
{
	struct forgotten_cgroup *v =
		grow__reserve(f->cgroups, &f->cgroups_cap, f->ncgroups, sizeof(*v));
	bool fresh;
	long i;

	if (!v)
		return NULL;
	f->cgroups = v;
	i = index_of(&f->cgroup_ids, path, FORGOTTEN_MAX_CGROUPS, FORGOTTEN_OTHER_CGROUP, &fresh);
	if (i < 0)
		return NULL;
	if (fresh) {
		memset(&v[i], 0, sizeof(v[i]));
		snprintf(v[i].path, sizeof(v[i].path), "%s", path);
		f->ncgroups++;
	}
	return &v[i];
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
	char key[FL_COMM_LEN];
	uint64_t id;

	snprintf(key, sizeof(key), "%s", name);
	id = intern__find(&f->name_ids, key);
	return id && id <= f->nnames ? &f->names[id - 1] : NULL;
}

size_t forgotten__past_cgroup_bound(const struct forgotten *f)
{
	uint64_t id = intern__find(&f->cgroup_ids, FORGOTTEN_OTHER_CGROUP);

	return id && id <= f->ncgroups ? f->cgroups[id - 1].nprocs : 0;
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
	intern__fini(&f->name_ids);
	intern__fini(&f->cgroup_ids);
	memset(f, 0, sizeof(*f));
}
