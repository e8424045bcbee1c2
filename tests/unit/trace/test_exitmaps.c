/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include "trace/exitmaps.h"

/* The BPF side writes a path's components leaf first, each NUL-terminated. */
Test(exitmaps, path_from_components)
{
	static const char libc[] = "libc.so.6\0x86_64-linux-gnu\0lib\0usr";
	static const char root_file[] = "init";
	char buf[64];

	cr_expect_str_eq(exit_maps__path(libc, sizeof(libc), buf, sizeof(buf)),
			 "/usr/lib/x86_64-linux-gnu/libc.so.6");
	cr_expect_str_eq(exit_maps__path(root_file, sizeof(root_file), buf, sizeof(buf)), "/init");
	cr_expect_str_eq(exit_maps__path(libc, 0, buf, sizeof(buf)), "", "no path sent");
	cr_expect_str_eq(exit_maps__path(libc, sizeof(libc) - 1, buf, sizeof(buf)), "",
			 "not NUL-terminated: cut");
	cr_expect_str_eq(exit_maps__path(libc, sizeof(libc), buf, 20), "", "does not fit");
	cr_expect_str_eq(exit_maps__path("a\0\0b", 5, buf, sizeof(buf)), "/b//a",
			 "an empty component is kept as written");
}
