// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * retention: what glibc's allocator keeps, beside memory the application maps itself, for
 * the retention line of --alloc.
 *
 *   retention [--now] [--exit] [POOL_MIB [CHURN_MIB [LIVE_MIB]]]          (default: 32 24 4)
 *
 * Work (after SIGUSR1, see workload.h): pool_fill() reserves 1 GiB of address space with no
 * access and makes a 64 MiB-aligned piece of 64 MiB of it read-write, as MariaDB maps its
 * buffer pool (the shape of a glibc arena, which it is not), and writes every page of its
 * first POOL_MIB MiB (at most 64): the application's own pool, no allocator call. churn()
 * mallocs
 * CHURN_MIB MiB in blocks of BLOCK bytes and writes them, then frees all but every k-th, so
 * that LIVE_MIB MiB stay live spread over the whole heap and glibc can give back almost
 * nothing: what it keeps is the freed blocks between the live ones.
 * Before the work and after it, the workload prints what glibc says from the inside:
 *   "mallinfo ARENA UORDBLKS FORDBLKS LIVE" (bytes: mallinfo2's arena, uordblks, fordblks, and
 *   the bytes the workload asked for and has not freed). The allocator's retention over the
 *   work is then delta ARENA - delta LIVE: heap it holds beyond what is live.
 */
#include "workload.h"
#include <malloc.h>

#define USAGE "retention [--now] [--exit] [POOL_MIB [CHURN_MIB [LIVE_MIB]]]"
#define BLOCK 1000

static size_t live_bytes;
static void *volatile sink; /* keeps the compiler from eliding a malloc and its free */

static void say_mallinfo(void)
{
	struct mallinfo2 mi = mallinfo2();
	char line[160];

	snprintf(line, sizeof(line), "mallinfo %zu %zu %zu %zu\n", mi.arena, mi.uordblks,
		 mi.fordblks, live_bytes);
	wl_say(line);
}

#define RESERVE (1024 * WL_MIB)
#define ALIGN (64 * WL_MIB) /* glibc's HEAP_MAX_SIZE */

__attribute__((noinline)) char *pool_fill(size_t len)
{
	char *r =
		wl_map(RESERVE + ALIGN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1);
	char *p = (char *)(((uintptr_t)r + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));

	if (mprotect(p, ALIGN, PROT_READ | PROT_WRITE))
		wl_die("mprotect");
	wl_write_pages(p, len);
	return p;
}

__attribute__((noinline)) void **churn(size_t total, size_t live)
{
	size_t n = total / BLOCK, keep_every = live ? total / live : n + 1;
	void **blocks = mmap(NULL, n * sizeof(void *), PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (blocks == MAP_FAILED)
		wl_die("mmap");
	for (size_t i = 0; i < n; i++) {
		blocks[i] = malloc(BLOCK);
		if (!blocks[i])
			wl_die("malloc");
		memset(blocks[i], 1, BLOCK);
		live_bytes += BLOCK;
	}
	for (size_t i = 0; i < n; i++) {
		if (i % keep_every == 0)
			continue;
		free(blocks[i]);
		blocks[i] = NULL;
		live_bytes -= BLOCK;
	}
	return blocks;
}

int main(int argc, char **argv)
{
	struct wl_args a;
	size_t pool, total, live;

	wl_init(argc, argv, &a, USAGE);
	pool = wl_arg_ulong(&a, 0, 32, 4096, USAGE) * WL_MIB;
	total = wl_arg_ulong(&a, 1, 24, 4096, USAGE) * WL_MIB;
	live = wl_arg_ulong(&a, 2, 4, 4096, USAGE) * WL_MIB;
	if (live > total || pool > ALIGN)
		wl_usage(USAGE);
	/* glibc's first malloc sets up the main arena: before the start, so it is not work */
	sink = malloc(1);
	free(sink);
	say_mallinfo();
	wl_wait_start(&a);
	pool_fill(pool);
	churn(total, live);
	say_mallinfo();
	wl_finish(&a);
	return 0;
}
