// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/retention.h"
#include <string.h>

/* A mapping's anonymous bytes at @side, 0 when it was not there then. */
static int64_t anon_at(const struct inv_mapping *m, enum inv_side side)
{
	return m->seen[side] ? (int64_t)m->at[side].anon : 0;
}

void retention__compute(const struct inventory *inv, int64_t live_growth, struct retention *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < inv->n; i++) {
		const struct inv_mapping *m = &inv->v[i];
		int64_t d = anon_at(m, INV_AT_END) - anon_at(m, INV_AT_ATTACH);

		switch (m->owner) {
		case INV_OWNER_ALLOCATOR:
			out->allocator_growth += d;
			out->allocator_mappings++;
			break;
		case INV_OWNER_APPLICATION:
			out->app_growth += d;
			out->app_mappings++;
			break;
		default:
			if (d) {
				out->unknown_growth += d;
				out->unknown_mappings++;
			}
			break;
		}
	}
	out->holds = out->allocator_growth - live_growth;
}
