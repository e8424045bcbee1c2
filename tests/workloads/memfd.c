/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * memfd: writes one byte per page of a shared memfd mapping, so the process's shmem RSS
 * (RssShmem) grows by its size.
 *
 *   memfd [--now] [--exit] [MIB]               (default: 24 MiB)
 *
 * Setup (before "ready"): memfd_create, ftruncate to MIB MiB, mmap MAP_SHARED. Truncating
 * allocates nothing; the pages are allocated and mapped by the writes of write_shmem_pages().
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, "done", SIGUSR2).
 */
#include "workload.h"

#define USAGE "memfd [--now] [--exit] [MIB]"
#define MAX_MIB 4096

__attribute__((noinline)) void write_shmem_pages(char *p, size_t len)
{
	wl_write_pages(p, len);
}

int main(int argc, char **argv)
{
	struct wl_args a;
	size_t len;
	char *p;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 1)
		wl_usage(USAGE);
	len = wl_arg_ulong(&a, 0, 24, MAX_MIB, USAGE) * WL_MIB;
	if (!len)
		wl_usage(USAGE);
	p = wl_map_memfd("faultline-memfd", len);

	wl_wait_start(&a);
	write_shmem_pages(p, len);
	wl_finish(&a);
}
