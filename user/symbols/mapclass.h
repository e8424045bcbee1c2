/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Mapping classes (--by mapping): their frame names, and the paths of the files a process has
 * mapped, remembered by fl_file_id() across maps snapshots (a file unmapped since its faults
 * still has a name).
 */
#ifndef FAULTLINE_MAPCLASS_H
#define FAULTLINE_MAPCLASS_H

#include <stddef.h>
#include <stdint.h>
#include "symbols/procmaps.h"

/* The frame of class @c: "[heap]", "[stack]", "[anon]", "[shmem]", ... ("[file]" for a file
 * whose path is not known). */
const char *map_class__name(uint32_t c);

struct file_names {
	struct file_name *v; /* sorted by id */
	size_t n;
	size_t cap;
};

struct file_name {
	uint64_t id; /* fl_file_id() */
	char *path;
};

/* Remembers the path of every file mapping of @m. Returns 0 or -ENOMEM. */
int file_names__learn(struct file_names *fn, const struct procmaps *m);
/* The path of file @id, or NULL when no snapshot learned showed it. */
const char *file_names__find(const struct file_names *fn, uint64_t id);
void file_names__free(struct file_names *fn);

#endif /* FAULTLINE_MAPCLASS_H */
