// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/unwind.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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
	/* what the BPF side finds a mapping of it by (unwind_objects): its file, and its file
	 * offset less ELF address */
	uint64_t file_id;
	int64_t off_minus_vaddr;
	char *name; /* its file's last path component, for frames no process can place */
};

/* A table loaded into its own map, waiting to be put in unwind_tables: each update of a map
 * of maps waits for a grace period (15 ms here), so one sync puts all its new tables at once. */
struct pending {
	uint32_t id;
	int fd;
	size_t obj; /* index in objs */
};

struct unwinder {
	int tables_fd, procs_fd, objects_fd;
	uint32_t *epoch; /* the BPF side's unwind_epoch (see unwinder__new) */
	uint64_t max_bytes;
	struct object *objs;
	size_t nobjs, cap;
	uint32_t next_id;
	uint32_t gen; /* the last fl_unwind_proc.gen given */
	struct fl_unwind_figures stats;
	struct fl_unwind_proc proc;   /* 16 KiB: built here, not on the stack */
	struct fl_unwind_proc loaded; /* ... and the list the BPF side holds, read back here */
	struct symbolizer_code *code; /* a process's code mappings, during a sync */
	size_t code_cap;
	size_t obj_of[FL_UNWIND_MAPS]; /* the object of each code[] in objs, during a sync */
	struct pending pending[FL_UNWIND_MAPS];
	size_t npending;
};

/* After a change of unwind_procs: the threads' cached walks of the BPF side may be stale. */
static void epoch_bump(struct unwinder *u)
{
	if (u->epoch)
		__atomic_fetch_add(u->epoch, 1, __ATOMIC_SEQ_CST);
}

struct unwinder *unwinder__new(int tables_fd, int procs_fd, int objects_fd, uint32_t *epoch,
			       uint64_t max_bytes)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->tables_fd = tables_fd;
	u->procs_fd = procs_fd;
	u->objects_fd = objects_fd;
	u->epoch = epoch;
	u->max_bytes = max_bytes;
	u->next_id = 1;
	return u;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nobjs; i++)
		free(u->objs[i].name);
	free(u->objs);
	free(u->code);
	free(u);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void report_load_error(struct unwinder *u, const char *step, int err)
{
	if (!u->stats.load_failed++)
		fprintf(stderr,
			"faultline: an unwind table could not be loaded into the kernel (%s: %s): "
			"stacks through such code fall back to frame pointers\n",
			step, strerror(-err));
}

/* An inner map of @t's rows, its fd into *@out (put_pending() adds it to unwind_tables). 0
 * or -errno, with the step that failed in *@step. */
static int load_table(const struct cfi_table *t, int *out, const char **step)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_INNER_MAP);
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	uint32_t *index = NULL;
	/* the rows, then their page index (cfi__page_index; none when it cannot be had) */
	size_t recs = cfi__page_index(t, &index), n = t->n + recs;
	struct fl_unwind_row *vals = malloc(n * sizeof(*vals));
	uint32_t *keys = malloc(n * sizeof(*keys)), count = (uint32_t)n;
	int fd, err = 0;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (uint32_t i = 0; i < count; i++)
		keys[i] = i;
	memcpy(vals, t->rows, t->n * sizeof(*vals));
	if (recs)
		memcpy(vals + t->n, index, recs * sizeof(*vals));
	*step = "creating its map";
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fl_unwind_rows", sizeof(uint32_t),
			    sizeof(struct fl_unwind_row), count, &mo);
	if (fd < 0) {
		err = -errno;
	} else if (bpf_map_update_batch(fd, keys, vals, &count, &bo)) {
		err = -errno;
		*step = "filling it";
		close(fd);
	} else {
		*out = fd;
	}
cleanup:
	free(keys);
	free(vals);
	free(index);
	return err;
}

/* The figures of a table that is in unwind_tables. */
static void count_loaded(struct unwinder *u, struct object *o)
{
	u->stats.objects++;
	u->stats.rows += o->rows;
	u->stats.bytes += (uint64_t)o->rows * sizeof(struct fl_unwind_row);
}

/* Tells the BPF side's walk which table a mapping of @o's file has, once it is in
 * unwind_tables: a process that maps it is then walked by its rows before its list is built
 * here (bpf/unwind_learn.bpf.h). Not fatal: that process waits for its list. */
