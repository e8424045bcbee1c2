/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The --alloc heap lines of a process: blocks an exec dropped are told apart from frees. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "views/alloctable.h"

static char *heap(const struct fl_proc_summary *s)
{
	struct fl_report r = { .alloc = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	alloctable__render_heap(f, 200, s, &r);
	fclose(f);
	return buf;
}

Test(alloctable, exec_dropped_blocks_apart)
{
	struct fl_proc_summary s = { .pid = 1 };
	char *out;

	s.attributed.allocs = 65;
	s.attributed.alloc_bytes = 245000;
	s.attributed.frees = 40;
	s.attributed.free_bytes = 120000;
	out = heap(&s);
	cr_expect(strstr(out, "allocs 65 (239.3 KiB), frees 40 (117.2 KiB), unmatched frees 0\n"),
		  "%s", out);
	cr_expect_null(strstr(out, "dropped at exec"), "%s", out);
	cr_expect(strstr(out, "live heap +122.1 KiB (25 blocks)"), "%s", out);
	free(out);
	/* the same 40 blocks, dropped by an exec instead of freed */
	s.exec_dropped = 40;
	s.exec_dropped_bytes = 120000;
	out = heap(&s);
	cr_expect(strstr(out, "allocs 65 (239.3 KiB), frees 0 (0 B), unmatched frees 0\n"), "%s",
		  out);
	cr_expect(strstr(out, "  dropped at exec: 40 blocks (117.2 KiB) the old image left live\n"),
		  "%s", out);
	cr_expect(strstr(out, "live heap +122.1 KiB (25 blocks)"), "%s", out);
	free(out);
}
