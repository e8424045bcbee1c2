// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/exitmaps.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "faultline.h"

/* A file's path by fl_file_id(): open addressing, grown at half full. */
struct file_path {
	uint64_t id; /* 0: free */
	char *path;
};

struct exit_maps {
	struct ring_buffer *ring;
	struct fl_map_rec *recs; /* sorted by (tgid, start, vm_start) after each poll; a taken
				  * record has tgid 0 until the next poll drops it */
	size_t nrecs, cap;
	size_t sorted; /* recs[0, sorted) are in order: those of the last poll */
	struct file_path *paths;
	size_t npaths, paths_cap;
	int err; /* of the ring callback */
};

const char *exit_maps__path(const char *comps, size_t len, char *buf, size_t size)
{
	size_t n = 0, end = len;

	buf[0] = '\0';
	if (!len || comps[len - 1] != '\0')
		return buf;
	/* components are leaf first: the path is built from the last one */
	while (end > 0) {
		size_t s = end - 1, clen;

		while (s > 0 && comps[s - 1] != '\0')
			s--;
		clen = end - 1 - s;
		if (n + 1 + clen + 1 > size) {
			buf[0] = '\0';
			return buf;
		}
		buf[n++] = '/';
		memcpy(buf + n, comps + s, clen);
		n += clen;
		end = s;
	}
	buf[n] = '\0';
	return buf;
}

static struct file_path *path_slot(struct file_path *v, size_t cap, uint64_t id)
{
	size_t i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);

	while (v[i].id && v[i].id != id)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static int learn_path(struct exit_maps *m, uint64_t id, const char *path)
{
	struct file_path *slot;

	if (!path[0])
		return 0;
	if ((m->npaths + 1) * 2 > m->paths_cap) {
		size_t cap = m->paths_cap ? m->paths_cap * 2 : 256;
		struct file_path *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < m->paths_cap; i++)
			if (m->paths[i].id)
				*path_slot(v, cap, m->paths[i].id) = m->paths[i];
		free(m->paths);
		m->paths = v;
		m->paths_cap = cap;
	}
	slot = path_slot(m->paths, m->paths_cap, id);
	if (slot->id)
		return 0;
	slot->path = strdup(path);
	if (!slot->path)
		return -ENOMEM;
	slot->id = id;
	m->npaths++;
	return 0;
}

static const char *known_path(const struct exit_maps *m, uint64_t id)
{
	return m->paths_cap ? path_slot(m->paths, m->paths_cap, id)->path : NULL;
}

static int on_record(void *ctx, void *data, size_t size)
{
	const struct fl_map_path *r = data;
	struct exit_maps *m = ctx;
	struct fl_map_rec *v;
	char path[PATH_MAX];

	if (size < sizeof(r->rec))
		return 0;
	if (r->rec.path_len && size >= sizeof(r->rec) + r->rec.path_len &&
	    !(r->rec.prot & FL_PROT_PATH_CUT) &&
	    learn_path(m, fl_file_id(r->rec.dev, r->rec.ino),
		       exit_maps__path(r->path, r->rec.path_len, path, sizeof(path))))
		return m->err = -ENOMEM;
	v = grow__reserve(m->recs, &m->cap, m->nrecs, sizeof(*v));
	if (!v)
		return m->err = -ENOMEM;
	m->recs = v;
	m->recs[m->nrecs++] = r->rec;
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct fl_map_rec *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->vm_start < y->vm_start ? -1 : x->vm_start > y->vm_start;
}

int exit_maps__poll(struct exit_maps *m)
{
	size_t n = 0, old = m->nrecs;

	m->err = 0;
	ring_buffer__consume(m->ring);
	for (size_t i = 0; i < m->nrecs; i++)
		if (m->recs[i].tgid)
			m->recs[n++] = m->recs[i];
	/* the records kept stay in order: only new ones call for a sort */
	if (m->nrecs > old)
		qsort(m->recs, n, sizeof(*m->recs), cmp_rec);
	m->nrecs = m->sorted = n;
	return m->err;
}

size_t exit_maps__take(struct exit_maps *m, pid_t pid, uint64_t start, FILE *f)
{
	struct fl_map_rec key = { .tgid = (uint32_t)pid, .start = start };
	size_t lo = 0, hi = m->sorted, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_rec(&m->recs[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->sorted && m->recs[lo].tgid == key.tgid && m->recs[lo].start == start; lo++) {
		struct fl_map_rec *r = &m->recs[lo];
		const char *path = known_path(m, fl_file_id(r->dev, r->ino));

		fprintf(f,
			"%" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64 " %02x:%02x %" PRIu64 " %s\n",
			(uint64_t)r->vm_start, (uint64_t)r->vm_end,
			r->prot & FL_PROT_READ ? 'r' : '-', r->prot & FL_PROT_WRITE ? 'w' : '-',
			r->prot & FL_PROT_EXEC ? 'x' : '-', r->prot & FL_PROT_SHARED ? 's' : 'p',
			(uint64_t)r->pgoff, r->dev >> 20, r->dev & 0xfffff, (uint64_t)r->ino,
			path ? path : "");
		r->tgid = 0; /* taken: dropped at the next poll */
		n++;
	}
	return n;
}

void exit_maps__free(struct exit_maps *m)
{
	if (!m)
		return;
	ring_buffer__free(m->ring);
	for (size_t i = 0; i < m->paths_cap; i++)
		free(m->paths[i].path);
	free(m->paths);
	free(m->recs);
	free(m);
}

int exit_maps__open(struct exit_maps **out, int ring_fd)
{
	struct exit_maps *m = calloc(1, sizeof(*m));
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->ring = ring_buffer__new(ring_fd, on_record, m, NULL);
	if (!m->ring) {
		err = -errno;
		exit_maps__free(m);
		return err;
	}
	*out = m;
	return 0;
}