static void publish(struct unwinder *u, const struct object *o)
{
	struct fl_unwind_object v = { .table = o->id,
				      .rows = o->rows,
				      .off_minus_vaddr = o->off_minus_vaddr };

	if (u->objects_fd >= 0 && o->file_id)
		bpf_map_update_elem(u->objects_fd, &o->file_id, &v, BPF_ANY);
}

/* Puts the tables loaded by this sync in unwind_tables, in one update where the kernel takes
 * a batch (6.7 waits for one grace period per batch), one by one where it does not. */
static void put_pending(struct unwinder *u)
{
	uint32_t ids[FL_UNWIND_MAPS], done = (uint32_t)u->npending;
	int fds[FL_UNWIND_MAPS], err = 0;

	for (size_t i = 0; i < u->npending; i++) {
		ids[i] = u->pending[i].id;
		fds[i] = u->pending[i].fd;
	}
	if (done && bpf_map_update_batch(u->tables_fd, ids, fds, &done, NULL)) {
		err = -errno;
		for (done = 0; done < u->npending; done++)
			if (bpf_map_update_elem(u->tables_fd, &ids[done], &fds[done], BPF_ANY)) {
				err = -errno;
				break;
			}
		if (done == u->npending)
			err = 0;
	}
	for (size_t i = 0; i < u->npending; i++) {
		struct object *o = &u->objs[u->pending[i].obj];

		close(fds[i]); /* the outer map holds those it took */
		if (i < done) {
			count_loaded(u, o);
			publish(u, o);
		} else {
			o->id = 0;
		}
	}
	if (err)
		report_load_error(u, "adding it to the tables", err);
	u->npending = 0;
}

/* The rows of the tables waiting in u->pending. */
static uint64_t pending_bytes(const struct unwinder *u)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < u->npending; i++)
		bytes += (uint64_t)u->objs[u->pending[i].obj].rows * sizeof(struct fl_unwind_row);
	return bytes;
}

/* The object of @c, its table compiled and loaded when first seen (put in unwind_tables by
 * put_pending()). NULL when out of memory. */
static struct object *object_of(struct unwinder *u, const struct symbolizer *sym,
				const struct symbolizer_code *c)
{
	struct cfi_table t;
	struct object *o;
	const char *step = "";
	double t0;
	int fd, err, table_fd = -1;

	for (size_t i = 0; i < u->nobjs; i++)
		if (u->objs[i].elf == c->elf)
			return &u->objs[i];
	o = grow__reserve(u->objs, &u->cap, u->nobjs, sizeof(*o));
	if (!o)
		return NULL;
	u->objs = o;
	o = &u->objs[u->nobjs++];
	*o = (struct object){
		.elf = c->elf,
		.name = strdup(strrchr(c->path, '/') ? strrchr(c->path, '/') + 1 : c->path),
		.file_id = c->file_id,
		.off_minus_vaddr = (int64_t)c->offset - (int64_t)(c->start - c->bias)
	};
	t0 = now_ms();
	fd = symbolizer__open_code(sym, c->index);
	if (fd < 0 || cfi__compile_fd(fd, &t) || !t.n) {
		u->stats.no_table++;
	} else if (u->stats.bytes + pending_bytes(u) + t.n * sizeof(*t.rows) > u->max_bytes) {
		u->stats.over_budget++;
	} else if (!(err = load_table(&t, &table_fd, &step))) {
		o->id = u->next_id++;
		o->rows = (uint32_t)t.n;
		u->pending[u->npending++] =
			(struct pending){ .id = o->id, .fd = table_fd, .obj = u->nobjs - 1 };
	} else {
		report_load_error(u, step, err);
	}
	if (fd >= 0) {
		cfi__free(&t);
		close(fd);
	}
	u->stats.compile_ms += now_ms() - t0;
	return o;
}

/*
 * Whether the BPF side's list for @key is the one just built in u->proc: a forked child's
 * copy of its parent's list (fl_fork) that it still maps alike. Kept, it keeps its
 * generation, so the child walks with the rows its parent and siblings cached, and no other
 * thread's cached walk is made stale for nothing.
 */
