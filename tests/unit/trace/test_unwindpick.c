/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The code mappings a process's unwind list keeps when it maps more than the walk holds
 * (unwind__pick): the executable, the loader, the C library and the vdso whatever their place
 * and size, then the runtimes, then the largest; the rest named, each file once.
 */
#include <criterion/criterion.h>
#include <string.h>
#include "trace/unwind.h"

static struct symbolizer_code code(uint64_t start, uint64_t size, const char *path)
{
	return (struct symbolizer_code){ .start = start, .end = start + size, .path = path };
}

static bool kept(const struct symbolizer_code *c, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].path, path))
			return true;
	return false;
}

Test(unwindpick, all_kept_when_they_fit)
{
	struct symbolizer_code c[] = { code(0x1000, 0x1000, "/bin/app"),
				       code(0x7f00, 0x100, "/lib/libc.so.6") };
	char names[64] = "stale";

	cr_expect_eq(unwind__pick(c, 2, 2, names, sizeof(names)), 2);
	cr_expect_str_eq(names, "");
}

Test(unwindpick, the_core_first_then_runtimes_then_the_largest)
{
	struct symbolizer_code c[] = {
		code(0x1000, 0x100, "/usr/bin/app"),	       /* the lowest: the executable */
		code(0x10000, 0x9000, "/tmp/libbig.so"),       /* the largest plugin */
		code(0x20000, 0x100, "/tmp/libsmall1.so"),     /* ... small ones */
		code(0x21000, 0x100, "/tmp/libsmall2.so"),
		code(0x22000, 0x100, "/tmp/libsmall2.so"),     /* a file mapped twice */
		code(0x30000, 0x200, "/usr/lib/libstdc++.so.6"),
		code(0x40000, 0x100, "/lib/x86_64-linux-gnu/libc.so.6"),
		code(0x50000, 0x100, "/lib64/ld-linux-x86-64.so.2"),
		code(0x60000, 0x100, "[vdso]"),
	};
	char names[64];
	size_t n = unwind__pick(c, 9, 6, names, sizeof(names));

	cr_assert_eq(n, 6);
	for (size_t i = 1; i < n; i++)
		cr_expect_lt(c[i - 1].start, c[i].start, "kept in address order");
	cr_expect(kept(c, n, "/usr/bin/app"));
	cr_expect(kept(c, n, "/lib/x86_64-linux-gnu/libc.so.6"));
	cr_expect(kept(c, n, "/lib64/ld-linux-x86-64.so.2"));
	cr_expect(kept(c, n, "[vdso]"));
	cr_expect(kept(c, n, "/usr/lib/libstdc++.so.6"));
	cr_expect(kept(c, n, "/tmp/libbig.so"));
	cr_expect_str_eq(names, "libsmall1.so, libsmall2.so");
}

Test(unwindpick, names_cut_with_an_ellipsis)
{
	static const char *const paths[] = { "/a/liba.so", "/a/libbbbbbbbbbbbbbbbbbbbb.so",
					     "/a/libc2.so", "/a/libd.so" };
	struct symbolizer_code c[5];
	char names[48];

	c[0] = code(0x1000, 0x100, "/bin/app");
	for (int i = 0; i < 4; i++)
		c[i + 1] = code(0x10000 * (uint64_t)(i + 1), 0x100, paths[i]);
	cr_assert_eq(unwind__pick(c, 5, 1, names, sizeof(names)), 1);
	cr_expect_str_eq(c[0].path, "/bin/app");
	cr_expect_str_eq(names, "liba.so, libbbbbbbbbbbbbbbbbbbbb.so, ...");
}
