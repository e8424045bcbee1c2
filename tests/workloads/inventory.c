/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * inventory: a process whose resident memory is known from inside, mapping by mapping, for
 * the inventory test (tests/integration/test_inventory.c).
 *
 *   inventory [--now] [--exit]
 *
 * Setup (before "ready"), all of it filled page by page with transparent huge pages off
 * (PR_SET_THP_DISABLE), so each figure is exact:
 *   - a 32 MiB anonymous pool, named "faultline-pool" with PR_SET_VMA_ANON_NAME where the
 *     kernel allows it, and a 16 MiB unnamed one;
 *   - a thread "inv-arena" whose mallocs (4096 blocks of 2000 bytes) make glibc create an
 *     arena of its own (about 8 MiB resident);
 *   - a thread "inv-stack" that touches 2 MiB of its own stack;
 *   - an 8 MiB shared memfd mapping, "faultline-inv".
 * Both threads then wait in read(2), so their stack pointers can be read. Where names do not
 * work (a kernel without CONFIG_ANON_VMA_NAME), the kernel would merge adjacent anonymous
 * mappings of the same flags: the pool, the unnamed one and the grown one differ by one
 * madvise flag each (MADV_DONTDUMP, MADV_WIPEONFORK), so each stays a mapping of its own,
 * told apart by its size. The line
 * "tids STACK ARENA named N" comes before "ready" (N: 1 when the pool got its name).
 * Work (after SIGUSR1): a 24 MiB anonymous mapping named "faultline-grown" (where names
 * work), filled.
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, "done", SIGUSR2).
 */
#include "workload.h"
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define USAGE "inventory [--now] [--exit]"
#define POOL_MIB 32
#define UNNAMED_MIB 16
#define ARENA_BLOCKS 4096
#define ARENA_BLOCK 2000
#define STACK_TOUCH (2 * WL_MIB)
#define MEMFD_MIB 8
#define GROWN_MIB 24

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

static int hold[2];	     /* the threads wait on its read end for ever */
static pthread_barrier_t up; /* the threads' setup is done */
static pid_t tids[2];	     /* inv-stack, inv-arena */

static bool name_mapping(char *p, size_t len, const char *name)
{
	return !prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)p, len,
		      (unsigned long)name);
}

static void wait_for_ever(void)
{
	char c;

	while (read(hold[0], &c, 1) < 0 && errno == EINTR)
		;
}

__attribute__((noinline)) void touch_own_stack(void)
{
	char buf[STACK_TOUCH];

	wl_write_pages(buf, sizeof(buf));
	pthread_barrier_wait(&up);
	wait_for_ever();
	__asm__ volatile("" : : "r"(buf) : "memory");
}

static void *stack_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "inv-stack");
	tids[0] = (pid_t)syscall(SYS_gettid);
	touch_own_stack();
	return NULL;
}

__attribute__((noinline)) void fill_arena(void)
{
	for (int i = 0; i < ARENA_BLOCKS; i++) {
		char *b = malloc(ARENA_BLOCK);

		if (!b)
			wl_die("malloc");
		wl_write_pages(b, ARENA_BLOCK);
		b[ARENA_BLOCK - 1] = 1; /* a block may span two pages */
	}
}

static void *arena_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "inv-arena");
	tids[1] = (pid_t)syscall(SYS_gettid);
	fill_arena();
	pthread_barrier_wait(&up);
	wait_for_ever();
	return NULL;
}

static void map_memfd(size_t len)
{
	wl_write_pages(wl_map_memfd("faultline-inv", len), len);
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t th[2];
	struct wl_args a;
	char line[96];
	bool named;
	char *p;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs)
		wl_usage(USAGE);
	/* every page one 4 KiB page: resident figures exact */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		wl_die("PR_SET_THP_DISABLE");
	if (pipe(hold) || pthread_barrier_init(&up, NULL, 3))
		wl_die("pipe");
	p = wl_grow_anon(POOL_MIB * WL_MIB);
	named = name_mapping(p, POOL_MIB * WL_MIB, "faultline-pool");
	p = wl_map_anon(UNNAMED_MIB * WL_MIB);
	if (madvise(p, UNNAMED_MIB * WL_MIB, MADV_DONTDUMP))
		wl_die("madvise(MADV_DONTDUMP)");
	wl_write_pages(p, UNNAMED_MIB * WL_MIB);
	map_memfd(MEMFD_MIB * WL_MIB);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 8 * WL_MIB);
	if (pthread_create(&th[0], &attr, stack_thread, NULL) ||
	    pthread_create(&th[1], &attr, arena_thread, NULL))
		wl_die("pthread_create");
	pthread_barrier_wait(&up);
	snprintf(line, sizeof(line), "tids %d %d named %d\n", (int)tids[0], (int)tids[1], named);
	wl_say(line);

	wl_wait_start(&a);
	p = wl_map_anon(GROWN_MIB * WL_MIB);
	if (madvise(p, GROWN_MIB * WL_MIB, MADV_WIPEONFORK))
		wl_die("madvise(MADV_WIPEONFORK)");
	wl_write_pages(p, GROWN_MIB * WL_MIB);
	if (named)
		name_mapping(p, GROWN_MIB * WL_MIB, "faultline-grown");
	wl_finish(&a);
}
