/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * allocsame: two call paths that reach the same malloc call with the same stack pointer, frame
 * pointer and return address, taking turns, so that a cache of the return probe's stacks keyed
 * on the user registers alone would charge one path's blocks to the other (samedepth.c is the
 * same trap for page faults).
 *
 *   allocsame [--now] [--exit]
 *
 * same_one() and same_two(), alike but for their names, both call alloc_here(), which mallocs
 * SAME_SIZE bytes and frees them: same_one SAME_ONE_N times, same_two a third as many,
 * interleaved (one same_two after every third same_one). Expected: same_one;alloc_here
 * SAME_ONE_N * SAME_SIZE bytes allocated, same_two;alloc_here a third of that (test_alloc.c has
 * the same numbers).
 *
 * Start/stop protocol: see workload.h.
 */
#include "workload.h"

#define USAGE "allocsame [--now] [--exit]"
#define SAME_SIZE 48
#define SAME_ONE_N 3000 /* and SAME_ONE_N / 3 calls of same_two */

static void *volatile sink; /* keeps the compiler from dropping the block */

__attribute__((noinline)) void alloc_here(void)
{
	sink = malloc(SAME_SIZE);
	free(sink);
}

/* Same frame size in both, so alloc_here() runs at the same stack depth. */
__attribute__((noinline)) void same_one(void)
{
	alloc_here();
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void same_two(void)
{
	alloc_here();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	struct wl_args a;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs)
		wl_usage(USAGE);
	wl_wait_start(&a);
	for (unsigned long i = 0; i < SAME_ONE_N; i++) {
		same_one();
		if (i % 3 == 2)
			same_two();
	}
	wl_finish(&a);
	return 0;
}
