/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * mappings: grows memory of every mapping class --by mapping tells apart, each from its own
 * named function.
 *
 *   mappings [--now] [--exit] [hugetlb]
 *
 * Work, in order:
 *   heap_grow          brk +4 MiB, writes it: 4 MiB of [heap]
 *   stack_grow         writes 2 MiB below its frame on the main stack: 2 MiB of [stack]
 *   thread_stack_grow  (thread "stacker") writes 1 MiB of its own stack: [thread stack]
 *   thp_grow           writes 4 MiB of a 2 MiB-aligned MADV_HUGEPAGE mapping: [anon THP]
 *                      when the kernel has huge pages to give (else 4 KiB [anon] pages)
 *   hugetlb_grow       with "hugetlb": writes one 2 MiB MAP_HUGETLB page (1 fault, no RSS);
 *                      prints "no hugetlb" instead when none is reserved
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, "done", SIGUSR2).
 */
#include "workload.h"
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>

#define USAGE "mappings [--now] [--exit] [hugetlb]"
#define HUGE (2 * WL_MIB)

__attribute__((noinline)) void heap_grow(void)
{
	char *start = (char *)syscall(SYS_brk, 0);

	if ((char *)syscall(SYS_brk, start + 4 * WL_MIB) != start + 4 * WL_MIB)
		wl_die("brk");
	wl_write_pages(start, 4 * WL_MIB);
}

/* Writes @len bytes of stack below the caller's frame, from the top down (the stack grows). */
static inline __attribute__((always_inline)) void write_stack(size_t len)
{
	volatile char *p = __builtin_alloca(len);

	wl_keep_frame();
	for (size_t off = len; off >= WL_PAGE; off -= WL_PAGE)
		p[off - WL_PAGE] = 1;
}

__attribute__((noinline)) void stack_grow(void)
{
	write_stack(2 * WL_MIB);
}

__attribute__((noinline)) void thread_stack_grow(void)
{
	write_stack(WL_MIB);
}

static void *stacker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "stacker");
	thread_stack_grow();
	return NULL;
}

__attribute__((noinline)) void thp_grow(void)
{
	char *p = mmap(NULL, 4 * WL_MIB + HUGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *aligned;

	if (p == MAP_FAILED)
		wl_die("mmap");
	aligned = (char *)(((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	if (madvise(aligned, 4 * WL_MIB, MADV_HUGEPAGE))
		wl_die("madvise(MADV_HUGEPAGE)");
	wl_write_pages(aligned, 4 * WL_MIB);
}

__attribute__((noinline)) void hugetlb_grow(void)
{
	char *p = mmap(NULL, HUGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (p == MAP_FAILED) {
		wl_say("no hugetlb\n");
		return;
	}
	wl_write_pages(p, HUGE);
}

int main(int argc, char **argv)
{
	struct wl_args a;
	pthread_attr_t attr;
	pthread_t t;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 1 || (a.nargs && strcmp(a.args[0], "hugetlb")))
		wl_usage(USAGE);
	if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, 4 * WL_MIB))
		wl_die("pthread_attr");

	wl_wait_start(&a);
	heap_grow();
	stack_grow();
	if (pthread_create(&t, &attr, stacker, NULL) || pthread_join(t, NULL))
		wl_die("pthread");
	thp_grow();
	if (a.nargs)
		hugetlb_grow();
	wl_finish(&a);
}
