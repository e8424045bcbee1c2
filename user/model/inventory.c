// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/inventory.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "base/units.h"

static const char *const owner_names[] = {
	[INV_OWNER_UNKNOWN] = "unknown",
	[INV_OWNER_ALLOCATOR] = "allocator",
	[INV_OWNER_APPLICATION] = "application",
};

const char *inv_owner__name(enum inv_owner o)
{
	return (unsigned)o <= INV_OWNER_APPLICATION ? owner_names[o] : "?";
}

/* The heap and the main stack are one each: paired by kind, as their ends move. */
static bool one_of_a_kind(enum map_kind k)
{
	return k == MAPKIND_HEAP || k == MAPKIND_STACK;
}

/* The first mapping of @v (@n, sorted) that starts at or after @start. */
static size_t lower_bound(const struct inv_mapping *v, size_t n, uint64_t start)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The mapping among the first @n of @v that @e (of kind @k) is at another time, not yet
 * taken for @side; NULL: a new one. */
static struct inv_mapping *partner(struct inv_mapping *v, size_t n, enum inv_side side,
				   const struct smaps_entry *e, const struct map_kind_of *k)
{
	if (one_of_a_kind(k->kind)) {
		for (size_t i = 0; i < n; i++)
			if (v[i].kind.kind == k->kind && !v[i].seen[side])
				return &v[i];
		return NULL;
	}
	for (size_t i = lower_bound(v, n, e->start); i < n && v[i].start == e->start; i++)
		if (!v[i].seen[side] && v[i].kind.kind == k->kind && !strcmp(v[i].name, e->name))
			return &v[i];
	return NULL;
}

static void fill(struct inv_mapping *m, enum inv_side side, const struct smaps_entry *e,
		 const struct map_kind_of *k)
{
	struct inv_figures *f = &m->at[side];

	m->seen[side] = true;
	m->kind = *k;
	m->perms = e->perms;
	f->start = e->start;
	f->end = e->end;
	f->rss = e->rss;
	f->anon = e->anonymous;
	f->swap = e->swap;
	f->pss = e->pss;
	f->anon_huge = e->anon_huge;
	f->hugetlb = e->shared_hugetlb + e->private_hugetlb;
}

