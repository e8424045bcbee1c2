/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Parser of /proc/PID/maps from a FILE *, and address lookup in the result. */
#ifndef FAULTLINE_PROCMAPS_H
#define FAULTLINE_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bits of procmap_entry.perms, from the "rwxp" column. */
enum {
	PROCMAP_READ = 1 << 0,
	PROCMAP_WRITE = 1 << 1,
	PROCMAP_EXEC = 1 << 2,
	PROCMAP_PRIVATE = 1 << 3, /* 'p'; 's' (shared) leaves it clear */
};

/* One line of /proc/PID/maps: [start, end) mapped from @offset of the file @dev_major:@dev_minor
 * @inode named @path. */
struct procmap_entry {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t perms;
	bool is_deleted; /* the kernel's " (deleted)" suffix was stripped from @path */
	bool is_special; /* [heap], [stack], [vdso], [vvar], [anon:name], ...: not a file */
	char *path;	 /* never NULL; "" for an anonymous mapping */
};

/* A snapshot of a process's mappings, sorted by start. */
struct procmaps {
	struct procmap_entry *entries;
	size_t nr;
	size_t cap;
};

/* Parses one maps line (trailing newline allowed) into @e; @e->path is malloc'ed and belongs to
 * the caller. Returns 0, -EINVAL on a malformed line, or -ENOMEM. */
int procmaps__parse_line(const char *line, struct procmap_entry *e);

/* Parses every line of @f into @out, which is initialised here (any previous content is not
 * freed) and sorted by start. Returns 0, or a negative errno with @out left empty. */
int procmaps__parse(FILE *f, struct procmaps *out);

/* Frees the entries of @m and leaves it empty; accepts NULL. */
void procmaps__free(struct procmaps *m);

/* The entry with start <= @addr < end, or NULL (binary search). */
const struct procmap_entry *procmaps__find(const struct procmaps *m, uint64_t addr);

/* True when an entry of @m (sorted, without overlaps, as a maps file is) overlaps
 * [@start, @end). */
bool procmaps__overlaps(const struct procmaps *m, uint64_t start, uint64_t end);

/* Writes @e as a line of /proc/PID/maps (procmaps__parse_line() reads it back). Returns 0 or
 * -EIO. */
int procmap_entry__write(FILE *f, const struct procmap_entry *e);

/* True when @e maps a file that can be opened by its path (or map_files): a path starting with
 * '/', a non-zero inode, and not a special mapping. */
bool procmap_entry__is_file(const struct procmap_entry *e);

/* The last component of @e's path, or the path itself for special or anonymous mappings
 * ("" stays ""). Points into @e->path. */
const char *procmap_entry__basename(const struct procmap_entry *e);

#endif /* FAULTLINE_PROCMAPS_H */
