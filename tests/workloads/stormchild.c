/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * stormchild: what storm's children exec: touches a known amount and says how much its image
 * grew, then exits at once.
 *
 *   stormchild [--now] [--exit] FD KIB
 *
 * Work: exec_touch() touches KIB KiB of anonymous memory; then the process writes its own
 * RssAnon, RssFile and RssShmem (a struct wl_rss, bytes) to FD: all of them are growth, as an
 * image made by exec starts from nothing. It exits 0 at once (no
 * "done", no wait, no exit handlers).
 */
#include "workload.h"

#define USAGE "stormchild [--now] [--exit] FD KIB"
#define MAX_KIB (1024 * 1024)

__attribute__((noinline)) void exec_touch(size_t len)
{
	wl_write_pages(wl_map_anon(len), len);
}

int main(int argc, char **argv)
{
	struct wl_rss zero = { 0 }, now;
	struct wl_args a;
	int fd;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs != 2)
		wl_usage(USAGE);
	fd = (int)wl_arg_ulong(&a, 0, 0, 1 << 20, USAGE);
	wl_rss_prepare();
	wl_wait_start(&a);
	exec_touch(wl_arg_ulong(&a, 1, 0, MAX_KIB, USAGE) * 1024);
	wl_rss_read(&now);
	wl_rss_report(fd, &zero, &now);
	/* exit() would run libc's exit handlers after the measure */
	wl_sys(WL_SYS_EXIT_GROUP, 0, 0, 0);
	return 0;
}
