// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "symbols/elfcache.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "base/grow.h"
#include "symbols/demangle.h"
#include "symbols/elfsyms.h"

struct elf_cache_entry {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime; /* a file rewritten in place keeps its inode */
	struct elfsyms *elf;   /* NULL: not ELF, or unreadable */
};

struct elf_cache {
	struct elf_cache_entry *entries;
	size_t nr;
	size_t cap;
	char *debug_dir;
	struct demangler *demangler;
};

struct elf_cache *elf_cache__new(void)
{
	struct elf_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->demangler = demangler__new();
	if (!c->demangler) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void elf_cache__free(struct elf_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++)
		elfsyms__free(c->entries[i].elf);
	free(c->entries);
	free(c->debug_dir);
	demangler__free(c->demangler);
	free(c);
}

int elf_cache__set_debug_dir(struct elf_cache *c, const char *dir)
{
	char *d = dir ? strdup(dir) : NULL;

	if (dir && !d)
		return -ENOMEM;
	free(c->debug_dir);
	c->debug_dir = d;
	return 0;
}

size_t elf_cache__nr_files(const struct elf_cache *c)
{
	return c->nr;
}

static bool same_file(const struct elf_cache_entry *ce, const struct stat *st)
{
	return ce->dev == st->st_dev && ce->ino == st->st_ino && ce->size == st->st_size &&
	       ce->mtime.tv_sec == st->st_mtim.tv_sec && ce->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

int elf_cache__get(struct elf_cache *c, int fd, int rootfd, const char *path, struct elfsyms **out)
{
	struct elf_cache_entry *ce;
	struct elfsyms *elf = NULL;
	struct stat st;
	size_t i;
	int err;

	/* a linear scan: a process maps a few hundred files and this runs once per new mapping */
	if (fstat(fd, &st))
		return -errno;
	for (i = 0; i < c->nr; i++) {
		if (same_file(&c->entries[i], &st)) {
			*out = c->entries[i].elf;
			return 0;
		}
	}
	ce = grow__reserve(c->entries, &c->cap, c->nr, sizeof(*ce));
	if (!ce)
		return -ENOMEM;
	c->entries = ce;
	err = elfsyms__load_fd(fd, rootfd, path, c->debug_dir, &elf);
	if (err == -ENOMEM)
		return err;
	/* other failures are remembered as "no symbols" so they are not retried */
	ce = &c->entries[c->nr++];
	*ce = (struct elf_cache_entry){
		.dev = st.st_dev,
		.ino = st.st_ino,
		.size = st.st_size,
		.mtime = st.st_mtim,
		.elf = elf,
	};
	*out = elf;
	return 0;
}

struct demangler *elf_cache__demangler(struct elf_cache *c)
{
	return c->demangler;
}