static bool holds_already(struct unwinder *u, uint32_t key)
{
	if (bpf_map_lookup_elem(u->procs_fd, &key, &u->loaded) || u->loaded.n != u->proc.n)
		return false;
	return !memcmp(u->loaded.maps, u->proc.maps, u->proc.n * sizeof(u->proc.maps[0]));
}

/* The code mappings of @sym into u->code, all of them; their number, or -ENOMEM. */
static ssize_t code_of(struct unwinder *u, const struct symbolizer *sym)
{
	size_t n = symbolizer__code(sym, u->code, u->code_cap);

	if (n > u->code_cap) {
		struct symbolizer_code *c = realloc(u->code, n * sizeof(*c));

		if (!c)
			return -ENOMEM;
		u->code = c;
		u->code_cap = n;
		n = symbolizer__code(sym, u->code, u->code_cap);
	}
	return (ssize_t)(n < u->code_cap ? n : u->code_cap);
}

int unwinder__sync(struct unwinder *u, pid_t pid, const struct symbolizer *sym)
{
	uint32_t key = (uint32_t)pid;
	char names[sizeof(u->stats.cut_names)];
	ssize_t all;
	double t0;
	size_t n;

	if (!u || !sym || !u->max_bytes)
		return 0;
	all = code_of(u, sym);
	if (all < 0)
		return (int)all;
	n = unwind__pick(u->code, (size_t)all, FL_UNWIND_MAPS, names, sizeof(names));
	if ((size_t)all - n > u->stats.maps_cut) { /* the process that lost the most */
		u->stats.maps_cut = (size_t)all - n;
		memcpy(u->stats.cut_names, names, sizeof(names));
	}
	memset(&u->proc, 0, sizeof(u->proc));
	for (size_t i = 0; i < n; i++) {
		const struct object *o = object_of(u, sym, &u->code[i]);

		if (!o) {
			put_pending(u);
			return -ENOMEM;
		}
		u->obj_of[i] = (size_t)(o - u->objs); /* u->objs may move as it grows */
	}
	/* the tables first: the walk may read this process's list as soon as it is in */
	t0 = now_ms();
	put_pending(u);
	u->stats.compile_ms += now_ms() - t0;
	for (size_t i = 0; i < n; i++) {
		const struct symbolizer_code *c = &u->code[i];
		const struct object *o = &u->objs[u->obj_of[i]];
		struct fl_unwind_map *m = &u->proc.maps[i];

		*m = (struct fl_unwind_map){ .start = c->start, .end = c->end, .bias = c->bias };
		if (o->id) {
			m->table = o->id;
			m->rows = o->rows;
		}
	}
	u->proc.n = (uint32_t)n;
	if (holds_already(u, key))
		return 0;
	u->proc.gen = ++u->gen; /* the rows the BPF side cached for this pid are stale */
	if (bpf_map_update_elem(u->procs_fd, &key, &u->proc, BPF_ANY))
		return -errno;
	epoch_bump(u);
	return 0;
}

/* Whether the file of @c, as @sym opens it, is the one mapped (a process gone is opened by
 * its path, which may hold another file by now). */
static bool same_file(const struct symbolizer *sym, const struct symbolizer_code *c)
{
	int fd = symbolizer__open_code(sym, c->index);
	struct stat st;
	bool same;

	if (fd < 0)
		return false;
	same = !fstat(fd, &st) &&
	       fl_file_id(major(st.st_dev) << 20 | minor(st.st_dev), st.st_ino) == c->file_id;
	close(fd);
	return same;
}

int unwinder__publish(struct unwinder *u, const struct symbolizer *sym)
{
	ssize_t all;
	size_t n = 0;
	double t0;

	if (!u || !sym || !u->max_bytes)
		return 0;
	all = code_of(u, sym);
	if (all < 0)
		return (int)all;
	for (size_t i = 0; i < (size_t)all && n < FL_UNWIND_MAPS; i++) {
		const struct symbolizer_code *c = &u->code[i];
		bool known = false;

		for (size_t k = 0; k < u->nobjs && !known; k++)
			known = u->objs[k].elf == c->elf;
		if (known || !same_file(sym, c))
			continue;
		if (!object_of(u, sym, c)) {
			put_pending(u);
			return -ENOMEM;
		}
		n++;
	}
	t0 = now_ms();
	put_pending(u);
	u->stats.compile_ms += now_ms() - t0;
	return 0;
}

