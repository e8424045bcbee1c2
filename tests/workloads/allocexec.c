// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * allocexec: live heap blocks left behind by an exec, for --alloc. One run:
 *
 *   before_exec   BEFORE_N blocks of BEFORE_SIZE, never freed; then the process execs itself
 *   after_exec    in the new image, AFTER_N blocks of AFTER_SIZE, never freed
 *
 *   allocexec [--now] [--exit] [after]
 *
 * The start protocol runs in the first image (before_exec is the work), the end of it in the
 * second ("done", then --exit or the signal): "after" is how the first image tells the second.
 */
#include "workload.h"

#define BEFORE_N 40
#define BEFORE_SIZE 3000
#define AFTER_N 25
#define AFTER_SIZE 5000

static void *volatile sink; /* keeps the compiler from dropping unused blocks */

__attribute__((noinline)) void before_exec(void)
{
	for (int i = 0; i < BEFORE_N; i++)
		sink = malloc(BEFORE_SIZE);
}

__attribute__((noinline)) void after_exec(void)
{
	for (int i = 0; i < AFTER_N; i++)
		sink = malloc(AFTER_SIZE);
}

int main(int argc, char **argv)
{
	static const char usage[] = "allocexec [--now] [--exit] [after]";
	char *again[] = { argv[0], "after", NULL, NULL };
	struct wl_args a;

	wl_init(argc, argv, &a, usage);
	if (a.nargs > 1 || (a.nargs && strcmp(a.args[0], "after")))
		wl_usage(usage);
	if (a.nargs) {
		after_exec();
		wl_finish(&a);
	}
	wl_wait_start(&a);
	before_exec();
	if (a.exit_after)
		again[2] = "--exit";
	execv("/proc/self/exe", again);
	wl_die("execv");
}
