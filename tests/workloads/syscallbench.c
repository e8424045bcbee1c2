/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * syscallbench: the cheapest system call in a loop, for scripts/bench-overhead.sh, timed by itself:
 * what a program on the raw tracepoints sys_enter/sys_exit costs every system call of the
 * machine, a process it does not trace included (no memory call: it returns at its first test).
 *
 *   syscallbench [--now] [--exit] [CALLS]   (default: 2000000)
 *
 * Work: get_pids() makes CALLS getpid calls through syscall(2) (no libc cache in the way).
 *
 * Around the work it reads CLOCK_MONOTONIC, then prints
 *   result ns=NANOSECONDS calls=SYSCALLS
 * before "done", as vmbench does.
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, result line, "done", SIGUSR2).
 */
#include "workload.h"

#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#define USAGE "syscallbench [--now] [--exit] [CALLS]"
#define MAX_CALLS (1000UL * 1000UL * 1000UL)

/* Every system call of the benchmark happens here. */
__attribute__((noinline)) unsigned long get_pids(unsigned long calls)
{
	unsigned long i;

	for (i = 0; i < calls; i++)
		if (syscall(SYS_getpid) < 0)
			wl_die("getpid");
	return i;
}

int main(int argc, char **argv)
{
	unsigned long calls;
	struct wl_args a;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 1)
		wl_usage(USAGE);
	calls = wl_arg_ulong(&a, 0, 2000000, MAX_CALLS, USAGE);
	if (!calls)
		wl_usage(USAGE);

	wl_timed_calls(&a, get_pids, calls);
	return 0;
}
