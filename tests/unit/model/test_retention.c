/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The allocator's retention: anon growth of its mappings less the live heap's, the rest named. */
#include <criterion/criterion.h>
#include "model/retention.h"

#define MIB (1024LL * 1024LL)

/* A mapping of @owner with @attach and @end anonymous bytes (-1: not there then). */
static struct inv_mapping mapping(enum inv_owner owner, int64_t attach, int64_t end)
{
	struct inv_mapping m = { .owner = owner };

	m.seen[INV_AT_ATTACH] = attach >= 0;
	m.at[INV_AT_ATTACH].anon = attach >= 0 ? (uint64_t)attach : 0;
	m.seen[INV_AT_END] = end >= 0;
	m.at[INV_AT_END].anon = end >= 0 ? (uint64_t)end : 0;
	return m;
}

Test(retention, the_pool_is_not_the_allocators)
{
	struct inv_mapping v[] = {
		mapping(INV_OWNER_ALLOCATOR, 132 * 1024, 24 * MIB + 132 * 1024), /* [heap] */
		mapping(INV_OWNER_APPLICATION, -1, 32 * MIB),			 /* the pool */
		mapping(INV_OWNER_ALLOCATOR, -1, 2 * MIB),			 /* a large block */
		mapping(INV_OWNER_UNKNOWN, 8 * MIB, 10 * MIB), /* before attach, grew */
		mapping(INV_OWNER_UNKNOWN, 1 * MIB, 1 * MIB),  /* before attach, still */
	};
	struct inventory inv = { .v = v, .n = 5 };
	struct retention r;

	retention__compute(&inv, 6 * MIB, &r);
	cr_expect_eq(r.allocator_growth, 26 * MIB);
	cr_expect_eq(r.allocator_mappings, 2);
	cr_expect_eq(r.holds, 20 * MIB, "heap and block growth less the live heap's");
	cr_expect_eq(r.app_growth, 32 * MIB);
	cr_expect_eq(r.app_mappings, 1);
	cr_expect_eq(r.unknown_growth, 2 * MIB);
	cr_expect_eq(r.unknown_mappings, 1, "a mapping that did not change is not named");
}

Test(retention, an_unmapped_arena_gives_back)
{
	struct inv_mapping v[] = {
		mapping(INV_OWNER_ALLOCATOR, 8 * MIB, -1), /* an arena gone since */
		mapping(INV_OWNER_ALLOCATOR, 1 * MIB, 2 * MIB),
	};
	struct inventory inv = { .v = v, .n = 2 };
	struct retention r;

	retention__compute(&inv, -3 * MIB, &r);
	cr_expect_eq(r.allocator_growth, -7 * MIB);
	cr_expect_eq(r.holds, -4 * MIB, "freed blocks given back with their arena");
}
