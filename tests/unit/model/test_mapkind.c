/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "model/mapkind.h"

/* tests/unit/fixtures/smaps_mixed.txt, entry by entry */
enum {
	APP_R,
	APP_X,
	HEAP,
	ARENA_RW,
	ARENA_RESERVE,
	WORKER_GUARD,
	WORKER_STACK,
	CACHED_GUARD,
	CACHED_STACK,
	POOL,
	MEMFD,
	DEV_ZERO,
	TMPFS_FILE,
	HUGETLB,
	LIBC_R,
	LIBC_X,
	LIBC_RW,
	MAIN_STACK,
	VVAR,
	VDSO,
	NMAPS
};

static const struct thread_sp threads[] = {
	{ .tid = 100, .comm = "app", .sp = 0x7ffc00020000ULL },
	{ .tid = 101, .comm = "worker", .sp = 0x7f0004700000ULL },
	{ .tid = 102, .comm = "busy", .sp = 0 },     /* running: no stack pointer */
	{ .tid = 103, .comm = "odd", .sp = 0x1000 }, /* nowhere mapped */
};

static void load(struct smaps *m)
{
	FILE *f = fopen("fixtures/smaps_mixed.txt", "r");

	cr_assert_not_null(f);
	cr_assert_eq(smaps__parse(f, m), 0);
	fclose(f);
	cr_assert_eq(m->n, NMAPS);
}

Test(mapkind, every_kind)
{
	const struct shmem_dev tmpfs[] = { { 0, 0x1a } };
	struct map_kind_hints h = { .threads = threads,
				    .nthreads = 4,
				    .shmem_devs = tmpfs,
				    .nshmem_devs = 1 };
	struct map_kind_of k[NMAPS];
	struct smaps m;

	load(&m);
	mapkind__classify(&m, &h, k);
	cr_expect_eq(k[APP_R].kind, MAPKIND_FILE);
	cr_expect_eq(k[APP_X].kind, MAPKIND_FILE);
	cr_expect_eq(k[HEAP].kind, MAPKIND_HEAP);
	cr_expect_eq(k[ARENA_RW].kind, MAPKIND_ARENA, "64 MiB-aligned, rw + PROT_NONE = 64 MiB");
	cr_expect_eq(k[ARENA_RESERVE].kind, MAPKIND_ARENA, "the arena's reserve is the arena's");
	cr_expect_eq(k[WORKER_STACK].kind, MAPKIND_THREAD_STACK);
	cr_expect_eq(k[WORKER_STACK].tid, 101);
	cr_expect_str_eq(k[WORKER_STACK].comm, "worker");
	cr_expect_eq(k[WORKER_GUARD].kind, MAPKIND_THREAD_STACK, "the guard goes with its stack");
	cr_expect_eq(k[WORKER_GUARD].tid, 101);
	cr_expect_eq(k[CACHED_STACK].kind, MAPKIND_THREAD_STACK, "by the guard page's shape");
	cr_expect_eq(k[CACHED_STACK].tid, 0);
	cr_expect_eq(k[CACHED_GUARD].kind, MAPKIND_THREAD_STACK);
	cr_expect_eq(k[POOL].kind, MAPKIND_ANON);
	cr_expect_eq(k[MEMFD].kind, MAPKIND_SHMEM);
	cr_expect_eq(k[DEV_ZERO].kind, MAPKIND_SHMEM);
	cr_expect_eq(k[TMPFS_FILE].kind, MAPKIND_SHMEM, "a file on a tmpfs device");
	cr_expect_eq(k[HUGETLB].kind, MAPKIND_HUGETLB);
	cr_expect_eq(k[LIBC_RW].kind, MAPKIND_FILE);
	cr_expect_eq(k[MAIN_STACK].kind, MAPKIND_STACK);
	cr_expect_eq(k[MAIN_STACK].tid, 100);
	cr_expect_str_eq(k[MAIN_STACK].comm, "app");
	cr_expect_eq(k[VVAR].kind, MAPKIND_KERNEL);
	cr_expect_eq(k[VDSO].kind, MAPKIND_KERNEL);
	smaps__free(&m);
}

/* Without the hints: a tmpfs file is a file, and the stack shape alone names stacks. */
Test(mapkind, without_hints)
{
	struct map_kind_hints h = {};
	struct map_kind_of k[NMAPS];
	struct smaps m;

	load(&m);
	mapkind__classify(&m, &h, k);
	cr_expect_eq(k[TMPFS_FILE].kind, MAPKIND_FILE);
	cr_expect_eq(k[WORKER_STACK].kind, MAPKIND_THREAD_STACK);
	cr_expect_eq(k[WORKER_STACK].tid, 0);
	cr_expect_eq(k[MAIN_STACK].kind, MAPKIND_STACK);
	cr_expect_eq(k[MAIN_STACK].tid, 0);
	cr_expect_eq(k[ARENA_RW].kind, MAPKIND_ARENA);
	smaps__free(&m);
}

static struct smaps_entry entry(uint64_t start, uint64_t end, uint32_t perms, char *name)
{
	return (struct smaps_entry){ .start = start, .end = end, .perms = perms, .name = name };
}

/* What is not an arena: unaligned, a reserve that does not make 64 MiB, a shared mapping;
 * and an arena filled to its 64 MiB with no reserve left. */
Test(mapkind, arena_shapes)
{
	const uint64_t A = MAPKIND_ARENA_SIZE, base = 0x7e0000000000ULL;
	char empty[] = "";
	struct smaps_entry v[] = {
		entry(base, base + (1 << 20), SMAPS_READ | SMAPS_WRITE, empty),
		entry(base + (1 << 20), base + A - (1 << 20), 0, empty), /* short of 64 MiB */
		entry(base + 2 * A, base + 3 * A, SMAPS_READ | SMAPS_WRITE, empty), /* full */
		entry(base + 3 * A + 4096, base + 4 * A + 4096, SMAPS_READ | SMAPS_WRITE, empty),
		entry(base + 5 * A, base + 5 * A + (1 << 20),
		      SMAPS_READ | SMAPS_WRITE | SMAPS_SHARED, empty),
		entry(base + 5 * A + (1 << 20), base + 6 * A, 0, empty),
	};
	struct smaps m = { .v = v, .n = 6 };
	struct map_kind_hints h = {};
	struct map_kind_of k[6];

	mapkind__classify(&m, &h, k);
	cr_expect_eq(k[0].kind, MAPKIND_ANON);
	cr_expect_eq(k[1].kind, MAPKIND_NO_ACCESS);
	cr_expect_eq(k[2].kind, MAPKIND_ARENA);
	cr_expect_eq(k[3].kind, MAPKIND_ANON, "not aligned");
	cr_expect_eq(k[4].kind, MAPKIND_ANON, "shared anonymous is not malloc's");
	cr_expect_eq(k[5].kind, MAPKIND_NO_ACCESS);
	cr_expect_str_eq(mapkind__name(MAPKIND_THREAD_STACK), "thread_stack");
	cr_expect_str_eq(mapkind__name(MAPKIND__COUNT), "?");
}
