/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Per-process snapshot of the mappings, each file mapping tied to the symbols of its file (shared
 * by every process through the elf_cache) and its load bias.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/procfs.h"
#include "faultline.h"
#include "symbols/elfcache.h"
#include "symbols/elfsyms.h"
#include "symbols/mapclass.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"
#include "symbols/symbolizer_state.h"

/* A missed address re-reads the maps at most this often. */
#define REFRESH_MIN_INTERVAL_NS (100ULL * 1000 * 1000)

/* A hash of where each executable file is mapped: what names every code address. */
static uint64_t layout_of(const struct procmaps *maps)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < maps->nr; i++) {
		const struct procmap_entry *e = &maps->entries[i];
		const uint64_t v[] = { e->start, e->end, e->offset, e->inode,
				       (uint64_t)e->dev_major << 32 | e->dev_minor };

		if (!(e->perms & PROCMAP_EXEC) || !procmap_entry__is_file(e))
			continue;
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			h = (h ^ v[k]) * 0x100000001b3ull;
	}
	return h;
}

/*
 * Opens the file of @e. A deleted or replaced file is opened through /proc/PID/map_files, which
 * holds the very inode mapped (it needs CAP_SYS_ADMIN, as the profiler has); the path is the
 * fallback, and the only way for symbolizer__new_from.
 */
static int open_mapping(const struct symbolizer *s, const struct procmap_entry *e)
{
	char name[64];
	struct stat st;
	int fd = -1, mfd;

	if (!e->is_deleted)
		fd = procfs__open_in_root(s->rootfd, e->path);
	if (s->procfd < 0)
		return fd;
	if (fd >= 0 && !fstat(fd, &st) && st.st_ino == e->inode)
		return fd;
	snprintf(name, sizeof(name), "map_files/%" PRIx64 "-%" PRIx64, e->start, e->end);
	mfd = openat(s->procfd, name, O_RDONLY | O_CLOEXEC);
	if (mfd < 0)
		return fd >= 0 ? fd : -errno;
	if (fd >= 0)
		close(fd);
	return mfd;
}

static int load_mapping(struct symbolizer *s, const struct procmap_entry *e, struct sym_map *m)
{
	int fd, err;

	memset(m, 0, sizeof(*m));
	if (!procmap_entry__is_file(e))
		return 0;
	fd = open_mapping(s, e);
	if (fd < 0)
		return 0; /* unreadable: named by file offset */
	err = elf_cache__get(s->cache, fd, s->rootfd, e->path, &m->elf);
	close(fd);
	if (err || !m->elf)
		return err;
	m->have_bias =
		!elfsyms__bias(m->elf, e->start, e->offset, e->perms & PROCMAP_EXEC, &m->bias);
	return 0;
}

static bool same_mapping(const struct procmap_entry *a, const struct procmap_entry *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor && !strcmp(a->path, b->path);
}

/*
 * The bias of a loaded object is best read from its executable mapping: a non-executable one
 * may start at a file page that two segments share. So each non-executable mapping takes the
 * bias of the nearest executable mapping of the same file when that bias fits it.
 */
static bool exec_bias_fits(const struct procmaps *maps, const struct sym_map *mods, size_t i,
			   size_t j)
{
	const struct procmap_entry *e = &maps->entries[i];

	return mods[j].elf == mods[i].elf && mods[j].have_bias &&
	       (maps->entries[j].perms & PROCMAP_EXEC) &&
	       elfsyms__bias_fits(mods[i].elf, e->start, e->offset, mods[j].bias);
}

static void share_biases(const struct procmaps *maps, struct sym_map *mods)
{
	const size_t reach = 16; /* the mappings of one object are neighbours */
	size_t i, d, j;

	for (i = 0; i < maps->nr; i++) {
		if (!mods[i].elf || (maps->entries[i].perms & PROCMAP_EXEC))
			continue;
		for (d = 1; d <= reach; d++) {
			if (d <= i && exec_bias_fits(maps, mods, i, i - d))
				j = i - d;
			else if (i + d < maps->nr && exec_bias_fits(maps, mods, i, i + d))
				j = i + d;
			else
				continue;
			mods[i].bias = mods[j].bias;
			mods[i].have_bias = true;
			break;
		}
	}
}

/* The object of @e as @s knows it, when @s had the very same mapping. */
static const struct sym_map *known_mod(const struct symbolizer *s, const struct procmap_entry *e)
{
	const struct procmap_entry *old = s ? procmaps__find(&s->maps, e->start) : NULL;

	return old && same_mapping(old, e) ? &s->mods[old - s->maps.entries] : NULL;
}

/* Ties every entry of @maps to its file's symbols, reusing what the previous snapshot knew, or
 * what @like (NULL: none) knew of a mapping it has alike. */
