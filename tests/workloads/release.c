/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * release: grows anonymous memory, then gives part of it back in two ways.
 *
 *   release [--now] [--exit] [GROW_MIB [UNMAP_MIB [DONTNEED_MIB]]]   (default: 32 8 8)
 *
 * Work, in order: grow_memory() maps and touches GROW MiB; unmap_memory() munmaps the first
 * UNMAP MiB of it; dontneed_memory() drops the next DONTNEED MiB with madvise(MADV_DONTNEED).
 * RssAnon rises by GROW, falls by UNMAP + DONTNEED.
 *
 * The releases go through the ordinary glibc wrappers, as real programs do. Those wrappers
 * are frameless leaves: at the syscall the frame pointer still holds the caller's frame, so a
 * plain frame-pointer walk from the syscall sees munmap/madvise and then the caller's caller,
 * and misses unmap_memory/dontneed_memory unless the unwinder recovers the return address
 * from the stack pointer. The integration tests check that they are not missed.
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, "done", SIGUSR2).
 */
#include "workload.h"

#define USAGE "release [--now] [--exit] [GROW_MIB [UNMAP_MIB [DONTNEED_MIB]]]"
#define MAX_MIB 4096

__attribute__((noinline)) char *grow_memory(size_t len)
{
	return wl_grow_anon(len);
}

__attribute__((noinline)) void unmap_memory(char *p, size_t len)
{
	if (len && munmap(p, len))
		wl_die("munmap");
}

__attribute__((noinline)) void dontneed_memory(char *p, size_t len)
{
	if (len && madvise(p, len, MADV_DONTNEED))
		wl_die("madvise(MADV_DONTNEED)");
}

int main(int argc, char **argv)
{
	size_t grow, unmap, dontneed;
	struct wl_args a;
	char *p;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 3)
		wl_usage(USAGE);
	grow = wl_arg_ulong(&a, 0, 32, MAX_MIB, USAGE) * WL_MIB;
	unmap = wl_arg_ulong(&a, 1, 8, MAX_MIB, USAGE) * WL_MIB;
	dontneed = wl_arg_ulong(&a, 2, 8, MAX_MIB, USAGE) * WL_MIB;
	if (!grow || unmap + dontneed > grow)
		wl_usage(USAGE);

	wl_wait_start(&a);
	p = grow_memory(grow);
	unmap_memory(p, unmap);
	dontneed_memory(p + unmap, dontneed);
	wl_finish(&a);
}
