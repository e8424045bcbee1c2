/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * samedepth: two call paths that reach the same code with the same stack pointer, frame pointer
 * and instruction pointer, so that any cache of stacks keyed on the user registers alone would
 * charge the second path to the first.
 *
 *   samedepth [--now] [--exit] [ONE_MIB [TWO_MIB]]      (default: 6 10)
 *
 * phase_one() and phase_two() are called one after the other from main() and both call fill(),
 * which touches every page: fill's faults have identical ip/sp/bp in both phases. Then
 * give_back_one() and give_back_two() do the same through glibc's frameless munmap() wrapper.
 * Expected: phase_one;fill ONE, phase_two;fill TWO (anon growth), give_back_one;munmap ONE,
 * give_back_two;munmap TWO (released).
 *
 * Start/stop protocol: see workload.h.
 */
#include "workload.h"

#define USAGE "samedepth [--now] [--exit] [ONE_MIB [TWO_MIB]]"
#define MAX_MIB 4096

__attribute__((noinline)) void fill(char *p, size_t len)
{
	wl_write_pages(p, len);
}

/* Same frame size in both phases, so fill() runs at the same stack depth. */
__attribute__((noinline)) char *phase_one(size_t len)
{
	char *p = wl_map_anon(len);

	fill(p, len);
	return p;
}

__attribute__((noinline)) char *phase_two(size_t len)
{
	char *p = wl_map_anon(len);

	fill(p, len);
	return p;
}

__attribute__((noinline)) void give_back_one(char *p, size_t len)
{
	if (munmap(p, len))
		wl_die("munmap");
}

__attribute__((noinline)) void give_back_two(char *p, size_t len)
{
	if (munmap(p, len))
		wl_die("munmap");
}

int main(int argc, char **argv)
{
	size_t one, two;
	struct wl_args a;
	char *p1, *p2;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 2)
		wl_usage(USAGE);
	one = wl_arg_ulong(&a, 0, 6, MAX_MIB, USAGE) * WL_MIB;
	two = wl_arg_ulong(&a, 1, 10, MAX_MIB, USAGE) * WL_MIB;
	wl_wait_start(&a);
	p1 = phase_one(one);
	p2 = phase_two(two);
	give_back_one(p1, one);
	give_back_two(p2, two);
	wl_finish(&a);
	return 0;
}
