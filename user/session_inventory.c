// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The resident inventory of a target as the session ends, its mappings' callers named. */
#include "session_state.h"
#include "sites.h"
#include "trace/regions.h"

/* Names the stacks that mapped @t's mappings, as its memory calls are named (--vm). */
static void name_callers(struct session *s, struct target *t)
{
	struct inventory *inv = t->inventory;

	for (size_t i = 0; i < inv->n; i++) {
		struct fl_key key = { .tgid = (__u32)t->sum.pid, .stack = inv->v[i].mapped_by };
		const char *const *names;
		char text[256];
		size_t depth;

		if (!key.stack || inventory__caller(inv, key.stack))
			continue;
		depth = frames__get(s->frames, s->col, t->sym, &key, &names);
		if (!depth)
			continue;
		sites__name_caller(text, sizeof(text), names, depth, 4);
		if (inventory__name_caller(inv, key.stack, text))
			return;
	}
}

void session__read_inventory(struct session *s, struct target *t, bool paced)
{
	if (target__read_inventory(t, INV_AT_END, paced) || !t->inventory)
		return;
	/* the regions as they are now: one unmapped since is no mapping's */
	inventory__forget_origins(t->inventory);
	if (regions__note(tracer__regions_fd(s->tracer), t->sum.pid, t->inventory) > 0)
		name_callers(s, t);
}
