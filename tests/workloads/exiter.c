/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * exiter: touches some anonymous memory, then exits on its own after a short delay, for
 * "the target exits in the middle of a session".
 *
 *   exiter [--now] [MIB [DELAY_MS]]            (default: 16 MiB, 300 ms)
 *
 * Work: touch_before_exit() touches MIB MiB; then "done", a sleep of DELAY_MS, and exit 0
 * without waiting for any signal (--exit is accepted and changes nothing).
 *
 * Start protocol: see workload.h ("ready", SIGUSR1).
 */
#include "workload.h"
#include <time.h>

#define USAGE "exiter [--now] [MIB [DELAY_MS]]"
#define MAX_MIB 4096
#define MAX_DELAY_MS 600000

__attribute__((noinline)) void touch_before_exit(size_t len)
{
	wl_write_pages(wl_map_anon(len), len);
}

int main(int argc, char **argv)
{
	struct timespec delay;
	unsigned long ms;
	struct wl_args a;
	size_t len;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 2)
		wl_usage(USAGE);
	len = wl_arg_ulong(&a, 0, 16, MAX_MIB, USAGE) * WL_MIB;
	ms = wl_arg_ulong(&a, 1, 300, MAX_DELAY_MS, USAGE);
	delay.tv_sec = (time_t)(ms / 1000);
	delay.tv_nsec = (long)(ms % 1000) * 1000000L;

	wl_wait_start(&a);
	touch_before_exit(len);
	wl_say("done\n");
	while (nanosleep(&delay, &delay) && errno == EINTR)
		;
	return 0;
}
