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
 * The index of @key's entry in *@arr (*@n entries of @size bytes, room for *@cap), made when
 * new (zeroed, *@fresh set); past @max - 1 keys, the entry of @other. Room is made before a key
 * is interned, so every interned key has its entry. -1 when out of memory.
 */
static long entry_of(struct intern *ids, void **arr, size_t *n, size_t *cap, size_t size,
		     const char *key, size_t max, const char *other, bool *fresh)
{
	void *v = grow__reserve(*arr, cap, *n, size);
	uint64_t id;

	*fresh = false;
	if (!v)
		return -1;
	*arr = v;
	id = intern__find(ids, key);
	if (!id && ids->n >= max - 1 && strcmp(key, other))
		return entry_of(ids, arr, n, cap, size, other, max, other, fresh);
	if (!id) {
		id = intern__id(ids, key);
		if (!id)
			return -1;
		*fresh = true;
		memset((char *)v + (id - 1) * size, 0, size);
		(*n)++;
	}
	return (long)id - 1;
}

/* The entry of @name (cut as kept), made when new: past the bound, FORGOTTEN_OTHER_NAME's. */
static struct forgotten_name *name_entry(struct forgotten *f, const char *name)
{
	char key[FL_COMM_LEN];
	bool fresh;
	long i;

	snprintf(key, sizeof(key), "%s", name);
	i = entry_of(&f->name_ids, (void **)&f->names, &f->nnames, &f->names_cap, sizeof(*f->names),
		     key, FORGOTTEN_MAX_NAMES, FORGOTTEN_OTHER_NAME, &fresh);
	if (i < 0)
		return NULL;
	if (fresh)
		snprintf(f->names[i].name, sizeof(f->names[i].name), "%s",
			 (const char *)intern__get(&f->name_ids, (uint64_t)i + 1));
	return &f->names[i];
}

static struct forgotten_cgroup *cgroup_entry(struct forgotten *f, const char *path)
{
	bool fresh;
	long i = entry_of(&f->cgroup_ids, (void **)&f->cgroups, &f->ncgroups, &f->cgroups_cap,
			  sizeof(*f->cgroups), path, FORGOTTEN_MAX_CGROUPS, FORGOTTEN_OTHER_CGROUP,
			  &fresh);

	if (i < 0)
		return NULL;
	if (fresh)
		snprintf(f->cgroups[i].path, sizeof(f->cgroups[i].path), "%s",
			 (const char *)intern__get(&f->cgroup_ids, (uint64_t)i + 1));
	return &f->cgroups[i];
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
