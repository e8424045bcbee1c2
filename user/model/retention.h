/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * What the allocator holds (--alloc): the anonymous resident growth since attach of the
 * mappings the allocator owns (the heap, arenas, what its calls mapped during the session),
 * less the live heap's growth. Growth in the application's own mappings (a buffer pool it
 * mapped itself) is not the allocator's; growth in a mapping whose owner cannot be told (made
 * before attach by code not known, or during the session with no record) is named apart.
 */
#ifndef FAULTLINE_RETENTION_H
#define FAULTLINE_RETENTION_H

#include <stddef.h>
#include <stdint.h>
#include "model/inventory.h"

struct retention {
	int64_t allocator_growth;  /* anon growth of the allocator's mappings */
	size_t allocator_mappings; /* ... how many there were, at either read */
	int64_t holds;		   /* allocator_growth - the live heap's growth */
	int64_t app_growth;	   /* anon growth of the application's own mappings */
	size_t app_mappings;
	int64_t unknown_growth;	 /* anon growth of mappings whose owner cannot be told */
	size_t unknown_mappings; /* ... those of them that grew or shrank */
};

/* The retention of @inv, read at attach and at the end, with the live heap grown by
 * @live_growth bytes between. */
void retention__compute(const struct inventory *inv, int64_t live_growth, struct retention *out);

#endif /* FAULTLINE_RETENTION_H */
