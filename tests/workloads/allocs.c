// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * allocs: allocator calls of known number and size, each from its own named function, for
 * --alloc. One run does all of it (the numbers tests/integration/test_alloc.c expects):
 *
 *   leak_path       LEAK_N blocks of LEAK_SIZE, never freed
 *   churn_path      CHURN_N malloc(CHURN_SIZE) + free pairs: nothing live at the end
 *   direct_caller   one malloc(DIRECT_SIZE), kept: the frame right above malloc
 *   realloc_path    malloc(100), realloc to 200, realloc to 300, kept
 *   calloc_path     calloc(CALLOC_N, CALLOC_SIZE), kept
 *   memalign_path   posix_memalign(64, MEMALIGN_SIZE), kept
 *   new_path        NEW_N x operator new(NEW_SIZE), kept (libstdc++'s, or the allocator's;
 *                   skipped where neither exists)
 *   nested_path     realloc(NULL, ...), memalign(8, ...), reallocarray(NULL, 1, ...) and
 *                   posix_memalign(8, ...), NESTED_SIZE each, kept: calls that glibc passes on
 *                   to another allocator function (malloc, realloc), each one allocation
 *   thread_leak     in each of THREADS threads named "leaker-N": THREAD_N x THREAD_SIZE, kept
 *   early blocks    EARLY_N blocks allocated before "ready" and freed after the start signal
 *   impossible_path one malloc(2^63), which fails: a request no allocator can meet, weighed
 *                   as 0 bytes (--alloc=churn counts a call of 0 bytes), made before the
 *                   others so that a sampler it upset would show in their estimates
 *
 *   allocs [--now] [--exit] [PRELOAD [SCALE]]
 *
 * PRELOAD: a library to run on (jemalloc, tcmalloc): the workload executes itself again with
 * LD_PRELOAD set, so only it, not its caller, uses that allocator; "-" for none. SCALE
 * multiplies LEAK_N and CHURN_N (a large run for sampled estimates; default 1).
 */
#include "workload.h"
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>

#define LEAK_N 100
#define LEAK_SIZE 1000
#define CHURN_N 10000
#define CHURN_SIZE 64
#define DIRECT_SIZE 777
#define CALLOC_N 10
#define CALLOC_SIZE 50
#define MEMALIGN_SIZE 4096
#define NEW_N 3
#define NEW_SIZE 256
#define NESTED_SIZE 3000
#define THREADS 2
#define THREAD_N 50
#define THREAD_SIZE 2000
#define EARLY_N 5
#define EARLY_SIZE 512

static void *volatile sink; /* keeps the compiler from dropping unused blocks */
static void *volatile none; /* NULL the compiler cannot see: realloc(NULL, n) stays realloc */
static unsigned long scale = 1;

static volatile size_t impossible = (size_t)1 << 63; /* not a constant: no warning */

void impossible_path(void)
{
	sink = malloc(impossible);
	if (sink)
		wl_die("malloc(2^63) succeeded");
}

void leak_path(void)
{
	for (unsigned long i = 0; i < LEAK_N * scale; i++)
		sink = malloc(LEAK_SIZE);
}

void churn_path(void)
{
	for (unsigned long i = 0; i < CHURN_N * scale; i++) {
		void *p = malloc(CHURN_SIZE);

		sink = p;
		free(p);
	}
}

void direct_caller(void)
{
	sink = malloc(DIRECT_SIZE);
}

void realloc_path(void)
{
	void *p = malloc(100);

	p = realloc(p, 200);
	sink = realloc(p, 300);
}

void calloc_path(void)
{
	sink = calloc(CALLOC_N, CALLOC_SIZE);
}

void memalign_path(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, MEMALIGN_SIZE))
		wl_die("posix_memalign");
	sink = p;
}

/* operator new, found at run time so the workload stays C: the preloaded allocator's when
 * it defines one, else libstdc++'s (which calls malloc). */
void new_path(void *(*op_new)(size_t))
{
	for (int i = 0; i < NEW_N; i++)
		sink = op_new(NEW_SIZE);
}

/* glibc: realloc(NULL, n) and memalign jump to malloc, reallocarray to realloc, and
 * posix_memalign below malloc's own alignment calls malloc. */
void nested_path(void)
{
	void *p = NULL;

	sink = realloc(none, NESTED_SIZE);
	sink = memalign(8, NESTED_SIZE);
	sink = reallocarray(none, 1, NESTED_SIZE);
	if (posix_memalign(&p, 8, NESTED_SIZE))
		wl_die("posix_memalign");
	sink = p;
}

void thread_leak(void)
{
	for (int i = 0; i < THREAD_N; i++)
		sink = malloc(THREAD_SIZE);
}

/* Names itself before it allocates: a thread's name is captured when it is first charged. */
static void *leaker_main(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "leaker-%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
	thread_leak();
	return NULL;
}

static void run_threads(void)
{
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, leaker_main, (void *)(long)i))
			wl_die("pthread_create");
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
}

static void *(*find_new(void))(size_t)
{
	void *sym = dlsym(RTLD_DEFAULT, "_Znwm");

	if (!sym && dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL))
		sym = dlsym(RTLD_DEFAULT, "_Znwm");
	return (void *(*)(size_t))sym; /* NULL on a system without C++: new_path is skipped */
}

/* Runs again with LD_PRELOAD=@lib, unless this is already that run. */
static void preload(char **argv, const char *lib)
{
	const char *cur = getenv("LD_PRELOAD");
	char self[PATH_MAX];
	ssize_t n;

	if (cur && !strcmp(cur, lib))
		return;
	/* by its own path, not /proc/self/exe, which would rename the process "exe" */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		wl_die("readlink /proc/self/exe");
	self[n] = '\0';
	if (setenv("LD_PRELOAD", lib, 1))
		wl_die("setenv");
	execv(self, argv);
	wl_die("execv");
}

int main(int argc, char **argv)
{
	static const char usage[] = "allocs [--now] [--exit] [PRELOAD [SCALE]]";
	struct wl_args a;
	void *(*op_new)(size_t);
	void *early[EARLY_N];

	wl_init(argc, argv, &a, usage);
	if (a.nargs > 2)
		wl_usage(usage);
	if (a.nargs > 0 && strcmp(a.args[0], "-"))
		preload(argv, a.args[0]);
	scale = wl_arg_ulong(&a, 1, 1, 1000000, usage);
	if (!scale)
		wl_usage(usage);
	op_new = find_new();
	for (int i = 0; i < EARLY_N; i++)
		early[i] = malloc(EARLY_SIZE);
	wl_wait_start(&a);
	for (int i = 0; i < EARLY_N; i++)
		free(early[i]);
	impossible_path();
	leak_path();
	churn_path();
	direct_caller();
	realloc_path();
	calloc_path();
	memalign_path();
	if (op_new)
		new_path(op_new);
	nested_path();
	run_threads();
	wl_finish(&a);
	return 0;
}