static int load_mods(struct symbolizer *s, const struct procmaps *maps,
		     const struct symbolizer *like, struct sym_map **out)
{
	struct sym_map *mods;
	size_t i;
	int err;

	mods = calloc(maps->nr ? maps->nr : 1, sizeof(*mods));
	if (!mods)
		return -ENOMEM;
	for (i = 0; i < maps->nr; i++) {
		const struct procmap_entry *e = &maps->entries[i];
		const struct sym_map *known = known_mod(s, e);

		if (!known && like && like->cache == s->cache)
			known = known_mod(like, e);
		if (known) {
			mods[i] = *known;
			continue;
		}
		err = load_mapping(s, e, &mods[i]);
		if (err) {
			free(mods);
			return err;
		}
	}
	share_biases(maps, mods);
	*out = mods;
	return 0;
}

/* Replaces the snapshot with the maps text of @f; on failure the old one stays. */
static int load_maps(struct symbolizer *s, FILE *f, const struct symbolizer *like)
{
	struct procmaps maps;
	struct sym_map *mods = NULL;
	int err;

	err = procmaps__parse(f, &maps);
	if (err)
		return err;
	if (!maps.nr && s->procfd >= 0) {
		/* a zombie's maps are empty: keep what we knew */
		procmaps__free(&maps);
		return -ESRCH;
	}
	err = load_mods(s, &maps, like, &mods);
	if (!err)
		err = file_names__learn(&s->files, &maps);
	if (err) {
		free(mods);
		procmaps__free(&maps);
		return err;
	}
	procmaps__free(&s->maps);
	free(s->mods);
	s->maps = maps;
	s->mods = mods;
	s->layout = layout_of(&s->maps);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Re-reads the process's maps; the objects @like (NULL: none) maps alike are known already. */
static int refresh_like(struct symbolizer *s, const struct symbolizer *like)
{
	FILE *f;
	int fd, err;

	if (s->procfd < 0)
		return -EOPNOTSUPP;
	s->last_refresh_ns = now_ns();
	s->nr_refreshes++;
	fd = openat(s->procfd, "maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	f = fdopen(fd, "r");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	err = load_maps(s, f, like);
	fclose(f);
	return err;
}

int symbolizer__refresh(struct symbolizer *s)
{
	return refresh_like(s, NULL);
}

static struct symbolizer *symbolizer__alloc(struct elf_cache *cache)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cache = cache;
	s->procfd = -1;
	s->rootfd = -1;
	return s;
}

/*
 * @rootfd, the root of the process at @procfd, or AT_FDCWD (closing it) when that root and
 * mount namespace are faultline's own: paths then resolve alike, and thousands of children
 * do not hold an fd each.
 */
static int own_root(int procfd, int rootfd)
{
	struct stat a, b, na, nb;

	if (fstat(rootfd, &a) || stat("/", &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino ||
	    fstatat(procfd, "ns/mnt", &na, 0) || stat("/proc/self/ns/mnt", &nb) ||
	    na.st_ino != nb.st_ino)
		return rootfd;
	close(rootfd);
	return AT_FDCWD;
}

struct symbolizer *symbolizer__new(struct elf_cache *cache, pid_t pid)
{
	return symbolizer__new_like(cache, pid, NULL);
}

struct symbolizer *symbolizer__new_like(struct elf_cache *cache, pid_t pid,
					const struct symbolizer *like)
{
	struct symbolizer *s;
	int err;

	s = symbolizer__alloc(cache);
	if (!s)
		return NULL;
	s->procfd = procfs__open_live(pid);
	if (s->procfd < 0) {
		err = s->procfd;
		goto cleanup;
	}
	s->rootfd = openat(s->procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->rootfd < 0) {
		err = errno == ENOENT ? -ESRCH : -errno;
		goto cleanup;
	}
	s->rootfd = own_root(s->procfd, s->rootfd);
	err = refresh_like(s, like);
	if (err)
		goto cleanup;
	s->nr_refreshes = 0;
	return s;
cleanup:
	symbolizer__free(s);
	errno = -err;
	return NULL;
}

struct symbolizer *symbolizer__new_offline(struct elf_cache *cache, FILE *maps, int rootfd,
					   const struct symbolizer *like)
{
	struct symbolizer *s = symbolizer__alloc(cache);
	int err;

	if (!s)
		return NULL;
	s->rootfd = rootfd < 0 ? AT_FDCWD : fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	if (s->rootfd == -1) {
		err = -errno;
		goto cleanup;
	}
	err = load_maps(s, maps, like);
	if (err)
		goto cleanup;
	return s;
cleanup:
	symbolizer__free(s);
	errno = -err;
	return NULL;
}

struct symbolizer *symbolizer__new_from(struct elf_cache *cache, FILE *maps, const char *root_dir)
{
	int fd = open(root_dir ? root_dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC), err;
	struct symbolizer *s;

	if (fd < 0)
		return NULL;
	s = symbolizer__new_offline(cache, maps, fd, NULL);
	err = errno;
	close(fd);
	errno = err;
	return s;
}

int symbolizer__write_maps(const struct symbolizer *s, FILE *f, const struct procmaps *except)
{
	int err = 0;

	for (size_t i = 0; i < s->maps.nr && !err; i++) {
		const struct procmap_entry *e = &s->maps.entries[i];

		if (!except || !procmaps__overlaps(except, e->start, e->end))
			err = procmap_entry__write(f, e);
	}
	return err;
}

int symbolizer__rootfd(const struct symbolizer *s)
{
	return s->rootfd;
}

void symbolizer__detach(struct symbolizer *s)
{
	if (s && s->procfd >= 0) {
		close(s->procfd);
		s->procfd = -1;
	}
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	procmaps__free(&s->maps);
	free(s->mods);
	file_names__free(&s->files);
	if (s->rootfd >= 0)
		close(s->rootfd);
	if (s->procfd >= 0)
		close(s->procfd);
	free(s);
}

const char *symbolizer__file_name(const struct symbolizer *s, uint64_t file_id)
{
	return file_names__find(&s->files, file_id);
}

int symbolizer__mapping(const struct symbolizer *s, uint64_t addr, struct symbolizer_mapping *out)
{
	const struct procmap_entry *e = procmaps__find(&s->maps, addr);
	const struct elfsyms *elf;

	if (!e)
		return -ENOENT;
	elf = s->mods[e - s->maps.entries].elf;
	*out = (struct symbolizer_mapping){ .start = e->start,
					    .end = e->end,
					    .offset = e->offset,
					    .path = e->path };
	if (elf)
		out->build_id_len = elfsyms__build_id(elf, &out->build_id);
	if (!out->build_id_len)
		out->build_id = NULL;
	return 0;
}

uint64_t symbolizer__layout(const struct symbolizer *s)
{
	return s->layout;
}

unsigned long symbolizer__nr_refreshes(const struct symbolizer *s)
{
	return s->nr_refreshes;
}

int symbolizer__refresh_stale(struct symbolizer *s)
{
	if (s->procfd < 0 || now_ns() - s->last_refresh_ns < REFRESH_MIN_INTERVAL_NS)
		return 0;
	return symbolizer__refresh(s);
}

const struct procmap_entry *symbolizer_find_entry(struct symbolizer *s, uint64_t addr)
{
	const struct procmap_entry *e = procmaps__find(&s->maps, addr);

	if (e || s->procfd < 0 || now_ns() - s->last_refresh_ns < REFRESH_MIN_INTERVAL_NS)
		return e;
	symbolizer__refresh(s); /* on failure the old snapshot stays */
	return procmaps__find(&s->maps, addr);
}

int symbolizer__read_code(struct symbolizer *s, uint64_t addr, void *buf, size_t len)
{
	const struct procmap_entry *e = procmaps__find(&s->maps, addr);
	ssize_t got;
	int fd;

	if (!e || !procmap_entry__is_file(e) || !(e->perms & PROCMAP_EXEC) || addr + len > e->end)
		return -ENOENT;
	fd = open_mapping(s, e);
	if (fd < 0)
		return fd;
	got = pread(fd, buf, len, addr - e->start + e->offset);
	close(fd);
	return got == (ssize_t)len ? 0 : -EIO;
}

bool symbolizer__is_code(struct symbolizer *s, uint64_t addr)
{
	const struct procmap_entry *e = procmaps__find(&s->maps, addr);

	return e && (e->perms & PROCMAP_EXEC);
}

int symbolizer__addr_of(const struct symbolizer *s, const struct elfsyms *elf, uint64_t vaddr,
			uint64_t *addr)
{
	for (size_t i = 0; i < s->maps.nr; i++) {
		const struct procmap_entry *e = &s->maps.entries[i];
		const struct sym_map *m = &s->mods[i];
		uint64_t at = vaddr + m->bias;

		if (m->elf == elf && m->have_bias && (e->perms & PROCMAP_EXEC) && at >= e->start &&
		    at < e->end) {
			*addr = at;
			return 0;
		}
	}
	return -ENOENT;
}

int symbolizer__object_at(const struct symbolizer *s, uint64_t addr, const struct elfsyms **elf,
			  uint64_t *vaddr)
{
	for (size_t i = 0; i < s->maps.nr; i++) {
		const struct procmap_entry *e = &s->maps.entries[i];
		const struct sym_map *m = &s->mods[i];

		if (m->elf && m->have_bias && (e->perms & PROCMAP_EXEC) && addr >= e->start &&
		    addr < e->end) {
			*elf = m->elf;
			*vaddr = addr - m->bias;
			return 0;
		}
	}
	return -ENOENT;
}

size_t symbolizer__code(const struct symbolizer *s, struct symbolizer_code *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < s->maps.nr; i++) {
		const struct procmap_entry *e = &s->maps.entries[i];
		const struct sym_map *m = &s->mods[i];

		if (!(e->perms & PROCMAP_EXEC) || !m->elf || !m->have_bias)
			continue;
		if (n < max)
			out[n] = (struct symbolizer_code){
				.start = e->start,
				.end = e->end,
				.bias = m->bias,
				.elf = m->elf,
				.index = i,
				.path = e->path,
				.offset = e->offset,
				/* the kernel's dev_t, as the BPF side reads it from the super block */
				.file_id = fl_file_id(e->dev_major << 20 | e->dev_minor, e->inode),
			};
		n++;
	}
	return n;
}

int symbolizer__open_code(const struct symbolizer *s, size_t index)
{
	if (index >= s->maps.nr)
		return -ENOENT;
	return open_mapping(s, &s->maps.entries[index]);
}