void unwinder__forget(struct unwinder *u, pid_t pid)
{
	uint32_t key = (uint32_t)pid;

	if (u && !bpf_map_delete_elem(u->procs_fd, &key))
		epoch_bump(u);
}

/* The rank of a code mapping in unwind__pick(): lower first. */
static int rank(const struct symbolizer_code *c, bool lowest)
{
	static const char *const core[] = { "ld-linux", "ld-musl",   "libc.so",
					    "libc-",	"libc.musl", "[vdso]" };
	static const char *const runtimes[] = { "libstdc++",   "libgcc_s",    "libm.so",
						"libpthread",  "libjemalloc", "libtcmalloc",
						"libmimalloc", "libpython",   "libjvm" };
	const char *base = strrchr(c->path, '/');

	base = base ? base + 1 : c->path;
	if (lowest)
		return 0;
	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		if (!strncmp(base, core[i], strlen(core[i])))
			return 0;
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (!strncmp(base, runtimes[i], strlen(runtimes[i])))
			return 1;
	return 2;
}

struct ranked {
	size_t at; /* index in the code list */
	int rank;
	uint64_t size;
};

static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* True when @base is one of the names of the list @names. */
static bool listed(const char *names, const char *base)
{
	size_t n = strlen(base);

	for (const char *p = names; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 2 : NULL)
		if (!strncmp(p, base, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Appends @path's file name to the list in @names, once; "..." once it is full. */
static void add_name(char *names, size_t len, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t at = strlen(names);

	base = base ? base + 1 : path;
	if ((at >= 3 && !strcmp(names + at - 3, "...")) || listed(names, base))
		return;
	if (at + strlen(base) + 2 + 5 < len) /* room for it and a last ", ..." */
		snprintf(names + at, len - at, "%s%s", at ? ", " : "", base);
	else
		snprintf(names + at, len - at, "%s...", at ? ", " : "");
}

size_t unwind__pick(struct symbolizer_code *code, size_t n, size_t max, char *names, size_t len)
{
	struct ranked *r;
	bool *keep;
	size_t kept = 0;

	if (len)
		names[0] = '\0';
	if (n <= max)
		return n;
	r = calloc(n, sizeof(*r));
	keep = calloc(n, sizeof(*keep));
	if (!r || !keep) { /* no memory to rank: the lowest addresses, as they come */
		free(r);
		free(keep);
		return max;
	}
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){ i, rank(&code[i], i == 0), code[i].end - code[i].start };
	qsort(r, n, sizeof(*r), by_rank);
	for (size_t i = 0; i < n; i++) {
		keep[r[i].at] = i < max;
		if (i >= max)
			add_name(names, len, code[r[i].at].path);
	}
	for (size_t i = 0; i < n; i++) /* in place, in address order */
		if (keep[i])
			code[kept++] = code[i];
	free(r);
	free(keep);
	return kept;
}

void unwinder__stats(const struct unwinder *u, struct fl_unwind_figures *out)
{
	*out = u ? u->stats : (struct fl_unwind_figures){ 0 };
}

static const struct object *object_by_id(const struct unwinder *u, uint32_t table)
{
	/* ids are given in the order objects come, from 1: most often objs[id - 1] */
	if (!u || !table)
		return NULL;
	if (table <= u->nobjs && u->objs[table - 1].id == table)
		return &u->objs[table - 1];
	for (size_t i = 0; i < u->nobjs; i++)
		if (u->objs[i].id == table)
			return &u->objs[i];
	return NULL;
}

const struct elfsyms *unwinder__object(const struct unwinder *u, uint32_t table, const char **name)
{
	const struct object *o = object_by_id(u, table);

	if (name)
		*name = o ? o->name : NULL;
	return o ? o->elf : NULL;
}

int unwinder__table_of(const struct unwinder *u, const struct elfsyms *elf, uint32_t *table)
{
	for (size_t i = 0; u && i < u->nobjs; i++)
		if (u->objs[i].elf == elf && u->objs[i].id) {
			*table = u->objs[i].id;
			return 0;
		}
	return -ENOENT;
}
