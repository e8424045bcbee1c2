/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * filemap: maps a regular file of known size read-only and reads one byte per page, so the
 * process's file RSS (RssFile) grows by the file's size.
 *
 *   filemap [--now] [--exit] [MIB [DIR]]       (default: 32 MiB in /var/tmp)
 *
 * Setup (before "ready"): a file of MIB MiB is created in DIR, unlinked, written and synced,
 * then mapped; DIR must not be tmpfs (those pages count as shmem). Work: read_file_pages()
 * reads one byte of every page. Fault-around may map up to 16 pages per fault, but every page
 * is read, so the whole file ends up mapped and the growth is exactly the file's size.
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, "done", SIGUSR2).
 */
#include "workload.h"

#define USAGE "filemap [--now] [--exit] [MIB [DIR]]"
#define MAX_MIB 4096

/* Keeps the loads alive. */
volatile unsigned long filemap_sink;

__attribute__((noinline)) void read_file_pages(const char *p, size_t len)
{
	filemap_sink = wl_read_pages(p, len);
}

static const char *map_file(const char *dir, size_t len)
{
	int fd = wl_temp_file(dir, len);
	char *p = wl_map(len, PROT_READ, MAP_PRIVATE, fd);

	close(fd);
	return p;
}

int main(int argc, char **argv)
{
	const char *dir = "/var/tmp", *p;
	struct wl_args a;
	size_t len;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 2)
		wl_usage(USAGE);
	len = wl_arg_ulong(&a, 0, 32, MAX_MIB, USAGE) * WL_MIB;
	if (a.nargs > 1)
		dir = a.args[1];
	if (!len)
		wl_usage(USAGE);
	p = map_file(dir, len);

	wl_wait_start(&a);
	read_file_pages(p, len);
	wl_finish(&a);
}
