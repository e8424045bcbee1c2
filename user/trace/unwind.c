// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/unwind.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/grow.h"
#include "faultline.h"
#include "symbols/cfi.h"

/* An object file seen in a target's mappings, and its table (id 0: none). */
struct object {
	const struct elfsyms *elf;
	uint32_t id;
	uint32_t rows;
};

struct unwinder {
	int tables_fd, procs_fd;
	uint32_t *epoch; /* the BPF side's unwind_epoch (see unwinder__new) */
	uint64_t max_bytes;
	struct object *objs;
	size_t nobjs, cap;
	uint32_t next_id;
	uint32_t gen; /* the last fl_unwind_proc.gen given */
	struct fl_unwind_figures stats;
	struct fl_unwind_proc proc; /* 8 KiB: built here, not on the stack */
	struct symbolizer_code code[FL_UNWIND_MAPS];
};

/* After a change of unwind_procs: the threads' cached walks of the BPF side may be stale. */
static void epoch_bump(struct unwinder *u)
{
	if (u->epoch)
		__atomic_fetch_add(u->epoch, 1, __ATOMIC_SEQ_CST);
}

struct unwinder *unwinder__new(int tables_fd, int procs_fd, uint32_t *epoch, uint64_t max_bytes)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->tables_fd = tables_fd;
	u->procs_fd = procs_fd;
	u->epoch = epoch;
	u->max_bytes = max_bytes;
	u->next_id = 1;
	return u;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	free(u->objs);
	free(u);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* An inner map of @t's rows, put in unwind_tables at @id. 0 or -errno, with the step that
 * failed in *@step. */
static int load_table(struct unwinder *u, const struct cfi_table *t, uint32_t id, const char **step)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_INNER_MAP);
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	uint32_t *keys = malloc(t->n * sizeof(*keys)), count = (uint32_t)t->n;
	int fd, err = 0;

	if (!keys)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++)
		keys[i] = i;
	*step = "creating its map";
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fl_unwind_rows", sizeof(uint32_t),
			    sizeof(struct fl_unwind_row), count, &mo);
	if (fd < 0) {
		err = -errno;
	} else if (bpf_map_update_batch(fd, keys, t->rows, &count, &bo)) {
		err = -errno;
		*step = "filling it";
	} else if (bpf_map_update_elem(u->tables_fd, &id, &fd, BPF_ANY)) {
		err = -errno;
		*step = "adding it to the tables";
	}
	if (fd >= 0)
		close(fd); /* the outer map holds it */
	free(keys);
	return err;
}

/* The object of @c, its table compiled and loaded when first seen. NULL when out of memory. */
static struct object *object_of(struct unwinder *u, const struct symbolizer *sym,
				const struct symbolizer_code *c)
{
	struct cfi_table t;
	struct object *o;
	const char *step = "";
	double t0;
	int fd, err;

	for (size_t i = 0; i < u->nobjs; i++)
		if (u->objs[i].elf == c->elf)
			return &u->objs[i];
	o = grow__reserve(u->objs, &u->cap, u->nobjs, sizeof(*o));
	if (!o)
		return NULL;
	u->objs = o;
	o = &u->objs[u->nobjs++];
	*o = (struct object){ .elf = c->elf };
	t0 = now_ms();
	fd = symbolizer__open_code(sym, c->index);
	if (fd < 0 || cfi__compile_fd(fd, &t) || !t.n) {
		u->stats.no_table++;
	} else if (u->stats.bytes + t.n * sizeof(*t.rows) > u->max_bytes) {
		u->stats.over_budget++;
	} else if (!(err = load_table(u, &t, u->next_id, &step))) {
		o->id = u->next_id++;
		o->rows = (uint32_t)t.n;
		u->stats.objects++;
		u->stats.rows += t.n;
		u->stats.bytes += t.n * sizeof(*t.rows);
	} else {
		if (!u->stats.load_failed++)
			fprintf(stderr,
				"faultline: an unwind table could not be loaded into the kernel "
				"(%s: %s): stacks through such code fall back to frame pointers\n",
				step, strerror(-err));
	}
	if (fd >= 0) {
		cfi__free(&t);
		close(fd);
	}
	u->stats.compile_ms += now_ms() - t0;
	return o;
}

int unwinder__sync(struct unwinder *u, pid_t pid, const struct symbolizer *sym)
{
	uint32_t key = (uint32_t)pid;
	size_t n;

	if (!u || !sym || !u->max_bytes)
		return 0;
	n = symbolizer__code(sym, u->code, FL_UNWIND_MAPS);
	if (n > FL_UNWIND_MAPS) {
		u->stats.maps_cut += n - FL_UNWIND_MAPS;
		n = FL_UNWIND_MAPS;
	}
	memset(&u->proc, 0, sizeof(u->proc));
	for (size_t i = 0; i < n; i++) {
		const struct symbolizer_code *c = &u->code[i];
		struct object *o = object_of(u, sym, c);
		struct fl_unwind_map *m = &u->proc.maps[i];

		if (!o)
			return -ENOMEM;
		*m = (struct fl_unwind_map){ .start = c->start, .end = c->end, .bias = c->bias };
		if (o->id) {
			m->table = o->id;
			m->rows = o->rows;
		}
	}
	u->proc.n = (uint32_t)n;
	u->proc.gen = ++u->gen; /* the rows the BPF side cached for this pid are stale */
	if (bpf_map_update_elem(u->procs_fd, &key, &u->proc, BPF_ANY))
		return -errno;
	epoch_bump(u);
	return 0;
}

void unwinder__forget(struct unwinder *u, pid_t pid)
{
	uint32_t key = (uint32_t)pid;

	if (u && !bpf_map_delete_elem(u->procs_fd, &key))
		epoch_bump(u);
}

void unwinder__stats(const struct unwinder *u, struct fl_unwind_figures *out)
{
	*out = u ? u->stats : (struct fl_unwind_figures){ 0 };
}