static int by_start(const void *a, const void *b)
{
	const struct inv_mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Who owns @m before the session says: the allocator for what only it makes. */
static enum inv_owner default_owner(const struct inv_mapping *m)
{
	if (m->kind.kind == MAPKIND_HEAP || m->kind.kind == MAPKIND_ARENA)
		return INV_OWNER_ALLOCATOR;
	/* glibc names its mmap'ed chunks so with glibc.mem.decorate_maps */
	if (m->kind.kind == MAPKIND_ANON && strstr(m->name, "glibc: malloc"))
		return INV_OWNER_ALLOCATOR;
	return INV_OWNER_UNKNOWN;
}

static int cmp_origin(const void *a, const void *b)
{
	const struct inv_origin *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The origin of @m among the origins (sorted by start): the one with the highest start at or
 * below @m's that reaches into it, else the first that starts inside it (regions the kernel
 * merged into one mapping). A lower one is not looked for: a region's record keeps its whole
 * length after part of it was unmapped (an arena trimming its tail), and what the kernel maps
 * there later has a record of its own, starting higher. NULL when none.
 */
static const struct inv_origin *origin_of(const struct inventory *inv, const struct inv_mapping *m)
{
	size_t lo = 0, hi = inv->norigins;

	while (lo < hi) { /* the first origin that starts above m */
		size_t mid = lo + (hi - lo) / 2;

		if (inv->origins[mid].start <= m->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && inv->origins[lo - 1].end > m->start)
		return &inv->origins[lo - 1];
	if (lo < inv->norigins && inv->origins[lo].start < m->end)
		return &inv->origins[lo];
	return NULL;
}

/* Whether a record of an anonymous region can say who made @m: files and shared memory are
 * no anonymous region's (an overlap is a record outliving its region). */
static bool takes_origin(const struct inv_mapping *m)
{
	switch (m->kind.kind) {
	case MAPKIND_HEAP:
	case MAPKIND_ARENA:
	case MAPKIND_THREAD_STACK:
	case MAPKIND_ANON:
	case MAPKIND_NO_ACCESS:
		return true;
	default:
		return false;
	}
}

/*
 * Whether @m keeps the allocator as owner by its shape though origin @o says otherwise: the
 * heap always; an arena when @o's region is as glibc maps one (HEAP_MAX_SIZE, or twice it to
 * align it, less the head it unmapped then), from inside free() too, which the probes do not mark as an allocator call. A
 * 64 MiB-aligned piece of a larger reservation (MariaDB's buffer pool inside 8 TiB of
 * PROT_NONE) has an arena's shape and is not one.
 */
static bool arena_by_shape(const struct inv_mapping *m, const struct inv_origin *o)
{
	uint64_t len = o->end - o->start;

	if (m->kind.kind == MAPKIND_HEAP)
		return true;
	return m->kind.kind == MAPKIND_ARENA && len >= MAPKIND_ARENA_SIZE &&
	       len <= 2 * MAPKIND_ARENA_SIZE;
}

static void apply_owners(struct inventory *inv)
{
	if (inv->norigins > 1) /* origins is NULL before the first */
		qsort(inv->origins, inv->norigins, sizeof(*inv->origins), cmp_origin);
	for (size_t i = 0; i < inv->n; i++) {
		struct inv_mapping *m = &inv->v[i];
		const struct inv_origin *o = takes_origin(m) ? origin_of(inv, m) : NULL;

		m->owner = default_owner(m);
		m->mapped_by = o ? o->stack : 0;
		if (o && !arena_by_shape(m, o))
			m->owner = o->owner;
	}
}

int inventory__take(struct inventory *inv, enum inv_side side, const struct smaps *m,
		    const struct map_kind_of *kinds, const struct inv_read *read)
{
	size_t old = inv->n, n = old, cap = old + m->n;
	struct inv_mapping *v = calloc(cap ? cap : 1, sizeof(*v));
	char **names = calloc(m->n ? m->n : 1, sizeof(*names));

	if (!v || !names)
		goto nomem;
	/* the new names first: nothing of @inv changes until nothing can fail */
	for (size_t i = 0; i < m->n; i++)
		if (!(names[i] = strdup(m->v[i].name)))
			goto nomem;
	if (old)
		memcpy(v, inv->v, old * sizeof(*v));
	for (size_t i = 0; i < old; i++) {
		v[i].seen[side] = false;
		memset(&v[i].at[side], 0, sizeof(v[i].at[side]));
	}
	for (size_t i = 0; i < m->n; i++) {
		struct inv_mapping *p = partner(v, old, side, &m->v[i], &kinds[i]);

		if (!p) {
			p = &v[n++];
			p->name = names[i];
			names[i] = NULL;
		}
		fill(p, side, &m->v[i], &kinds[i]);
	}
	/* what is gone from both reads goes; the range shown is the latest */
	inv->n = 0;
	for (size_t i = 0; i < n; i++) {
		struct inv_mapping *x = &v[i];
		enum inv_side last = x->seen[INV_AT_END] ? INV_AT_END : INV_AT_ATTACH;

		if (!x->seen[INV_AT_ATTACH] && !x->seen[INV_AT_END]) {
			free(x->name);
			continue;
		}
		x->start = x->at[last].start;
		x->end = x->at[last].end;
		v[inv->n++] = *x;
	}
	qsort(v, inv->n, sizeof(*v), by_start);
	free(inv->v);
	inv->v = v;
	inv->cap = cap;
	inv->reads[side] = *read;
	inv->reads[side].taken = true;
	inv->reads[side].nmappings = m->n;
	apply_owners(inv);
	for (size_t i = 0; i < m->n; i++)
		free(names[i]);
	free(names);
	return 0;
nomem:
	for (size_t i = 0; names && i < m->n; i++)
		free(names[i]);
	free(names);
	free(v);
	return -ENOMEM;
}

int inventory__note_origin(struct inventory *inv, uint64_t start, uint64_t end, int owner,
			   uint64_t stack)
{
	struct inv_origin o = { start, end, (enum inv_owner)owner, stack };

	return inventory__note_origins(inv, &o, 1);
}

int inventory__note_origins(struct inventory *inv, const struct inv_origin *v, size_t n)
{
	struct inv_origin *o;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].start >= v[i].end || v[i].owner < INV_OWNER_UNKNOWN ||
		    v[i].owner > INV_OWNER_APPLICATION)
			return -EINVAL;
	for (i = 0; i < n; i++) {
		o = grow__reserve(inv->origins, &inv->origins_cap, inv->norigins, sizeof(*o));
		if (!o)
			break;
		inv->origins = o;
		o[inv->norigins++] = v[i];
	}
	/* what was noted applies, whether or not all of it could be */
	apply_owners(inv);
	return i < n ? -ENOMEM : 0;
}

