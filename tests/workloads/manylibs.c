/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A process that maps hundreds of files, as a large Python, JVM or plugin host does: before
 * "ready" it dlopen()s N copies of libmanylib.so (beside the workload; copies in a temporary
 * directory, so each is a file and a mapping of its own, unlinked once mapped), which puts them
 * below the C library in the address space. Built -O2 -fomit-frame-pointer: its stacks are whole only through the
 * unwind tables.
 *
 *   heap_leaf      malloc's ALLOCS blocks of ALLOC_SIZE bytes and memsets them: glibc's
 *                  allocator must be found (it is mapped above every copy)
 *   copy_leaf      called through the last copy loaded (lib_call): TOUCH_BYTES made resident
 *
 * With "late", the copies are loaded once the work begins, from load_late().
 *
 *   manylibs [--now] [--exit] N [late]
 */
#include "workload.h" /* first: it defines _GNU_SOURCE */

#include <dlfcn.h>
#include <libgen.h>

#define ALLOCS 64
#define ALLOC_SIZE 65536 /* below the mmap threshold: the heap grows */
#define TOUCH_BYTES (4 * WL_MIB)
#define MAX_COPIES 2000

#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

static void *allocs[ALLOCS];

__attribute__((noinline)) void heap_leaf(void)
{
	for (int i = 0; i < ALLOCS; i++) {
		allocs[i] = malloc(ALLOC_SIZE);
		if (!allocs[i])
			wl_die("malloc");
		memset(allocs[i], 1, ALLOC_SIZE);
	}
	NO_TAIL_CALL();
}

__attribute__((noinline)) void copy_leaf(void)
{
	char *p = wl_map_anon(TOUCH_BYTES);

	memset(p, 1, TOUCH_BYTES);
	NO_TAIL_CALL();
}

/* Copies @from to @to. */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		wl_die(from);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0)
		wl_die(to);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			wl_die("write");
	if (n < 0)
		wl_die("read");
	close(in);
	close(out);
}

/* dlopen()s @n copies of the library beside the executable; returns the last one's lib_call. */
static void (*load_copies(unsigned long n))(void (*)(void))
{
	char self[PATH_MAX], lib[PATH_MAX + 32], dir[64], path[96];
	void (*call)(void (*)(void)) = NULL;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len <= 0)
		wl_die("readlink /proc/self/exe");
	self[len] = '\0';
	snprintf(lib, sizeof(lib), "%s/libmanylib.so", dirname(self));
	snprintf(dir, sizeof(dir), "/tmp/faultline-manylibs-XXXXXX");
	if (!mkdtemp(dir))
		wl_die("mkdtemp");
	for (unsigned long i = 0; i < n; i++) {
		void *h;

		snprintf(path, sizeof(path), "%s/libcopy%04lu.so", dir, i);
		copy_file(lib, path);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "workload: dlopen %s: %s\n", path, dlerror());
			exit(1);
		}
		call = (void (*)(void (*)(void)))dlsym(h, "lib_call");
		/* mapped, the file stays: nothing is left behind, however the process ends */
		unlink(path);
	}
	rmdir(dir);
	return call;
}

/* The copies loaded once the work began: each is initialised (ld.so calls its DT_INIT, _init)
 * before its table can be in, and _init's first instruction faults as its page is touched. */
__attribute__((noinline)) void (*load_late(unsigned long n))(void (*)(void))
{
	void (*call)(void (*)(void)) = load_copies(n);

	NO_TAIL_CALL();
	return call;
}

int main(int argc, char **argv)
{
	static const char usage[] = "manylibs [--now] [--exit] N [late]";
	void (*call)(void (*)(void)) = NULL;
	struct wl_args a;
	unsigned long n;
	bool late;

	wl_init(argc, argv, &a, usage);
	late = a.nargs == 2 && !strcmp(a.args[1], "late");
	if (a.nargs != 1 && !late)
		wl_usage(usage);
	n = wl_arg_ulong(&a, 0, 0, MAX_COPIES, usage);
	if (!late)
		call = load_copies(n);
	wl_wait_start(&a);
	if (late)
		call = load_late(n);
	heap_leaf();
	if (call)
		call(copy_leaf);
	wl_finish(&a);
	return 0;
}
