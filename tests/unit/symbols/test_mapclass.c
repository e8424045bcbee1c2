/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Mapping classes (--by mapping): frame names, and file paths by fl_file_id(). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "faultline.h"
#include "symbols/mapclass.h"

static void parse(const char *text, struct procmaps *m)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	cr_assert_not_null(f);
	cr_assert_eq(procmaps__parse(f, m), 0);
	fclose(f);
}

/* The BPF side names a file by its super block's dev_t (major << 20 | minor) and inode; maps
 * lines show the same as "major:minor inode", in hex and decimal. */
Test(mapclass, learns_files_by_kernel_id)
{
	static const char maps[] =
		"55d0c8a4c000-55d0c8a4e000 r--p 00000000 fe:01 1837           /usr/bin/app\n"
		"55d0c8a4e000-55d0c8a53000 r-xp 00002000 fe:01 1837           /usr/bin/app\n"
		"55d0c9d9e000-55d0c9dbf000 rw-p 00000000 00:00 0              [heap]\n"
		"7f0a00000000-7f0a02000000 rw-s 00000000 00:01 3077           /memfd:buf (deleted)\n"
		"7f0a10000000-7f0a12000000 r--p 00000000 103:02 131077        /var/tmp/data (deleted)\n"
		"7f0a20000000-7f0a20021000 rw-p 00000000 00:00 0 \n";
	struct file_names fn = {};
	struct procmaps m;

	parse(maps, &m);
	cr_assert_eq(file_names__learn(&fn, &m), 0);
	cr_expect_eq(fn.n, 3, "the executable once, the memfd and the data file: %zu", fn.n);
	cr_expect_str_eq(file_names__find(&fn, fl_file_id(0xfe << 20 | 1, 1837)), "/usr/bin/app");
	cr_expect_str_eq(file_names__find(&fn, fl_file_id(0x103 << 20 | 2, 131077)),
			 "/var/tmp/data (deleted)");
	cr_expect_null(file_names__find(&fn, fl_file_id(0xfe << 20 | 1, 1838)));
	cr_expect_null(file_names__find(&fn, fl_file_id(0xfe << 20 | 2, 1837)),
		       "the device is part of the identity");
	procmaps__free(&m);
	file_names__free(&fn);
	cr_expect_eq(fn.n, 0);
}

/* A file unmapped since stays known; a later name for the same file does not replace it. */
Test(mapclass, remembers_across_snapshots)
{
	struct file_names fn = {};
	struct procmaps a, b;

	parse("7f0a10000000-7f0a12000000 r--p 00000000 08:01 42 /data/old\n", &a);
	parse("7f0a30000000-7f0a32000000 r--p 00000000 08:01 42 /data/renamed\n"
	      "7f0a40000000-7f0a42000000 r--p 00000000 08:01 7 /data/other\n", &b);
	cr_assert_eq(file_names__learn(&fn, &a), 0);
	cr_assert_eq(file_names__learn(&fn, &b), 0);
	cr_expect_str_eq(file_names__find(&fn, fl_file_id(8 << 20 | 1, 42)), "/data/old");
	cr_expect_str_eq(file_names__find(&fn, fl_file_id(8 << 20 | 1, 7)), "/data/other");
	procmaps__free(&a);
	procmaps__free(&b);
	file_names__free(&fn);
}

/* The identity of a real file, from stat(2), matches the one learnt from our own maps. */
Test(mapclass, own_executable)
{
	struct file_names fn = {};
	struct procmaps m;
	struct stat st;
	FILE *f = fopen("/proc/self/maps", "r");
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	cr_assert(f && n > 0);
	exe[n] = '\0';
	cr_assert_eq(procmaps__parse(f, &m), 0);
	fclose(f);
	cr_assert_eq(stat(exe, &st), 0);
	cr_assert_eq(file_names__learn(&fn, &m), 0);
	cr_expect_str_eq(file_names__find(&fn, fl_file_id(major(st.st_dev) << 20 | minor(st.st_dev),
							  st.st_ino)),
			 exe);
	procmaps__free(&m);
	file_names__free(&fn);
}

Test(mapclass, names)
{
	cr_expect_str_eq(map_class__name(FL_MAP_HEAP), "[heap]");
	cr_expect_str_eq(map_class__name(FL_MAP_THREAD_STACK), "[thread stack]");
	cr_expect_str_eq(map_class__name(FL_MAP_THP), "[anon THP]");
	cr_expect_str_eq(map_class__name(FL_MAP_HUGETLB), "[hugetlb]");
	cr_expect_str_eq(map_class__name(FL_MAP__COUNT), "[unclassified]");
	for (unsigned c = 0; c < FL_MAP__COUNT; c++)
		cr_expect(map_class__name(c)[0] == '[', "class %u", c);
}
