/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A recursion far deeper than any walk goes (frame pointers and tables intact all the way):
 * down() calls itself DEPTH times (default 10,000), then bottom() makes TOUCH_BYTES resident.
 * Every stack taken at the bottom, and at each new page of the stack on the way down, is cut
 * by the walk's depth limit, and must say so.
 *
 *   deep [--now] [--exit] [DEPTH]
 */
#include "workload.h"

#define TOUCH_BYTES (4 * WL_MIB)

__attribute__((noinline)) void bottom(void)
{
	wl_grow_anon(TOUCH_BYTES);
}

/* Not a tail call: the frame of each level stays on the stack. */
__attribute__((noinline)) unsigned long down(unsigned long n)
{
	volatile unsigned long r = 0;

	if (n)
		r = down(n - 1);
	else
		bottom();
	return r + 1;
}

int main(int argc, char **argv)
{
	static const char usage[] = "deep [--now] [--exit] [DEPTH]";
	struct wl_args a;
	unsigned long depth;

	wl_init(argc, argv, &a, usage);
	depth = wl_arg_ulong(&a, 0, 10000, 100000, usage);
	wl_wait_start(&a);
	if (down(depth) != depth + 1)
		wl_die("down");
	wl_finish(&a);
	return 0;
}
