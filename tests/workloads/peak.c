// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * peak: the peak scenario of issue 4. phase_a() makes A_MIB resident, release_a() unmaps it
 * all, then phase_b() makes B_MIB resident (B < A). The process's RSS was highest at the end
 * of phase_a: at that moment phase_a held A MiB and phase_b nothing.
 *
 *   peak [--now] [--exit] [A_MIB [B_MIB]]   (default 64 32)
 */
#include "workload.h"

#define USAGE "peak [--now] [--exit] [A_MIB [B_MIB]]"
#define MAX_MIB 4096

__attribute__((noinline)) char *phase_a(size_t len)
{
	return wl_grow_anon(len);
}

__attribute__((noinline)) void release_a(char *p, size_t len)
{
	if (munmap(p, len))
		wl_die("munmap");
}

__attribute__((noinline)) char *phase_b(size_t len)
{
	return wl_grow_anon(len);
}

int main(int argc, char **argv)
{
	size_t a_len, b_len;
	struct wl_args a;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 2)
		wl_usage(USAGE);
	a_len = wl_arg_ulong(&a, 0, 64, MAX_MIB, USAGE) * WL_MIB;
	b_len = wl_arg_ulong(&a, 1, 32, MAX_MIB, USAGE) * WL_MIB;
	if (!a_len || b_len >= a_len)
		wl_usage(USAGE);
	wl_wait_start(&a);
	release_a(phase_a(a_len), a_len);
	phase_b(b_len);
	wl_finish(&a);
	return 0;
}
