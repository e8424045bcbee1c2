// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/probesites.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "base/procfs.h"
#include "faultline.h"

/* The mapping a /proc/PID/map_files/START-END path names by its range: its start. */
static int map_file_start(const char *path, uint64_t *start)
{
	const char *name = strrchr(path, '/');
	uint64_t end;

	if (!name || sscanf(name + 1, "%" SCNx64 "-%" SCNx64, start, &end) != 2)
		return -ENOENT;
	return 0;
}

int probesites__vaddr(const struct procmaps *m, const char *path, uint64_t off, uint64_t *vaddr)
{
	bool by_range = procfs__is_map_file(path);
	uint64_t start = 0;

	if (by_range && map_file_start(path, &start))
		return -ENOENT;
	for (size_t i = 0; i < m->nr; i++) {
		const struct procmap_entry *e = &m->entries[i];

		if (!(e->perms & PROCMAP_EXEC) || off < e->offset ||
		    off - e->offset >= e->end - e->start)
			continue;
		if (by_range ? e->start != start : strcmp(e->path, path))
			continue;
		*vaddr = e->start + (off - e->offset);
		return 0;
	}
	return -ENOENT;
}

/* Deletes the entries @set wrote. */
static void unwrite(int fd, struct probe_site_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		struct fl_probe_site k = { .tgid = (uint32_t)set->pid, .addr = set->addrs[i] };

		if (set->addrs[i])
			bpf_map_delete_elem(fd, &k);
		set->addrs[i] = 0;
	}
}

/* Writes @set's probes that its process maps now into the map @fd (what it wrote before goes:
 * an exec moved them). */
static int write_set(int fd, struct probe_site_set *set)
{
	struct procmaps maps;
	FILE *f;
	int err = procfs__fopen(set->pid, "maps", &f);

	if (err)
		return err;
	err = procmaps__parse(f, &maps);
	fclose(f);
	if (!err)
		unwrite(fd, set);
	for (size_t i = 0; i < set->n && !err; i++) {
		struct fl_probe_site k = { .tgid = (uint32_t)set->pid };
		uint64_t addr;

		if (probesites__vaddr(&maps, set->path, set->offs[i], &addr))
			continue;
		k.addr = addr;
		if (bpf_map_update_elem(fd, &k, &set->cookies[i], BPF_ANY))
			err = -errno;
		else
			set->addrs[i] = addr;
	}
	procmaps__free(&maps);
	return err;
}

static void free_set(struct probe_site_set *set)
{
	free(set->path);
	free(set->offs);
	free(set->cookies);
	free(set->addrs);
}

static struct probe_site_set *find(struct probe_sites *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid)
			return &s->v[i];
	return NULL;
}

static bool same(const struct probe_site_set *set, const char *path, const uint64_t *offs,
		 const uint64_t *cookies, size_t n)
{
	return set->n == n && !strcmp(set->path, path) &&
	       !memcmp(set->offs, offs, n * sizeof(*offs)) &&
	       !memcmp(set->cookies, cookies, n * sizeof(*cookies));
}

/* probesites__add(), @s locked. */
static int add(struct probe_sites *s, pid_t pid, const char *path, const uint64_t *offs,
	       const uint64_t *cookies, size_t n)
{
	struct probe_site_set set = { .pid = pid,
				      .path = strdup(path),
				      .offs = malloc(n * sizeof(*offs) + 1),
				      .cookies = malloc(n * sizeof(*cookies) + 1),
				      .addrs = calloc(n + 1, sizeof(*set.addrs)),
				      .n = n },
			      *at = find(s, pid), *v;

	if (!set.path || !set.offs || !set.cookies || !set.addrs)
		goto nomem;
	memcpy(set.offs, offs, n * sizeof(*offs));
	memcpy(set.cookies, cookies, n * sizeof(*cookies));
	if (at) {
		unwrite(s->fd, at);
		free_set(at);
	} else {
		v = grow__reserve(s->v, &s->cap, s->n, sizeof(*s->v));
		if (!v)
			goto nomem;
		s->v = v;
		at = &s->v[s->n++];
	}
	*at = set;
	return write_set(s->fd, at);
nomem:
	free_set(&set);
	return -ENOMEM;
}

int probesites__add(struct probe_sites *s, pid_t pid, const char *path, const uint64_t *offs,
		    const uint64_t *cookies, size_t n)
{
	struct probe_site_set *had;
	int err = 0;

	pthread_mutex_lock(&s->lock);
	had = find(s, pid);
	/* --sample-time attaches them again every window: written once is enough */
	if (!had || !same(had, path, offs, cookies, n))
		err = add(s, pid, path, offs, cookies, n);
	pthread_mutex_unlock(&s->lock);
	return err;
}

void probesites__refresh(struct probe_sites *s, pid_t pid)
{
	struct probe_site_set *set;

	pthread_mutex_lock(&s->lock);
	set = find(s, pid);
	if (set)
		write_set(s->fd, set);
	pthread_mutex_unlock(&s->lock);
}

void probesites__forget(struct probe_sites *s, pid_t pid)
{
	struct probe_site_set *set;

	pthread_mutex_lock(&s->lock);
	set = find(s, pid);
	if (set) {
		unwrite(s->fd, set);
		free_set(set);
		*set = s->v[--s->n];
	}
	pthread_mutex_unlock(&s->lock);
}

void probesites__init(struct probe_sites *s, int fd)
{
	*s = (struct probe_sites){ .fd = fd };
	pthread_mutex_init(&s->lock, NULL);
}

void probesites__free(struct probe_sites *s)
{
	for (size_t i = 0; i < s->n; i++)
		free_set(&s->v[i]);
	free(s->v);
	pthread_mutex_destroy(&s->lock);
	*s = (struct probe_sites){ .fd = -1 };
}
