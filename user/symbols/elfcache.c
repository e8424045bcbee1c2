// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "symbols/elfcache.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "base/grow.h"
#include "symbols/debuginfod.h"
#include "symbols/demangle.h"
#include "symbols/dwarf.h"
#include "symbols/elfsyms.h"

struct elf_cache_entry {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime; /* a file rewritten in place keeps its inode */
	struct elfsyms *elf;   /* NULL: not ELF, or unreadable */
	char *path;	       /* as first seen (under its target's root) */
	bool asked;	       /* its build-id went to debuginfod */
	int debuginfod_err; /* what debuginfod answered (0 when it gave a file or was not asked) */
};

struct elf_cache {
	struct elf_cache_entry *entries;
	size_t nr;
	size_t cap;
	char *debug_dir;
	struct demangler *demangler;
	struct debuginfod *debuginfod; /* borrowed; NULL: off */
	bool no_dwarf;		       /* load no DWARF */
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
	for (i = 0; i < c->nr; i++) {
		elfsyms__free(c->entries[i].elf);
		free(c->entries[i].path);
	}
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

/* Queues the build-id of a file that has neither DWARF nor a debug file. 0 or -ENOMEM. */
static int ask_debuginfod(struct elf_cache *c, struct elf_cache_entry *ce)
{
	const uint8_t *id;
	size_t len;

	if (!c->debuginfod || ce->asked || !ce->elf || elfsyms__debug_path(ce->elf) ||
	    elfsyms__has_own_dwarf(ce->elf))
		return 0;
	len = elfsyms__build_id(ce->elf, &id);
	if (!len)
		return 0;
	ce->asked = true;
	return debuginfod__request(c->debuginfod, id, len);
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
	err = elfsyms__load_fd_dwarf(fd, rootfd, path, c->debug_dir, !c->no_dwarf, &elf);
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
		.path = strdup(path ? path : ""),
	};
	*out = elf;
	if (!ce->path)
		return -ENOMEM;
	return ask_debuginfod(c, ce);
}

void elf_cache__set_dwarf(struct elf_cache *c, bool dwarf)
{
	c->no_dwarf = !dwarf;
}

void elf_cache__set_debuginfod(struct elf_cache *c, struct debuginfod *d)
{
	c->debuginfod = d;
	for (size_t i = 0; i < c->nr; i++)
		if (ask_debuginfod(c, &c->entries[i]) == -ENOMEM)
			break;
}

/* Adds the debug file at @r->path to every file of build-id @r->id; how many it named. */
static int take_result(struct elf_cache *c, const struct debuginfod_result *r)
{
	int fd, n, changed = 0;

	fd = r->err ? -1 : open(r->path, O_RDONLY | O_CLOEXEC);
	for (size_t i = 0; i < c->nr; i++) {
		struct elf_cache_entry *ce = &c->entries[i];
		const uint8_t *id;

		if (!ce->asked || !ce->elf || elfsyms__build_id(ce->elf, &id) != r->len ||
		    memcmp(id, r->id, r->len))
			continue;
		ce->debuginfod_err = fd < 0 ? (r->err ? r->err : -ENOENT) : 0;
		if (fd < 0)
			continue;
		n = elfsyms__add_debug_fd(ce->elf, fd, r->path);
		if (n < 0) {
			changed = n;
			break;
		}
		changed += n;
	}
	if (fd >= 0)
		close(fd);
	return changed;
}

int elf_cache__poll(struct elf_cache *c)
{
	struct debuginfod_result r;
	int changed = 0, n;

	while (c->debuginfod && debuginfod__take(c->debuginfod, &r) == 1) {
		n = take_result(c, &r);
		free(r.path);
		if (n < 0)
			return n;
		changed += n;
	}
	return changed;
}

void elf_cache__print_undebugged(const struct elf_cache *c, FILE *out)
{
	for (size_t i = 0; i < c->nr; i++) {
		const struct elf_cache_entry *ce = &c->entries[i];
		const char *why = "";

		if (!ce->elf || elfsyms__has_symtab(ce->elf) || elfsyms__has_own_dwarf(ce->elf))
			continue;
		if (ce->asked && ce->debuginfod_err == -ENOENT)
			why = ", debuginfod has none";
		else if (ce->asked && ce->debuginfod_err == DEBUGINFOD_NOT_ELF)
			why = ", debuginfod answered a file that is not ELF";
		else if (ce->asked && ce->debuginfod_err == DEBUGINFOD_OTHER_BUILD)
			why = ", debuginfod answered another build's debug file";
		else if (ce->asked && ce->debuginfod_err)
			why = ", debuginfod failed";
		else if (ce->asked)
			why = ", debuginfod had not answered";
		fprintf(out,
			"faultline: no debug info for %s (no .symtab, debug file or MiniDebugInfo%s): "
			"only its exported functions have names\n",
			ce->path, why);
	}
}

struct demangler *elf_cache__demangler(struct elf_cache *c)
{
	return c->demangler;
}
