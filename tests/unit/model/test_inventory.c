/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "model/inventory.h"

#define KIB 1024ULL
#define MIB (1024ULL * 1024)

static struct smaps_entry anon(uint64_t start, uint64_t end, uint64_t rss, char *name)
{
	return (struct smaps_entry){ .start = start,
				     .end = end,
				     .perms = SMAPS_READ | SMAPS_WRITE,
				     .name = name,
				     .rss = rss,
				     .pss = rss,
				     .anonymous = rss };
}

/* Takes @n entries of @v, classified, as @side of @inv with VmRSS @vm_rss. */
static void take(struct inventory *inv, enum inv_side side, struct smaps_entry *v, size_t n,
		 uint64_t vm_rss)
{
	struct smaps m = { .v = v, .n = n };
	struct map_kind_of k[8];
	struct map_kind_hints h = {};
	struct inv_read r = { .have_vm_rss = true, .vm_rss = vm_rss, .cost_ns = 1000 };

	cr_assert_leq(n, 8);
	mapkind__classify(&m, &h, k);
	cr_assert_eq(inventory__take(inv, side, &m, k, &r), 0);
}

static const struct inv_mapping *find(const struct inventory *inv, uint64_t start)
{
	for (size_t i = 0; i < inv->n; i++)
		if (inv->v[i].start == start)
			return &inv->v[i];
	return NULL;
}

/* At attach: the heap, a pool, a mapping later unmapped. At the end: the heap grown, the pool
 * the same, a new mapping. Each pairs with itself; the gone and the new have one side. */
Test(inventory, attach_and_end_paired)
{
	char heap[] = "[heap]", none[] = "", pool[] = "[anon:pool]";
	struct smaps_entry at[] = {
		anon(0x1000000, 0x1100000, 512 * KIB, heap),
		anon(0x7f0000000000, 0x7f0002000000, 32 * MIB, pool),
		anon(0x7f0003000000, 0x7f0003100000, 1 * MIB, none),
	};
	struct smaps_entry end[] = {
		anon(0x1000000, 0x1300000, 2 * MIB, heap),
		anon(0x7f0000000000, 0x7f0002000000, 32 * MIB, pool),
		anon(0x7f0004000000, 0x7f0004800000, 8 * MIB, none),
	};
	struct inventory inv = {};
	struct inv_figures sum;
	const struct inv_mapping *m;

	take(&inv, INV_AT_ATTACH, at, 3, 33 * MIB + 512 * KIB + 4 * KIB);
	take(&inv, INV_AT_END, end, 3, 42 * MIB);
	cr_assert_eq(inv.n, 4);
	m = find(&inv, 0x1000000);
	cr_assert_not_null(m);
	cr_expect_eq(m->kind.kind, MAPKIND_HEAP);
	cr_expect(m->seen[INV_AT_ATTACH] && m->seen[INV_AT_END]);
	cr_expect_eq(m->end, 0x1300000, "the range shown is the latest");
	cr_expect_eq(m->at[INV_AT_ATTACH].end, 0x1100000);
	cr_expect_eq(m->at[INV_AT_ATTACH].rss, 512 * KIB);
	cr_expect_eq(m->at[INV_AT_END].rss, 2 * MIB);
	cr_expect_eq(m->owner, INV_OWNER_ALLOCATOR, "the heap is the allocator's");
	m = find(&inv, 0x7f0000000000);
	cr_expect(m->seen[INV_AT_ATTACH] && m->seen[INV_AT_END]);
	cr_expect_eq(m->owner, INV_OWNER_UNKNOWN);
	m = find(&inv, 0x7f0003000000);
	cr_expect(m->seen[INV_AT_ATTACH] && !m->seen[INV_AT_END], "unmapped by the end");
	m = find(&inv, 0x7f0004000000);
	cr_expect(!m->seen[INV_AT_ATTACH] && m->seen[INV_AT_END], "new since attach");
	inventory__totals(&inv, INV_AT_ATTACH, &sum);
	cr_expect_eq(sum.rss, 33 * MIB + 512 * KIB);
	cr_expect_eq(inventory__gap(&inv, INV_AT_ATTACH), 4 * KIB);
	inventory__totals(&inv, INV_AT_END, &sum);
	cr_expect_eq(sum.rss, 42 * MIB);
	cr_expect_eq(inventory__gap(&inv, INV_AT_END), 0);
	cr_expect_eq(inv.reads[INV_AT_END].nmappings, 3);
	/* read again (the live view): replaces the end side, keeps attach */
	take(&inv, INV_AT_END, end, 1, 2 * MIB);
	cr_expect_eq(inv.n, 3, "the new one is gone, the unmapped one stays for its attach side");
	cr_expect_null(find(&inv, 0x7f0004000000));
	inventory__free(&inv);
	cr_expect_eq(inv.n, 0);
}