int inventory__name_caller(struct inventory *inv, uint64_t stack, const char *text)
{
	struct inv_caller *c;
	char *copy;

	if (!stack || inventory__caller(inv, stack))
		return 0;
	c = grow__reserve(inv->callers, &inv->callers_cap, inv->ncallers, sizeof(*c));
	if (!c)
		return -ENOMEM;
	inv->callers = c;
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	c[inv->ncallers++] = (struct inv_caller){ stack, copy };
	return 0;
}

const char *inventory__caller(const struct inventory *inv, uint64_t stack)
{
	/* the distinct stacks that mapped what a process holds: a handful */
	for (size_t i = 0; i < inv->ncallers; i++)
		if (inv->callers[i].stack == stack)
			return inv->callers[i].text;
	return NULL;
}

void inventory__forget_origins(struct inventory *inv)
{
	inv->norigins = 0;
	apply_owners(inv);
}

void inventory__totals(const struct inventory *inv, enum inv_side side, struct inv_figures *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < inv->n; i++) {
		const struct inv_figures *f = &inv->v[i].at[side];

		if (!inv->v[i].seen[side])
			continue;
		sum->rss += f->rss;
		sum->anon += f->anon;
		sum->swap += f->swap;
		sum->pss += f->pss;
		sum->anon_huge += f->anon_huge;
		sum->hugetlb += f->hugetlb;
	}
}

int64_t inventory__gap(const struct inventory *inv, enum inv_side side)
{
	const struct inv_read *r = &inv->reads[side];
	struct inv_figures sum;

	if (!r->taken || !r->have_vm_rss)
		return 0;
	inventory__totals(inv, side, &sum);
	return (int64_t)r->vm_rss - (int64_t)sum.rss;
}

const char *inventory__name(const struct inv_mapping *m, char *buf, size_t len)
{
	char size[UNITS_BUF];

	switch (m->kind.kind) {
	case MAPKIND_STACK:
		if (m->kind.tid)
			snprintf(buf, len, "[stack] main %.16s (%d)", m->kind.comm,
				 (int)m->kind.tid);
		else
			snprintf(buf, len, "[stack]");
		break;
	case MAPKIND_THREAD_STACK:
		if (m->kind.tid)
			snprintf(buf, len, "thread %.16s (%d)", m->kind.comm, (int)m->kind.tid);
		else
			/* cached by glibc for the next thread, or a running thread's: one row */
			snprintf(buf, len, "stacks of no live thread");
		break;
	case MAPKIND_ARENA:
		/* its read-write part and its reserve show as one arena, named by its start */
		snprintf(buf, len, "arena 0x%" PRIx64,
			 m->start & ~(uint64_t)(MAPKIND_ARENA_SIZE - 1));
		break;
	case MAPKIND_ANON:
	case MAPKIND_NO_ACCESS:
		/* each by itself: its range and size are what tell it */
		units__bytes(size, sizeof(size), m->end - m->start);
		snprintf(buf, len, "%s%s0x%" PRIx64 "-0x%" PRIx64 " (%s)", m->name,
			 m->name[0] ? " " : "", m->start, m->end, size);
		break;
	default:
		snprintf(buf, len, "%s", m->name);
		break;
	}
	return buf;
}

void inventory__free(struct inventory *inv)
{
	if (!inv)
		return;
	for (size_t i = 0; i < inv->n; i++)
		free(inv->v[i].name);
	free(inv->v);
	free(inv->origins);
	for (size_t i = 0; i < inv->ncallers; i++)
		free(inv->callers[i].text);
	free(inv->callers);
	memset(inv, 0, sizeof(*inv));
}
