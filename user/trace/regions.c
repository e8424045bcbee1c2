// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/regions.h"
#include <errno.h>
#include "faultline.h"
#include "trace/collector_state.h"

struct note_ctx {
	pid_t tgid;
	struct inventory *inv;
	int noted;
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
	int err;

	if (k->tgid != (__u32)n->tgid || !r->len || k->start + r->len < k->start)
		return 0;
	err = inventory__note_origin(n->inv, k->start, k->start + r->len, owner_of(r->owner),
				     r->stack);
	if (err)
		return err;
	n->noted++;
	return 0;
}

int regions__note(int fd, pid_t tgid, struct inventory *inv)
{
	struct note_ctx n = { .tgid = tgid, .inv = inv };
	bool no_batch = false;
	int err;

	if (fd < 0)
		return -ENOENT;
	err = collector_map_each(fd, sizeof(struct fl_region_key), sizeof(struct fl_region),
				 &no_batch, note_one, &n);
	return err ? err : n.noted;
}