/* The lead's hook: an origin noted applies now and to every read after. */
Test(inventory, note_origin)
{
	char none[] = "";
	struct smaps_entry v[] = {
		anon(0x7f0000000000, 0x7f0000100000, 1 * MIB, none),
		anon(0x7f0000200000, 0x7f0000300000, 1 * MIB, none),
	};
	struct inventory inv = {};

	take(&inv, INV_AT_ATTACH, v, 2, 2 * MIB);
	cr_expect_eq(inventory__note_origin(&inv, 0x7f0000200000, 0x7f0000300000,
					    INV_OWNER_APPLICATION, 0xabcdef),
		     0);
	cr_expect_eq(inv.v[0].owner, INV_OWNER_UNKNOWN);
	cr_expect_eq(inv.v[0].mapped_by, 0);
	cr_expect_eq(inv.v[1].owner, INV_OWNER_APPLICATION);
	cr_expect_eq(inv.v[1].mapped_by, 0xabcdef);
	take(&inv, INV_AT_END, v, 2, 2 * MIB);
	cr_expect_eq(inv.v[1].owner, INV_OWNER_APPLICATION, "kept across reads");
	cr_expect_eq(inventory__note_origin(&inv, 5, 5, INV_OWNER_ALLOCATOR, 1), -EINVAL);
	cr_expect_eq(inventory__note_origin(&inv, 5, 6, 7, 1), -EINVAL);
	inventory__free(&inv);
}

/*
 * An arena region recorded at 128 MiB whose tail glibc unmapped keeps its record's length; a
 * buffer pool mapped later in that tail has a record of its own, which must win over the
 * stale one (whatever order the records come in); a file mapped there takes no region's.
 */
Test(inventory, a_stale_record_loses_to_the_mappings_own)
{
	char none[] = "", lib[] = "/usr/lib/libx.so";
	const uint64_t base = 0x7f0000000000;
	struct smaps_entry v[] = {
		anon(base, base + 32 * MIB, 32 * MIB, none),		/* what is left of it */
		anon(base + 64 * MIB, base + 96 * MIB, 32 * MIB, none), /* the pool, later */
		anon(base + 100 * MIB, base + 101 * MIB, 0, lib),
	};
	struct inv_origin o[] = {
		{ base + 64 * MIB, base + 96 * MIB, INV_OWNER_APPLICATION, 0x2 },
		{ base, base + 128 * MIB, INV_OWNER_ALLOCATOR, 0x1 },
	};
	struct inventory inv = {};

	v[2].anonymous = 0;
	v[2].inode = 77;
	take(&inv, INV_AT_END, v, 3, 64 * MIB);
	cr_assert_eq(inventory__note_origins(&inv, o, 2), 0);
	cr_expect_eq(find(&inv, base)->owner, INV_OWNER_ALLOCATOR);
	cr_expect_eq(find(&inv, base + 64 * MIB)->owner, INV_OWNER_APPLICATION);
	cr_expect_eq(find(&inv, base + 64 * MIB)->mapped_by, 0x2);
	cr_expect_eq(find(&inv, base + 100 * MIB)->mapped_by, 0, "a file is no region's");
	inventory__free(&inv);
}

/* glibc makes an arena from inside free(), which the probes do not count as an allocator
 * call: the region's record says application, the arena's shape says allocator. */
Test(inventory, an_arena_stays_the_allocators)
{
	char none[] = "";
	const uint64_t base = 0x7f0004000000; /* 64 MiB-aligned */
	struct smaps_entry v[] = {
		anon(base, base + 2 * MIB, 2 * MIB, none),
		anon(base + 2 * MIB, base + 64 * MIB, 0, none),
	};
	struct inv_origin o = { base, base + 64 * MIB, INV_OWNER_APPLICATION, 0x3 };
	struct inventory inv = {};

	v[1].perms = 0; /* its PROT_NONE reserve */
	take(&inv, INV_AT_END, v, 2, 2 * MIB);
	cr_assert_eq(find(&inv, base)->kind.kind, MAPKIND_ARENA);
	cr_assert_eq(inventory__note_origins(&inv, &o, 1), 0);
	cr_expect_eq(find(&inv, base)->owner, INV_OWNER_ALLOCATOR);
	cr_expect_eq(find(&inv, base)->mapped_by, 0x3, "its stack still says who mapped it");
	/* the same shape cut out of a 1 GiB reservation the application made: its own */
	o.end = base + 1024 * MIB;
	inv.norigins = 0;
	cr_assert_eq(inventory__note_origins(&inv, &o, 1), 0);
	cr_expect_eq(find(&inv, base)->owner, INV_OWNER_APPLICATION);
	inventory__free(&inv);
}

Test(inventory, names)
{
	char none[] = "", pool[] = "[anon:pool]", lib[] = "/lib/libc.so.6";
	struct inv_mapping m = { .start = 0x7f0000000000, .end = 0x7f0002000000, .name = none };
	char buf[128];

	m.kind.kind = MAPKIND_ANON;
	cr_expect_str_eq(inventory__name(&m, buf, sizeof(buf)),
			 "0x7f0000000000-0x7f0002000000 (32.0 MiB)");
	m.name = pool;
	cr_expect_str_eq(inventory__name(&m, buf, sizeof(buf)),
			 "[anon:pool] 0x7f0000000000-0x7f0002000000 (32.0 MiB)");
	m.kind = (struct map_kind_of){ .kind = MAPKIND_THREAD_STACK, .tid = 42, .comm = "w" };
	cr_expect_str_eq(inventory__name(&m, buf, sizeof(buf)), "thread w (42)");
	m.kind.kind = MAPKIND_ARENA;
	m.start = 0x7f0000800000;
	cr_expect_str_eq(inventory__name(&m, buf, sizeof(buf)), "arena 0x7f0000000000",
			 "the reserve is named by its arena's start");
	m.kind = (struct map_kind_of){ .kind = MAPKIND_FILE };
	m.name = lib;
	cr_expect_str_eq(inventory__name(&m, buf, sizeof(buf)), "/lib/libc.so.6");
	cr_expect_str_eq(inv_owner__name(INV_OWNER_ALLOCATOR), "allocator");
}
