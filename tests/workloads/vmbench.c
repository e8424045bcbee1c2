/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * vmbench: a memory-syscall-heavy workload for scripts/bench-overhead.sh, timed by itself.
 *
 *   vmbench [--now] [--exit] [CALLS]   (default: 200000)
 *
 * Work: map_unmap() mmaps 64 KiB of anonymous private memory and munmaps it at once, without
 * touching it (no fault, no RSS change: what a profiler adds is its syscall probes alone);
 * repeated until CALLS system calls have been made, two per iteration (an odd CALLS is
 * rounded up). 64 KiB is below any huge page, and the mapping is gone before anything could
 * merge with it, so each iteration makes the same two calls with no madvise beside them.
 *
 * Around the work it reads CLOCK_MONOTONIC, then prints
 *   result ns=NANOSECONDS calls=SYSCALLS
 * before "done", so the timed window holds nothing but mmap and munmap: a profiler's start-up
 * and shutdown stay out of it.
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, result line, "done", SIGUSR2).
 */
#include "workload.h"

#include <stdint.h>
#include <time.h>

#define USAGE "vmbench [--now] [--exit] [CALLS]"
#define MAX_CALLS (1000UL * 1000UL * 1000UL)
#define MAP_LEN (64 * 1024UL)

/* Every system call of the benchmark happens here: one mmap, one munmap. */
__attribute__((noinline)) void map_unmap(void)
{
	void *p = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		wl_die("mmap");
	if (munmap(p, MAP_LEN))
		wl_die("munmap");
}

/* Returns the system calls made: @calls, rounded up to whole iterations. */
__attribute__((noinline)) unsigned long map_unmap_all(unsigned long calls)
{
	unsigned long done = 0;

	while (done < calls) {
		map_unmap();
		done += 2;
	}
	return done;
}

int main(int argc, char **argv)
{
	unsigned long calls;
	struct wl_args a;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 1)
		wl_usage(USAGE);
	calls = wl_arg_ulong(&a, 0, 200000, MAX_CALLS, USAGE);
	if (!calls)
		wl_usage(USAGE);

	wl_timed_calls(&a, map_unmap_all, calls);
	return 0;
}
