// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/regions.h"
#include <errno.h>
#include <stdlib.h>
#include "base/grow.h"
#include "faultline.h"
#include "trace/collector_state.h"

struct note_ctx {
	pid_t tgid;
	struct inv_origin *v; /* the process's regions, noted at once */
	size_t n, cap;
};

static enum inv_owner owner_of(__u16 owner)
{
	return owner == FL_OWNER_ALLOCATOR ? INV_OWNER_ALLOCATOR : INV_OWNER_APPLICATION;
}

static int note_one(const void *key, const void *value, void *ctx)
{
	const struct fl_region_key *k = key;
	const struct fl_region *r = value;
	struct note_ctx *n = ctx;
	struct inv_origin *v;

	if (k->tgid != (__u32)n->tgid || !r->len || k->start + r->len < k->start)
		return 0;
	v = grow__reserve(n->v, &n->cap, n->n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	n->v = v;
	v[n->n++] =
		(struct inv_origin){ k->start, k->start + r->len, owner_of(r->owner), r->stack };
	return 0;
}

int regions__note(int fd, pid_t tgid, struct inventory *inv)
{
	struct note_ctx n = { .tgid = tgid };
	bool no_batch = false;
	int err;

	if (fd < 0)
		return -ENOENT;
	err = collector_map_each(fd, sizeof(struct fl_region_key), sizeof(struct fl_region),
				 &no_batch, note_one, &n);
	if (!err && n.n)
		err = inventory__note_origins(inv, n.v, n.n);
	free(n.v);
	return err ? err : (int)n.n;
}
