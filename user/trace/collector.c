// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/collector.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "alloc_math.h"
#include "base/grow.h"
#include "base/pace.h"
#include "rss_math.h"
#include "trace/collector_state.h"
#include "trace/retired.h"

struct collector *collector__new(int counts_fd, int stacks_fd, int threads_fd, uint32_t max_rows)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->counts_fd = counts_fd;
	c->stacks_fd = stacks_fd;
	c->threads_fd = threads_fd;
	c->mm_fd = -1;
	c->procs_fd = -1;
	c->live_fd = -1;
	c->hists_fd = -1;
	c->max_rows = max_rows;
	c->rows_cap = max_rows;
	c->rows = calloc(max_rows, sizeof(*c->rows));
	c->retired = retired_rows__new();
	if (!c->rows || !c->retired) {
		collector__free(c);
		return NULL;
	}
	return c;
}

void collector__free(struct collector *c)
{
	if (!c)
		return;
	free(c->rows);
	retired_rows__free(c->retired);
	window_base__free(c->windows);
	free(c->mms);
	free(c->ends);
	collector_alloc__free(c);
	free(c->procs);
	free(c);
}

/* Entries asked of the kernel per batch lookup. */
#define CHUNK 1024

int collector_map_each(int fd, size_t ksz, size_t vsz, bool *no_batch,
		       int (*fn)(const void *key, const void *value, void *ctx), void *ctx)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
	char *keys = malloc(CHUNK * ksz), *values = malloc(CHUNK * vsz);
	__u64 out_batch, prev_key[8];
	void *in = NULL, *prev = NULL;
	int err = 0;

	if (!keys || !values || ksz > sizeof(prev_key)) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (!*no_batch) {
		__u32 count = CHUNK;
		int rc = bpf_map_lookup_batch(fd, in, &out_batch, keys, values, &count, &opts);

		if (rc && errno != ENOENT) {
			err = -errno;
			if (in || (err != -EINVAL && err != -ENOTSUP && err != -EOPNOTSUPP))
				goto cleanup;
			*no_batch = true; /* the first call failed: this kernel cannot */
			err = 0;
			break;
		}
		for (__u32 i = 0; i < count && !err; i++)
			err = fn(keys + i * ksz, values + i * vsz, ctx);
		if (rc || err)
			goto cleanup;
		in = &out_batch;
	}
	/* a key deleted between the two calls is simply skipped */
	while (!err && bpf_map_get_next_key(fd, prev, keys) == 0) {
		if (bpf_map_lookup_elem(fd, keys, values) == 0)
			err = fn(keys, values, ctx);
		memcpy(prev_key, keys, ksz);
		prev = prev_key;
	}
cleanup:
	free(keys);
	free(values);
	return err < 0 ? err : 0;
}

static int add_row(const void *key, const void *value, void *ctx)
{
	struct collector *c = ctx;
	struct fl_row *r = &c->rows[c->nrows];
	const struct fl_mm *mm;

	if (c->nrows >= c->max_rows)
		return 1;
	memcpy(&r->key, key, sizeof(r->key));
	memcpy(&r->counts, value, sizeof(r->counts));
	/* what the row held at its process's highest RSS (rss_math.h), for every view */
	mm = collector__mm(c, r->key.tgid, r->key.gen);
	r->counts.at_peak = mm ? fl_at_peak(&r->counts, mm->peak_seq) : 0;
	c->nrows++;
	return 0;
}

int collector_cmp_key(const void *a, const void *b)
{
	int r = memcmp(a, b, sizeof(struct fl_key));

	return r < 0 ? -1 : r > 0;
}

static int push_mm(struct collector *c, const struct fl_mm *mm)
{
	struct fl_mm *m = grow__reserve(c->mms, &c->mms_cap, c->nmms, sizeof(*m));

	if (!m)
		return -ENOMEM;
	c->mms = m;
	c->mms[c->nmms++] = *mm;
	return 0;
}

static int add_mm(const void *key, const void *value, void *ctx)
{
	(void)key;
	return push_mm(ctx, value);
}

/* By process and generation, and within one the higher peak first: a process that exec'd has
 * had two mms, and the higher peak is the process's. */
static int cmp_mm(const void *a, const void *b)
{
	const struct fl_mm *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	if (x->peak != y->peak)
		return x->peak > y->peak ? -1 : 1;
	return 0;
}

/* The first entry not below (@tgid, @gen) among the @n sorted @mms. */
static size_t lower_mm(const struct fl_mm *mms, size_t n, uint32_t tgid, uint16_t gen)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mms[mid].tgid < tgid || (mms[mid].tgid == tgid && mms[mid].gen < gen))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first (highest-peak) entry of (@tgid, @gen) among the @n sorted @mms, or NULL. */
static const struct fl_mm *find_mm(const struct fl_mm *mms, size_t n, uint32_t tgid, uint16_t gen)
{
	size_t i = lower_mm(mms, n, tgid, gen);

	return i < n && mms[i].tgid == tgid && mms[i].gen == gen ? &mms[i] : NULL;
}

