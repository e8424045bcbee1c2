// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "treecache.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "stackpath.h"

/* One path placed in the tree: its signature and the leaf it reached. */
struct kept_path {
	uint64_t sig; /* 0: a free slot */
	struct pnode *leaf;
	unsigned round; /* the last round that brought it */
};

/* Open addressing, linear probing; grown at half full. */
struct treecache {
	struct profile *p;
	struct kept_path *slots;
	size_t cap, used;
	unsigned round;
	size_t seen; /* the kept paths this round brought */
	uint64_t stamp;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

static uint64_t mix_text(uint64_t h, const char *s)
{
	uint64_t t = 0xcbf29ce484222325ull;

	for (; s && *s; s++)
		t = (t ^ (unsigned char)*s) * 0x100000001b3ull;
	return mix(h, t);
}

/* What the path is made of: the text of the frames without lines (process and thread names
 * change), the addresses of the others' name and lines. Never 0. */
static uint64_t signature(const char *const *path, const struct frame_info *const *infos,
			  size_t depth)
{
	uint64_t h = mix(0, depth);

	for (size_t i = 0; i < depth; i++) {
		if (!infos[i]) {
			h = mix_text(h, path[i]);
			continue;
		}
		h = mix(h, (uintptr_t)path[i]);
		h = mix(h, (uintptr_t)infos[i]->lines);
		h = mix(h, infos[i]->nlines);
	}
	return h ? h : 1;
}

static size_t slot_of(const struct kept_path *slots, size_t cap, uint64_t sig)
{
	size_t i = (size_t)(sig >> 7) & (cap - 1);

	while (slots[i].sig && slots[i].sig != sig)
		i = (i + 1) & (cap - 1);
	return i;
}

static int reserve(struct treecache *tc)
{
	size_t cap = tc->cap ? tc->cap * 2 : 1024;
	struct kept_path *slots;

	if ((tc->used + 1) * 2 <= tc->cap)
		return 0;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < tc->cap; i++)
		if (tc->slots[i].sig)
			slots[slot_of(slots, cap, tc->slots[i].sig)] = tc->slots[i];
	free(tc->slots);
	tc->slots = slots;
	tc->cap = cap;
	return 0;
}

struct treecache *treecache__new(void)
{
	struct treecache *tc = calloc(1, sizeof(*tc));

	if (tc && !(tc->p = profile__new())) {
		free(tc);
		return NULL;
	}
	return tc;
}

void treecache__free(struct treecache *tc)
{
	if (!tc)
		return;
	profile__free(tc->p);
	free(tc->slots);
	free(tc);
}

static void forget_paths(struct treecache *tc)
{
	if (tc->slots)
		memset(tc->slots, 0, tc->cap * sizeof(*tc->slots));
	tc->used = 0;
	tc->seen = 0;
}

/* No path kept, an empty tree. 0 or -ENOMEM (then nothing changed). */
static int start_over(struct treecache *tc)
{
	struct profile *p = profile__new();

	if (!p)
		return -ENOMEM;
	profile__free(tc->p);
	tc->p = p;
	forget_paths(tc);
	return 0;
}

int treecache__begin(struct treecache *tc, uint64_t stamp)
{
	tc->round++;
	tc->seen = 0;
	if (stamp != tc->stamp) {
		tc->stamp = stamp;
		return start_over(tc);
	}
	/* the totals are all made again by profile__sum() */
	for (size_t i = 0; i < tc->cap; i++)
		if (tc->slots[i].sig)
			memset(&tc->slots[i].leaf->self, 0, sizeof(tc->slots[i].leaf->self));
	tc->p->saturated = false;
	return 0;
}

int treecache__add(struct treecache *tc, const char *const *path,
		   const struct frame_info *const *infos, size_t depth, bool inline_frames,
		   const struct fl_counts *c)
{
	uint64_t sig = signature(path, infos, depth);
	struct kept_path *k;
	struct pnode *leaf;
	int err = reserve(tc);

	if (err)
		return err;
	k = &tc->slots[slot_of(tc->slots, tc->cap, sig)];
	if (!k->sig) {
		err = stackpath__leaf(tc->p, path, infos, depth, inline_frames, &leaf);
		if (err)
			return err;
		*k = (struct kept_path){ .sig = sig, .leaf = leaf };
		tc->used++;
	}
	if (k->round != tc->round) {
		k->round = tc->round;
		tc->seen++;
	}
	profile__add_self(tc->p, k->leaf, c);
	return 0;
}

int treecache__end(struct treecache *tc)
{
	int err;

	if (tc->seen != tc->used) {
		err = start_over(tc);
		return err ? err : -EAGAIN;
	}
	profile__sum(tc->p);
	return 0;
}

struct profile *treecache__profile(const struct treecache *tc)
{
	return tc->p;
}

struct profile *treecache__take(struct treecache *tc)
{
	struct profile *p = tc->p;

	tc->p = profile__new();
	if (!tc->p) {
		tc->p = p;
		return NULL;
	}
	forget_paths(tc);
	return p;
}
