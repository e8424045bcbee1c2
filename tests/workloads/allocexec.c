// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * allocexec: live heap blocks left behind by an exec, for --alloc. One run:
 *
 *   before_exec   BEFORE_N blocks of BEFORE_SIZE, never freed;
 *   bulk          BULK blocks of BULK_SIZE, never freed (none by default): a live table large
 *                 enough that faultline's live refreshes walk it seconds apart;
 *                 then the process execs itself
 *   after_exec    in the new image, AFTER_N blocks of AFTER_SIZE, never freed
 *
 *   allocexec [--now] [--exit] [BULK]
 *
 * The start protocol runs in the first image (before_exec is the work), the end of it in the
 * second ("done", then --exit or the signal): "after" is how the first image tells the second.
 */
#include "workload.h"

#define BEFORE_N 40
#define BEFORE_SIZE 3000
#define AFTER_N 25
#define AFTER_SIZE 5000
#define BULK_SIZE 16
#define MAX_BULK (1UL << 24)

static void *volatile sink; /* keeps the compiler from dropping unused blocks */

__attribute__((noinline)) void before_exec(void)
{
	for (int i = 0; i < BEFORE_N; i++)
		sink = malloc(BEFORE_SIZE);
}

__attribute__((noinline)) void bulk(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink = malloc(BULK_SIZE);
}

__attribute__((noinline)) void after_exec(void)
{
	for (int i = 0; i < AFTER_N; i++)
		sink = malloc(AFTER_SIZE);
}

int main(int argc, char **argv)
{
	static const char usage[] = "allocexec [--now] [--exit] [BULK]";
	char *again[] = { argv[0], "after", NULL, NULL };
	unsigned long n;
	struct wl_args a;

	wl_init(argc, argv, &a, usage);
	if (a.nargs > 1)
		wl_usage(usage);
	if (a.nargs && !strcmp(a.args[0], "after")) {
		after_exec();
		wl_finish(&a);
	}
	n = wl_arg_ulong(&a, 0, 0, MAX_BULK, usage);
	wl_wait_start(&a);
	before_exec();
	bulk(n);
	if (a.exit_after)
		again[2] = "--exit";
	execv("/proc/self/exe", again);
	wl_die("execv");
}