const struct fl_mm *collector__mm(const struct collector *c, uint32_t tgid, uint16_t gen)
{
	const struct fl_mm *mm = find_mm(c->mms, c->nmms, tgid, gen);
	size_t i;

	if (mm || gen)
		return mm;
	/* the newest generation: the last run of @tgid */
	i = lower_mm(c->mms, c->nmms, tgid + 1, 0);
	if (!i || c->mms[i - 1].tgid != tgid)
		return NULL;
	return find_mm(c->mms, c->nmms, tgid, c->mms[i - 1].gen);
}

/* The peaks of mms already torn down, which the BPF side keeps in each process's entry. */
static int add_gone_peaks(struct collector *c)
{
	int err = 0;

	for (size_t i = 0; i < c->nprocs && !err; i++) {
		const struct fl_proc *p = &c->procs[i].p;

		if (p->gone_peak > 0)
			err = push_mm(c, &(struct fl_mm){ .tgid = (uint32_t)c->procs[i].pid,
							  .gen = (uint16_t)p->gen,
							  .peak = p->gone_peak,
							  .peak_seq = p->gone_peak_seq });
	}
	return err;
}

/*
 * Reads mm_state, and the peaks of torn down mms from the target set. The loader retires an
 * exited process, but its rows still need its peak: the state last read or kept of a process
 * that has none now stays.
 */
static int read_mms(struct collector *c)
{
	struct fl_mm *prev = c->mms;
	size_t nprev = c->nmms, nread;
	int err;

	c->mms = NULL;
	c->nmms = c->mms_cap = 0;
	err = collector_map_each(c->mm_fd, sizeof(__u32), sizeof(struct fl_mm), &c->no_batch,
				 add_mm, c);
	if (!err && c->procs_fd >= 0 && !(err = collector__read_procs(c)))
		err = add_gone_peaks(c);
	if (c->nmms)
		qsort(c->mms, c->nmms, sizeof(*c->mms), cmp_mm);
	nread = c->nmms;
	for (size_t i = 0; i < nprev && !err; i++) {
		bool first = !i || prev[i - 1].tgid != prev[i].tgid ||
			     prev[i - 1].gen != prev[i].gen;

		if (first && !find_mm(c->mms, nread, prev[i].tgid, prev[i].gen))
			err = push_mm(c, &prev[i]);
	}
	free(prev);
	if (c->nmms > nread)
		qsort(c->mms, c->nmms, sizeof(*c->mms), cmp_mm);
	return err;
}

int collector__keep_mms(struct collector *c, const struct fl_mm *mms, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		err = push_mm(c, &mms[i]);
	if (c->nmms > 1)
		qsort(c->mms, c->nmms, sizeof(*c->mms), cmp_mm);
	return err;
}

void collector_delete_keys(int fd, const void *keys, size_t n, size_t ksz)
{
	__u32 done = (__u32)n;

	if (!n || fd < 0)
		return;
	/* a batch stops at a key that is gone already; a kernel without the batch refuses it
	 * whole, the count untouched */
	if (bpf_map_delete_batch(fd, keys, &done, NULL)) {
		if (done >= n)
			done = 0;
		for (size_t i = done; i < n; i++)
			bpf_map_delete_elem(fd, (const char *)keys + i * ksz);
	}
}

/* The rows, with the mms their peaks need first, and those of retired processes moved. */
static int read_rows(struct collector *c)
{
	int err;

	c->nrows = 0;
	/* the mms first: a row read after its mm's peak moved is still resolved right */
	err = c->mm_fd < 0 ? 0 : read_mms(c);
	if (!err)
		err = collector_map_each(c->counts_fd, sizeof(struct fl_key),
					 sizeof(struct fl_counts), &c->no_batch, add_row, c);
	return err ? err : collector_move_retired(c);
}

/* The slot of @stack in the @cap (a power of two) slots @v, or the empty one where it goes. */
static struct collector_end *end_slot(struct collector_end *v, size_t cap, uint64_t stack)
{
	size_t mask = cap - 1, i = (size_t)(stack ^ stack >> 32) & mask;

	while (v[i].stack && v[i].stack != stack)
		i = (i + 1) & mask;
	return &v[i];
}

/* Room for one more end: the table doubles past half full. False when memory ran out. */
static bool ends_reserve(struct collector *c)
{
	size_t cap = c->ends_cap ? c->ends_cap * 2 : COLLECTOR_ENDS_MIN;
	struct collector_end *v;

	if ((c->nends + 1) * 2 <= c->ends_cap)
		return true;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return false;
	for (size_t i = 0; i < c->ends_cap; i++)
		if (c->ends[i].stack)
			*end_slot(v, cap, c->ends[i].stack) = c->ends[i];
	free(c->ends);
	c->ends = v;
	c->ends_cap = cap;
	return true;
}

/* Forgets the ends when they are far more than the rows (the stacks of rows gone). */
static void ends_trim(struct collector *c)
{
	if (c->nends <= 2 * c->nrows + COLLECTOR_ENDS_MIN)
		return;
	memset(c->ends, 0, c->ends_cap * sizeof(*c->ends));
	c->nends = 0;
}

