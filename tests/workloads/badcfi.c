/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Code whose unwind info is garbage: before "ready" the workload copies libbadcfi.so (beside
 * it) to a temporary file, overwrites the copy's .eh_frame with 0xff bytes (unless "intact"),
 * dlopen()s it and unlinks it. Then main -> touch_path (frame pointers kept) -> lib_touch ->
 * lib_mid -> lib_leaf (no frame pointers, no usable table) -> memset makes TOUCH_BYTES
 * resident. A frame-pointer step from lib_leaf lands in touch_path's caller: the walk then
 * reaches _start by the tables of the executable and libc, with four frames missing.
 *
 *   badcfi [--now] [--exit] [intact]
 */
#include "workload.h" /* first: it defines _GNU_SOURCE */

#include <dlfcn.h>
#include <elf.h>
#include <libgen.h>

#define TOUCH_BYTES (8 * WL_MIB)

typedef void (*touch_fn)(char *p, unsigned long len);

/* Overwrites the .eh_frame section of the ELF file open at @fd with 0xff bytes. */
static void spoil_eh_frame(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Shdr names, sh;
	char name[16], junk[256];

	memset(junk, 0xff, sizeof(junk));
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    pread(fd, &names, sizeof(names), (off_t)(eh.e_shoff + eh.e_shstrndx * sizeof(sh))) !=
		    sizeof(names))
		wl_die("reading the library's ELF header");
	for (int i = 0; i < eh.e_shnum; i++) {
		if (pread(fd, &sh, sizeof(sh), (off_t)(eh.e_shoff + i * sizeof(sh))) != sizeof(sh) ||
		    pread(fd, name, sizeof(name), (off_t)(names.sh_offset + sh.sh_name)) !=
			    sizeof(name))
			wl_die("reading a section header");
		if (strncmp(name, ".eh_frame", sizeof(".eh_frame")))
			continue;
		for (uint64_t off = 0; off < sh.sh_size; off += sizeof(junk)) {
			size_t n = sh.sh_size - off < sizeof(junk) ? sh.sh_size - off : sizeof(junk);

			if (pwrite(fd, junk, n, (off_t)(sh.sh_offset + off)) != (ssize_t)n)
				wl_die("pwrite");
		}
		return;
	}
	errno = ENOENT;
	wl_die("the library has no .eh_frame");
}

/* The library beside the executable, copied to @copy (spoiled unless @intact) and loaded. */
static touch_fn load(bool intact, char *copy)
{
	char self[PATH_MAX], lib[PATH_MAX + 32], buf[65536];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1), n;
	int in, out;
	void *h;

	if (len <= 0)
		wl_die("readlink /proc/self/exe");
	self[len] = '\0';
	snprintf(lib, sizeof(lib), "%s/libbadcfi.so", dirname(self));
	in = open(lib, O_RDONLY | O_CLOEXEC);
	out = mkstemp(copy);
	if (in < 0 || out < 0)
		wl_die(lib);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			wl_die("write");
	if (!intact)
		spoil_eh_frame(out);
	close(in);
	close(out);
	h = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "workload: dlopen %s: %s\n", copy, dlerror());
		exit(1);
	}
	unlink(copy); /* mapped, it stays: nothing is left behind */
	return (touch_fn)dlsym(h, "lib_touch");
}

__attribute__((noinline)) void touch_path(touch_fn touch)
{
	char *p = wl_map_anon(TOUCH_BYTES);

	wl_keep_frame();
	touch(p, TOUCH_BYTES);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	static const char usage[] = "badcfi [--now] [--exit] [intact]";
	char copy[] = "/tmp/faultline-badcfi-XXXXXX";
	struct wl_args a;
	touch_fn touch;

	wl_init(argc, argv, &a, usage);
	if (a.nargs > 1 || (a.nargs == 1 && strcmp(a.args[0], "intact")))
		wl_usage(usage);
	touch = load(a.nargs == 1, copy);
	if (!touch)
		wl_die("dlsym lib_touch");
	wl_wait_start(&a);
	touch_path(touch);
	wl_finish(&a);
	return 0;
}
