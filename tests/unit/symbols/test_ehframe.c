/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The functions .eh_frame describes, against binutils' own reading of it (readelf
 * --debug-dump=frames): every FDE of Debian's libc and of an -O2 test binary, start and end,
 * in order. And what they are for: in a stripped binary, every return address inside one
 * static function names the same frame, whatever the call site.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/ehframe.h"
#include "symbols/elfsyms.h"
#include "unit/scratch.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

/* ehframe__funcs() on the .eh_frame of @path. */
static size_t funcs_of(const char *path, struct ehframe_func **out)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	size_t shstrndx, n = 0;
	Elf *elf;

	cr_assert_geq(fd, 0, "%s", path);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	*out = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		gelf_getshdr(scn, &sh);
		if (strcmp(elf_strptr(elf, shstrndx, sh.sh_name), ".eh_frame"))
			continue;
		d = elf_getdata(scn, NULL);
		cr_assert_eq(ehframe__funcs(d->d_buf, d->d_size, sh.sh_addr, out, &n), 0);
	}
	elf_end(elf);
	close(fd);
	return n;
}

/* Every "pc=START..END" of readelf's FDE lines for .eh_frame, in order, against ours. */
static void expect_readelf(const char *path)
{
	struct ehframe_func *f;
	size_t n = funcs_of(path, &f), i = 0, fdes = 0;
	char cmd[512], line[512];
	bool in_eh = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		uint64_t start, end;
		const char *pc;

		if (!strncmp(line, "Contents of the ", 16))
			in_eh = !!strstr(line, ".eh_frame section");
		if (!in_eh || !strstr(line, " FDE ") || !(pc = strstr(line, "pc=")))
			continue;
		cr_assert_eq(sscanf(pc, "pc=%" SCNx64 "..%" SCNx64, &start, &end), 2, "%s", line);
		fdes++;
		if (start == end)
			continue; /* an empty FDE: nothing to name, skipped on our side too */
		cr_assert_lt(i, n, "%s: readelf has more FDEs than the %zu read", path, n);
		cr_expect(f[i].start == start && f[i].start + f[i].size == end,
			  "%s FDE %zu: %#" PRIx64 "..%#" PRIx64 ", readelf %#" PRIx64 "..%#" PRIx64,
			  path, i, f[i].start, f[i].start + f[i].size, start, end);
		i++;
	}
	pclose(p);
	cr_expect_gt(fdes, 0, "readelf shows no FDE in %s", path);
	cr_expect_eq(i, n, "%s: %zu FDEs read, readelf has %zu", path, n, i);
	free(f);
}

TestSuite(ehframe, .init = scratch_setup, .fini = scratch_teardown, .timeout = 60);

Test(ehframe, libc_as_readelf_reads_it)
{
	expect_readelf(LIBC);
}

/* A static function called from two places in another static function, -O2 without frame
 * pointers, then stripped: both return addresses inside caller() name caller's start. */
Test(ehframe, stripped_frames_fold_by_function)
{
	static const char src[] =
		"#include <stdlib.h>\n"
		"__attribute__((noinline)) static long leaf(long x) { return x * 3 + 1; }\n"
		"__attribute__((noinline)) static long caller(long x)\n"
		"{\n"
		"\tlong a = leaf(x);\n"
		"\tasm volatile(\"\" ::: \"memory\");\n"
		"\treturn a + leaf(a);\n"
		"}\n"
		"int main(int argc, char **argv) { (void)argv; return (int)caller(argc); }\n";
	char c[128], bin[128], full[128], cmd[512];
	struct elfsyms *e;
	uint64_t start = 0, size = 0;
	struct elfsyms_sym *s1, *s2;
	FILE *nm;

	snprintf(c, sizeof(c), "%s/fold.c", scratch_dir);
	snprintf(bin, sizeof(bin), "%s/fold", scratch_dir);
	snprintf(full, sizeof(full), "%s/fold.full", scratch_dir);
	scratch_write(c, src);
	scratch_run("cc -O2 -fomit-frame-pointer -o %s %s && cp %s %s && strip --strip-all %s", bin,
		    c, bin, full, bin);
	expect_readelf(full);
	snprintf(cmd, sizeof(cmd), "nm -S %s | awk '$4 == \"caller\" { print $1, $2 }'", full);
	nm = popen(cmd, "r");
	cr_assert_not_null(nm);
	cr_assert_eq(fscanf(nm, "%" SCNx64 " %" SCNx64, &start, &size), 2, "no caller in nm");
	pclose(nm);
	cr_assert_eq(elfsyms__load(AT_FDCWD, bin, "/nonexistent", &e), 0);
	/* two addresses inside caller(), where its two calls return to */
	s1 = elfsyms__find(e, start + size / 3);
	s2 = elfsyms__find(e, start + size - 1);
	cr_assert(s1 && s2, "no function at caller's addresses");
	cr_expect(s1 == s2 && s1->addr == start && !s1->name,
		  "caller() is not one nameless function at %#" PRIx64 ": %#" PRIx64 ", %#" PRIx64,
		  start, s1->addr, s2->addr);
	elfsyms__free(e);
}
