/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Where an allocator probe stops in its process, for the legacy programs' cookies. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "probes/probesites.h"

static const char maps_text[] =
	"55d0c0000000-55d0c0001000 r--p 00000000 08:01 100 /usr/bin/app\n"
	"55d0c0001000-55d0c0002000 r-xp 00001000 08:01 100 /usr/bin/app\n"
	"7f0000000000-7f0000028000 r--p 00000000 08:01 200 /lib/libc.so.6\n"
	"7f0000028000-7f000019d000 r-xp 00028000 08:01 200 /lib/libc.so.6\n"
	"7f000019d000-7f00001f5000 r--p 0019d000 08:01 200 /lib/libc.so.6\n"
	"7f1000000000-7f1000010000 r-xp 00004000 08:01 300 /opt/gone.so (deleted)\n";

static void parse(struct procmaps *m)
{
	FILE *f = fmemopen((void *)maps_text, sizeof(maps_text) - 1, "r");

	cr_assert_not_null(f);
	cr_assert_eq(procmaps__parse(f, m), 0);
	fclose(f);
}

Test(probesites, a_file_offset_is_placed_in_the_executable_mapping_that_holds_it)
{
	struct procmaps m;
	uint64_t at = 0;

	parse(&m);
	cr_expect_eq(probesites__vaddr(&m, "/lib/libc.so.6", 0x9a0f0, &at), 0);
	cr_expect_eq(at, 0x7f0000028000 + (0x9a0f0 - 0x28000));
	cr_expect_eq(probesites__vaddr(&m, "/usr/bin/app", 0x1010, &at), 0);
	cr_expect_eq(at, 0x55d0c0001010);
	procmaps__free(&m);
}

Test(probesites, an_offset_outside_code_or_another_file_is_not_placed)
{
	struct procmaps m;
	uint64_t at = 7;

	parse(&m);
	/* read-only data of libc, not code: no probe stops there */
	cr_expect_eq(probesites__vaddr(&m, "/lib/libc.so.6", 0x19d010, &at), -ENOENT);
	cr_expect_eq(probesites__vaddr(&m, "/lib/libc.so", 0x9a0f0, &at), -ENOENT);
	cr_expect_eq(probesites__vaddr(&m, "/usr/bin/app", 0x2000, &at), -ENOENT);
	cr_expect_eq(at, 7);
	procmaps__free(&m);
}

Test(probesites, a_deleted_file_is_named_by_its_mapping_s_range)
{
	struct procmaps m;
	uint64_t at = 0;

	parse(&m);
	cr_expect_eq(probesites__vaddr(&m, "/proc/42/map_files/7f1000000000-7f1000010000", 0x4100,
				       &at),
		     0);
	cr_expect_eq(at, 0x7f1000000100);
	cr_expect_eq(probesites__vaddr(&m, "/proc/42/map_files/7f2000000000-7f2000010000", 0x4100,
				       &at),
		     -ENOENT);
	procmaps__free(&m);
}
