/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The profile model: metrics over struct fl_counts and the call tree.
 *
 * Children are found through one hash table per profile keyed by (parent, name), not by
 * scanning the children array: a process node can have thousands of distinct callers below it
 * and a profile 100k stacks, so a linear scan per frame would be quadratic.
 */
#include "model/profile.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"

static const char *const metric_names[FL_METRIC__COUNT] = {
	[FL_METRIC_RESIDENT] = "resident",
	[FL_METRIC_ANON] = "anon",
	[FL_METRIC_FILE] = "file",
	[FL_METRIC_SHMEM] = "shmem",
	[FL_METRIC_SWAP] = "swap",
	[FL_METRIC_FAULTS] = "faults",
	[FL_METRIC_RELEASED] = "released",
	[FL_METRIC_ALLOC_BYTES] = "alloc-bytes",
	[FL_METRIC_ALLOC_COUNT] = "alloc-count",
	[FL_METRIC_LIVE_BYTES] = "live-bytes",
	[FL_METRIC_LIVE_COUNT] = "live-count",
	[FL_METRIC_PEAK] = "peak",
	[FL_METRIC_RESERVED] = "reserved",
	[FL_METRIC_UNMAPPED] = "unmapped",
	[FL_METRIC_NEW] = "new",
};

int metric__parse(const char *name, enum fl_metric *out)
{
	int i;

	if (!name)
		return -EINVAL;
	for (i = 0; i < FL_METRIC__COUNT; i++) {
		if (strcmp(name, metric_names[i]) == 0) {
			*out = (enum fl_metric)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *metric__name(enum fl_metric m)
{
	return (unsigned)m < FL_METRIC__COUNT ? metric_names[m] : "unknown";
}

bool metric__is_bytes(enum fl_metric m)
{
	return m != FL_METRIC_FAULTS && m != FL_METRIC_ALLOC_COUNT && m != FL_METRIC_LIVE_COUNT;
}

bool metric__needs_alloc(enum fl_metric m)
{
	return m >= FL_METRIC_ALLOC_BYTES && m <= FL_METRIC_LIVE_COUNT;
}

bool metric__needs_frees(enum fl_metric m)
{
	return m == FL_METRIC_LIVE_BYTES || m == FL_METRIC_LIVE_COUNT;
}

bool metric__is_level(enum fl_metric m)
{
	return m == FL_METRIC_LIVE_BYTES || m == FL_METRIC_LIVE_COUNT;
}

bool metric__needs_vm(enum fl_metric m)
{
	return m == FL_METRIC_RESERVED || m == FL_METRIC_UNMAPPED;
}

bool metric__needs_new(enum fl_metric m)
{
	return m == FL_METRIC_NEW;
}

/* allocated - freed, never below 0: a free racing its allocation's read can pass it */
static uint64_t live(uint64_t allocated, uint64_t freed)
{
	return allocated > freed ? allocated - freed : 0;
}

/* a + b + c, held at UINT64_MAX */
static uint64_t sum3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t s;

	if (__builtin_add_overflow(a, b, &s) || __builtin_add_overflow(s, c, &s))
		return UINT64_MAX;
	return s;
}

uint64_t metric__value(const struct fl_counts *c, enum fl_metric m)
{
	switch (m) {
	case FL_METRIC_RESIDENT:
		return sum3(c->grow[FL_ANON], c->grow[FL_FILE], c->grow[FL_SHMEM]);
	case FL_METRIC_ANON:
		return c->grow[FL_ANON];
	case FL_METRIC_FILE:
		return c->grow[FL_FILE];
	case FL_METRIC_SHMEM:
		return c->grow[FL_SHMEM];
	case FL_METRIC_SWAP:
		return c->grow[FL_SWAP];
	case FL_METRIC_FAULTS:
		return c->faults;
	case FL_METRIC_RELEASED:
		return sum3(c->release[FL_ANON], c->release[FL_FILE], c->release[FL_SHMEM]);
	case FL_METRIC_ALLOC_BYTES:
		return c->alloc_bytes;
	case FL_METRIC_ALLOC_COUNT:
		return c->allocs;
	case FL_METRIC_LIVE_BYTES:
		return live(c->alloc_bytes, c->free_bytes);
	case FL_METRIC_LIVE_COUNT:
		return live(c->allocs, c->frees);
	case FL_METRIC_PEAK: /* resolved by the snapshot: the net at the peak */
		return c->at_peak > 0 ? (uint64_t)c->at_peak : 0;
	case FL_METRIC_RESERVED:
		return c->reserved;
	case FL_METRIC_UNMAPPED:
		return c->unmapped;
	case FL_METRIC_NEW:
		return c->new_bytes;
	default:
		return 0;
	}
}

struct fl_counts metric__counts(enum fl_metric m, uint64_t v)
{
	struct fl_counts c = { 0 };

	switch (m) {
	case FL_METRIC_RESIDENT:
	case FL_METRIC_ANON:
		c.grow[FL_ANON] = v;
		break;
	case FL_METRIC_FILE:
		c.grow[FL_FILE] = v;
		break;
	case FL_METRIC_SHMEM:
		c.grow[FL_SHMEM] = v;
		break;
	case FL_METRIC_SWAP:
		c.grow[FL_SWAP] = v;
		break;
	case FL_METRIC_FAULTS:
		c.faults = v;
		break;
	case FL_METRIC_RELEASED:
		c.release[FL_ANON] = v;
		break;
	case FL_METRIC_ALLOC_BYTES:
	case FL_METRIC_LIVE_BYTES:
		c.alloc_bytes = v;
		break;
	case FL_METRIC_ALLOC_COUNT:
	case FL_METRIC_LIVE_COUNT:
		c.allocs = v;
		break;
	case FL_METRIC_PEAK:
		c.at_peak = (int64_t)v;
		break;
	case FL_METRIC_RESERVED:
		c.reserved = v;
		break;
	case FL_METRIC_UNMAPPED:
		c.unmapped = v;
		break;
	case FL_METRIC_NEW:
		c.new_bytes = v;
		break;
	default:
		break;
	}
	return c;
}

/* *@dst += @v, held at UINT64_MAX instead of wrapping: true when it was. */
static bool add_sat(__u64 *dst, __u64 v)
{
	if (!__builtin_add_overflow(*dst, v, dst))
		return false;
	*dst = UINT64_MAX;
	return true;
}

/* ... signed, held at INT64_MAX or INT64_MIN (a signed overflow is undefined). */
static bool add_sat_s64(__s64 *dst, __s64 v)
{
	if (!__builtin_add_overflow(*dst, v, dst))
		return false;
	*dst = v > 0 ? INT64_MAX : INT64_MIN;
	return true;
}

bool counts__add(struct fl_counts *dst, const struct fl_counts *src)
{
	bool sat = false;
	int i;

	for (i = 0; i < FL_MEMBERS; i++) {
		sat |= add_sat(&dst->grow[i], src->grow[i]);
		sat |= add_sat(&dst->release[i], src->release[i]);
	}
	sat |= add_sat(&dst->faults, src->faults);
	sat |= add_sat(&dst->write_faults, src->write_faults);
	sat |= add_sat(&dst->allocs, src->allocs);
	sat |= add_sat(&dst->alloc_bytes, src->alloc_bytes);
	sat |= add_sat(&dst->frees, src->frees);
	sat |= add_sat(&dst->free_bytes, src->free_bytes);
	sat |= add_sat(&dst->unmatched_frees, src->unmatched_frees);
	sat |= add_sat_s64(&dst->at_peak, src->at_peak);
	sat |= add_sat(&dst->reserved, src->reserved);
	sat |= add_sat(&dst->unmapped, src->unmapped);
	sat |= add_sat(&dst->advised, src->advised);
	sat |= add_sat(&dst->vm_calls, src->vm_calls);
	sat |= add_sat(&dst->vm_failed, src->vm_failed);
	sat |= add_sat(&dst->new_bytes, src->new_bytes);
	return sat;
}

static void sub_floor(__u64 *v, __u64 base)
{
	*v = *v > base ? *v - base : 0;
}

void counts__since(struct fl_counts *c, const struct fl_counts *base)
{
	for (int i = 0; i < FL_MEMBERS; i++) {
		sub_floor(&c->grow[i], base->grow[i]);
		sub_floor(&c->release[i], base->release[i]);
	}
	sub_floor(&c->faults, base->faults);
	sub_floor(&c->write_faults, base->write_faults);
	sub_floor(&c->allocs, base->allocs);
	sub_floor(&c->alloc_bytes, base->alloc_bytes);
	sub_floor(&c->frees, base->frees);
	sub_floor(&c->free_bytes, base->free_bytes);
	sub_floor(&c->unmatched_frees, base->unmatched_frees);
	c->at_peak = 0;
	c->peak_seq = 0;
	sub_floor(&c->reserved, base->reserved);
	sub_floor(&c->unmapped, base->unmapped);
	sub_floor(&c->advised, base->advised);
	sub_floor(&c->vm_calls, base->vm_calls);
	sub_floor(&c->vm_failed, base->vm_failed);
	sub_floor(&c->new_bytes, base->new_bytes);
}

bool counts__is_zero(const struct fl_counts *c)
{
	static const struct fl_counts zero;
	struct fl_counts x = *c;

	x.peak_seq = 0;
	return !memcmp(&x, &zero, sizeof(x));
}

struct profile *profile__new(void)
{
	return calloc(1, sizeof(struct profile));
}

static void node_free(struct pnode *n)
{
	free(n->src);
	free(n->children);
	free(n);
}

void profile__free(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nslots; i++) {
		if (p->slots[i])
			node_free(p->slots[i]);
	}
	free(p->slots);
	free(p->root.children);
	free(p);
}

/* FNV-1a over the name, the parent's address mixed in, then murmur3's finalizer. */
static size_t node_hash(const struct pnode *parent, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const unsigned char *s;

	for (s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 0x100000001b3ULL;
	h ^= (uint64_t)(uintptr_t)parent;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h;
}

/* The slot holding (@parent, @name), or the empty slot where it belongs. nslots must be > 0. */
static struct pnode **slot_find(const struct profile *p, const struct pnode *parent,
				const char *name)
{
	size_t mask = p->nslots - 1;
	size_t i = node_hash(parent, name) & mask;

	while (p->slots[i]) {
		if (p->slots[i]->parent == parent && strcmp(p->slots[i]->name, name) == 0)
			break;
		i = (i + 1) & mask;
	}
	return &p->slots[i];
}

/* Keeps the table at most 3/4 full so that probes stay short. */
static int slots_reserve(struct profile *p)
{
	struct pnode **old = p->slots;
	size_t oldn = p->nslots, i;

	if ((p->nnodes + 1) * 4 <= p->nslots * 3)
		return 0;
	p->nslots = oldn ? oldn * 2 : 64;
	p->slots = calloc(p->nslots, sizeof(*p->slots));
	if (!p->slots) {
		p->slots = old;
		p->nslots = oldn;
		return -ENOMEM;
	}
	for (i = 0; i < oldn; i++) {
		if (old[i])
			*slot_find(p, old[i]->parent, old[i]->name) = old[i];
	}
	free(old);
	return 0;
}

static int child_append(struct pnode *parent, struct pnode *child)
{
	struct pnode **children =
		grow__reserve(parent->children, &parent->cap, parent->nchildren, sizeof(*children));

	if (!children)
		return -ENOMEM;
	parent->children = children;
	parent->children[parent->nchildren++] = child;
	return 0;
}

/* The child @name of @parent, created with zero counts when missing; NULL on ENOMEM. */
static struct pnode *child_get(struct profile *p, struct pnode *parent, const char *name)
{
	struct pnode **slot, *n;
	size_t len = strlen(name);

	if (slots_reserve(p))
		return NULL;
	slot = slot_find(p, parent, name);
	if (*slot)
		return *slot;
	/* The name lives in the same allocation as the node. */
	n = calloc(1, sizeof(*n) + len + 1);
	if (!n)
		return NULL;
	n->name = (char *)(n + 1);
	memcpy(n->name, name, len + 1);
	n->parent = parent;
	if (child_append(parent, n)) {
		free(n);
		return NULL;
	}
	*slot = n;
	p->nnodes++;
	return n;
}

int profile__add(struct profile *p, const char *const *frames, size_t n, const struct fl_counts *c)
{
	return profile__add_src(p, frames, NULL, n, c);
}

/* Gives @node its source line @src: the first one, or none once two stacks disagree. */
static int set_src(struct pnode *node, const char *src)
{
	if (node->src_mixed)
		return 0;
	if (!node->src_seen) {
		node->src_seen = true;
		node->src = src ? strdup(src) : NULL;
		return src && !node->src ? -ENOMEM : 0;
	}
	if ((!src && !node->src) || (src && node->src && !strcmp(src, node->src)))
		return 0;
	free(node->src);
	node->src = NULL;
	node->src_mixed = true;
	return 0;
}

int profile__path(struct profile *p, const char *const *frames, const char *const *srcs, size_t n,
		  struct pnode **leaf)
{
	struct pnode *node = &p->root;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		node = child_get(p, node, frames[i] ? frames[i] : "[unknown]");
		if (!node)
			return -ENOMEM;
	}
	for (struct pnode *up = node; srcs && up != &p->root; up = up->parent)
		if (set_src(up, srcs[--i]))
			return -ENOMEM;
	if (!node->leaf) {
		node->leaf = true;
		p->nstacks++;
	}
	*leaf = node;
	return 0;
}

int profile__add_src(struct profile *p, const char *const *frames, const char *const *srcs,
		     size_t n, const struct fl_counts *c)
{
	struct pnode *node;
	/* the whole path first, so that a failure leaves every count unchanged */
	int err = profile__path(p, frames, srcs, n, &node);

	if (err)
		return err;
	if (counts__add(&node->self, c))
		p->saturated = true;
	for (; node; node = node->parent)
		if (counts__add(&node->total, c))
			p->saturated = true;
	return 0;
}

void profile__add_self(struct profile *p, struct pnode *leaf, const struct fl_counts *c)
{
	if (counts__add(&leaf->self, c))
		p->saturated = true;
}

/* @n's total: its self and its children's totals (the depth is a stack's, at most a few
 * hundred frames). */
static void node_sum(struct profile *p, struct pnode *n)
{
	/* only a stack's end has a self: the others' is not read (a cache line less each) */
	if (n->leaf)
		n->total = n->self;
	else
		memset(&n->total, 0, sizeof(n->total));
	for (size_t i = 0; i < n->nchildren; i++) {
		node_sum(p, n->children[i]);
		if (counts__add(&n->total, &n->children[i]->total))
			p->saturated = true;
	}
}

void profile__sum(struct profile *p)
{
	node_sum(p, &p->root);
}

static int name_cmp(const void *a, const void *b)
{
	const struct pnode *x = *(const struct pnode *const *)a;
	const struct pnode *y = *(const struct pnode *const *)b;
	int r = strcmp(x->name, y->name);

	return r < 0 ? -1 : r > 0;
}

int pnode__cmp_weight(const void *a, const void *b, void *metric)
{
	const struct pnode *x = *(const struct pnode *const *)a;
	const struct pnode *y = *(const struct pnode *const *)b;
	enum fl_metric m = *(const enum fl_metric *)metric;
	uint64_t vx = metric__value(&x->total, m), vy = metric__value(&y->total, m);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return name_cmp(a, b);
}

int pnode__children_by_name(const struct pnode *n, const struct pnode ***out, size_t *count)
{
	*out = NULL;
	*count = n ? n->nchildren : 0;
	if (!*count)
		return 0;
	*out = malloc(*count * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, n->children, *count * sizeof(**out));
	qsort(*out, *count, sizeof(**out), name_cmp);
	return 0;
}

static void children_sort(struct pnode *n, enum fl_metric m)
{
	if (n->nchildren > 1)
		qsort_r(n->children, n->nchildren, sizeof(*n->children), pnode__cmp_weight, &m);
}

void profile__sort(struct profile *p, enum fl_metric m)
{
	size_t i;

	/* Every node but the root is in the table: no recursion needed. */
	children_sort(&p->root, m);
	for (i = 0; i < p->nslots; i++) {
		if (p->slots[i])
			children_sort(p->slots[i], m);
	}
}
