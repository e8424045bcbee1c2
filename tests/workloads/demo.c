/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * demo: the workload `make demo` profiles. A small pretend service that runs for a few
 * seconds and then exits by itself; it starts working at once (no signal, no output).
 *
 *   demo [SECONDS]                              (default: 6)
 *
 * What grows, and from where:
 *   load_index()      main thread, at start: maps an 8 MiB index file and reads it (file RSS)
 *   cache_insert()    two "cache-N" threads: 256 KiB entries until the cache holds 48 MiB,
 *                     then the oldest entry is evicted for each new one (growth and release)
 *   handle_request()  an "http-worker" thread: a 192 KiB buffer per request, freed after it
 *   leak_session()    main thread, once a second: 512 KiB that is never freed (the leak)
 */
#include "workload.h"
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define USAGE "demo [SECONDS]"
#define MAX_SECONDS 3600
#define INDEX_BYTES (8 * WL_MIB)
#define CACHE_ENTRY (256 * 1024UL)
#define CACHE_SLOTS 96 /* per worker: 2 x 96 x 256 KiB = 48 MiB */
#define REQUEST_BYTES (192 * 1024UL)
#define LEAK_BYTES (512 * 1024UL)

static atomic_bool stopping;
volatile unsigned long demo_sink;

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *xmalloc(size_t len)
{
	void *p = malloc(len);

	if (!p)
		wl_die("malloc");
	return p;
}

__attribute__((noinline)) void load_index(void)
{
	int fd = wl_temp_file("/var/tmp", INDEX_BYTES);
	const char *p = mmap(NULL, INDEX_BYTES, PROT_READ, MAP_PRIVATE, fd, 0);

	if (p == MAP_FAILED)
		wl_die("mmap");
	close(fd);
	demo_sink = wl_read_pages(p, INDEX_BYTES);
}

/* Stores a new entry in @slot, evicting what was there. */
__attribute__((noinline)) void cache_insert(char **slot)
{
	char *entry = xmalloc(CACHE_ENTRY);

	wl_write_pages(entry, CACHE_ENTRY);
	free(*slot);
	*slot = entry;
}

static void *cache_worker(void *arg)
{
	char *slots[CACHE_SLOTS] = { 0 };
	unsigned long n = 0;

	pthread_setname_np(pthread_self(), arg);
	while (!atomic_load(&stopping)) {
		cache_insert(&slots[n++ % CACHE_SLOTS]);
		sleep_ms(50);
	}
	return NULL;
}

__attribute__((noinline)) void handle_request(unsigned long id)
{
	char *buf = xmalloc(REQUEST_BYTES);

	wl_write_pages(buf, REQUEST_BYTES);
	demo_sink += id + (unsigned char)buf[0];
	free(buf);
}

static void *http_worker(void *arg)
{
	unsigned long id = 0;

	pthread_setname_np(pthread_self(), arg);
	while (!atomic_load(&stopping)) {
		handle_request(id++);
		sleep_ms(10);
	}
	return NULL;
}

__attribute__((noinline)) void leak_session(void)
{
	char *session = xmalloc(LEAK_BYTES);

	/* Touched and then forgotten: nothing keeps the pointer. */
	wl_write_pages(session, LEAK_BYTES);
}

static void start(pthread_t *t, void *(*fn)(void *), const char *name)
{
	int err = pthread_create(t, NULL, fn, (void *)name);

	if (err) {
		errno = err;
		wl_die("pthread_create");
	}
}

int main(int argc, char **argv)
{
	struct wl_args a = { .nargs = argc - 1 };
	unsigned long seconds;
	pthread_t t[3];

	if (argc > 2)
		wl_usage(USAGE);
	if (argc == 2)
		a.args[0] = argv[1];
	seconds = wl_arg_ulong(&a, 0, 6, MAX_SECONDS, USAGE);

	load_index();
	start(&t[0], cache_worker, "cache-0");
	start(&t[1], cache_worker, "cache-1");
	start(&t[2], http_worker, "http-worker");
	for (unsigned long s = 0; s < seconds; s++) {
		leak_session();
		sleep_ms(1000);
	}
	atomic_store(&stopping, true);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
