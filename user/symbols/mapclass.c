// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "symbols/mapclass.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "faultline.h"

const char *map_class__name(uint32_t c)
{
	static const char *const names[FL_MAP__COUNT] = {
		[FL_MAP_UNKNOWN] = "[unclassified]",
		[FL_MAP_HEAP] = "[heap]",
		[FL_MAP_STACK] = "[stack]",
		[FL_MAP_THREAD_STACK] = "[thread stack]",
		[FL_MAP_ANON] = "[anon]",
		[FL_MAP_THP] = "[anon THP]",
		[FL_MAP_FILE] = "[file]",
		[FL_MAP_SHMEM] = "[shmem]",
		[FL_MAP_HUGETLB] = "[hugetlb]",
	};

	return c < FL_MAP__COUNT ? names[c] : "[unclassified]";
}

/* The index of the first entry whose id is not below @id. */
static size_t lower_bound(const struct file_names *fn, uint64_t id)
{
	size_t lo = 0, hi = fn->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fn->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *file_names__find(const struct file_names *fn, uint64_t id)
{
	size_t i = lower_bound(fn, id);

	return i < fn->n && fn->v[i].id == id ? fn->v[i].path : NULL;
}

static int learn_one(struct file_names *fn, uint64_t id, const char *path, bool deleted)
{
	size_t i = lower_bound(fn, id);
	struct file_name *v;
	char *copy = NULL;

	if (i < fn->n && fn->v[i].id == id)
		return 0; /* a file keeps its first name: a rename does not change its pages */
	v = grow__reserve(fn->v, &fn->cap, fn->n, sizeof(*v));
	if (asprintf(&copy, "%s%s", path, deleted ? " (deleted)" : "") < 0)
		copy = NULL;
	if (!v || !copy) {
		free(copy);
		if (v)
			fn->v = v;
		return -ENOMEM;
	}
	fn->v = v;
	memmove(&v[i + 1], &v[i], (fn->n - i) * sizeof(*v));
	v[i] = (struct file_name){ .id = id, .path = copy };
	fn->n++;
	return 0;
}

int file_names__learn(struct file_names *fn, const struct procmaps *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		const struct procmap_entry *e = &m->entries[i];
		/* the kernel's dev_t, as the BPF side reads it from the super block */
		uint32_t dev = e->dev_major << 20 | e->dev_minor;
		int err;

		if (!procmap_entry__is_file(e))
			continue;
		err = learn_one(fn, fl_file_id(dev, e->inode), e->path, e->is_deleted);
		if (err)
			return err;
	}
	return 0;
}

void file_names__free(struct file_names *fn)
{
	for (size_t i = 0; i < fn->n; i++)
		free(fn->v[i].path);
	free(fn->v);
	memset(fn, 0, sizeof(*fn));
}