/* Puts the retired rows after the live ones. */
static int add_retired(struct collector *c)
{
	size_t n;
	const struct fl_row *old = retired_rows__rows(c->retired, &n);

	if (!n) /* memcpy() from NULL, even of nothing, is undefined */
		return 0;
	if (c->nrows + n > c->rows_cap) {
		struct fl_row *v = realloc(c->rows, (c->nrows + n) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->rows = v;
		c->rows_cap = c->nrows + n;
	}
	memcpy(c->rows + c->nrows, old, n * sizeof(*old));
	c->nrows += n;
	return 0;
}

/* A read walks every bucket of the counts map (lookup and delete in batches): with -a, a
 * host's processes exit all the time, and a read at each wake-up cost a quarter of a core */
#define SWEEP_GAP_NS 100000000ull

int collector__sweep(struct collector *c)
{
	uint64_t now = pace__now();

	if (!c->to_move || now < c->swept_at + SWEEP_GAP_NS)
		return 0;
	c->swept_at = now;
	return read_rows(c);
}

int collector__read(struct collector *c)
{
	int err;

	err = read_rows(c);
	if (!err)
		err = add_retired(c);
	ends_trim(c);
	if (!err && c->live_fd >= 0)
		err = collector_alloc__read(c);
	return err;
}

void collector__set_mm_state(struct collector *c, int mm_fd)
{
	c->mm_fd = mm_fd;
}

void collector__set_procs(struct collector *c, int procs_fd)
{
	c->procs_fd = procs_fd;
}

static int add_proc(const void *key, const void *value, void *ctx)
{
	struct collector *c = ctx;
	struct collector_proc *v = grow__reserve(c->procs, &c->procs_cap, c->nprocs, sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->procs = v;
	v[c->nprocs].pid = (pid_t) * (const __u32 *)key;
	memcpy(&v[c->nprocs].p, value, sizeof(struct fl_proc));
	c->nprocs++;
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	pid_t x = ((const struct collector_proc *)a)->pid;
	pid_t y = ((const struct collector_proc *)b)->pid;

	return x < y ? -1 : x > y;
}

int collector__read_procs(struct collector *c)
{
	int err;

	c->nprocs = 0;
	err = collector_map_each(c->procs_fd, sizeof(__u32), sizeof(struct fl_proc), &c->no_batch,
				 add_proc, c);
	/* sorted: a key the walk returned twice (the map changed under it) is next to itself */
	if (c->nprocs > 1) /* procs is NULL before the first */
		qsort(c->procs, c->nprocs, sizeof(*c->procs), cmp_proc);
	return err;
}

const struct collector_proc *collector__procs(const struct collector *c, size_t *n)
{
	*n = c->nprocs;
	return c->procs;
}

const struct collector_proc *collector__proc(const struct collector *c, pid_t pid)
{
	struct collector_proc k = { .pid = pid };

	return c->nprocs ? bsearch(&k, c->procs, c->nprocs, sizeof(k), cmp_proc) : NULL;
}

const struct fl_row *collector__rows(const struct collector *c, size_t *n)
{
	*n = c->nrows;
	return c->rows;
}

int collector__window(struct collector *c, struct fl_row **out, struct fl_row **ends, size_t *n)
{
	if (!c->windows && !(c->windows = window_base__new()))
		return -ENOMEM;
	return window_base__since(c->windows, c->rows, c->nrows, out, ends, n);
}

int collector__window_mark(struct collector *c, window_counted_fn counted, void *ctx)
{
	if (!c->windows && !(c->windows = window_base__new()))
		return -ENOMEM;
	return window_base__mark(c->windows, c->rows, c->nrows, counted, ctx);
}

size_t collector__stack(const struct collector *c, uint64_t stack, uint64_t ips[FL_MAX_STACK_DEPTH],
			uint32_t *end)
{
	struct fl_stack st;
	size_t n = 0;

	if (!stack)
		return 0;
	n = retired_rows__stack(c->retired, stack, ips, end);
	if (n)
		return n;
	if (bpf_map_lookup_elem(c->stacks_fd, &stack, &st))
		return 0;
	while (n < FL_MAX_STACK_DEPTH && st.ips[n])
		n++;
	memcpy(ips, st.ips, n * sizeof(ips[0]));
	if (end)
		*end = st.end;
	return n;
}

int collector__stack_end(struct collector *c, uint64_t stack)
{
	uint64_t ips[FL_MAX_STACK_DEPTH];
	struct collector_end *e;
	uint32_t end;

	if (stack && c->ends_cap) {
		e = end_slot(c->ends, c->ends_cap, stack);
		if (e->stack)
			return (int)e->end;
	}
	if (!collector__stack(c, stack, ips, &end))
		return -ENOENT;
	/* out of memory: not remembered, read again next time */
	if (ends_reserve(c)) {
		*end_slot(c->ends, c->ends_cap, stack) = (struct collector_end){ stack, end };
		c->nends++;
	}
	return (int)end;
}

int collector__thread(const struct collector *c, uint32_t tid, struct fl_thread *out)
{
	return bpf_map_lookup_elem(c->threads_fd, &tid, out) ? -ENOENT : 0;
}
