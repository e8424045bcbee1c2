/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * threads: up to three named threads, each touching a different known amount of anonymous
 * memory from its own function.
 *
 *   threads [--now] [--exit] [A_MIB [B_MIB [C_MIB]]]      (default: 8 16 24)
 *
 * Thread i is named "toucher-a", "toucher-b", "toucher-c" (pthread_setname_np, before it
 * touches anything) and touches its size from touch_a(), touch_b(), touch_c(). Giving fewer
 * sizes starts fewer threads. The threads run one after the other (each joined before the
 * next starts): the RSS counters are per process, and a neighbour's concurrent update could
 * otherwise be charged to the wrong thread.
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, "done", SIGUSR2).
 */
#include "workload.h"
#include <pthread.h>

#define USAGE "threads [--now] [--exit] [A_MIB [B_MIB [C_MIB]]]"
#define MAX_MIB 4096

struct toucher {
	const char *name;
	void (*touch)(size_t len);
	size_t len;
};

/* One function per thread, so each appears as its own frame. */
__attribute__((noinline)) void touch_a(size_t len)
{
	wl_write_pages(wl_map_anon(len), len);
}

__attribute__((noinline)) void touch_b(size_t len)
{
	wl_write_pages(wl_map_anon(len), len);
}

__attribute__((noinline)) void touch_c(size_t len)
{
	wl_write_pages(wl_map_anon(len), len);
}

static void *toucher_main(void *arg)
{
	const struct toucher *t = arg;
	int err;

	/* Named first: faultline captures the name at event time. */
	err = pthread_setname_np(pthread_self(), t->name);
	if (err) {
		errno = err;
		wl_die("pthread_setname_np");
	}
	t->touch(t->len);
	return NULL;
}

__attribute__((noinline)) void run_touchers(struct toucher *t, int n)
{
	for (int i = 0; i < n; i++) {
		pthread_t tid;
		int err;

		err = pthread_create(&tid, NULL, toucher_main, &t[i]);
		if (!err)
			err = pthread_join(tid, NULL);
		if (err) {
			errno = err;
			wl_die("pthread_create/join");
		}
	}
}

int main(int argc, char **argv)
{
	static const unsigned long def_mib[] = { 8, 16, 24 };
	struct toucher t[] = {
		{ "toucher-a", touch_a, 0 },
		{ "toucher-b", touch_b, 0 },
		{ "toucher-c", touch_c, 0 },
	};
	struct wl_args a;
	int n = 3;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 3)
		wl_usage(USAGE);
	if (a.nargs)
		n = a.nargs;
	for (int i = 0; i < n; i++)
		t[i].len = wl_arg_ulong(&a, i, def_mib[i], MAX_MIB, USAGE) * WL_MIB;

	wl_wait_start(&a);
	run_touchers(t, n);
	wl_finish(&a);
}
