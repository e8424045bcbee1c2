/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/procmaps.h"

static void parse_fixture(const char *name, struct procmaps *m, int want)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "fixtures/%s", name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "fixture %s", path);
	cr_assert_eq(procmaps__parse(f, m), want);
	fclose(f);
}

/* The entry covering @addr, which must exist. */
static const struct procmap_entry *at(const struct procmaps *m, uint64_t addr)
{
	const struct procmap_entry *e = procmaps__find(m, addr);

	cr_assert_not_null(e, "no entry at %#llx", (unsigned long long)addr);
	return e;
}

Test(procmaps, parses_file_mapping)
{
	struct procmaps m;
	const struct procmap_entry *e;

	parse_fixture("maps_mixed.txt", &m, 0);
	cr_assert_eq(m.nr, 18);
	e = &m.entries[1];
	cr_expect_eq(e->start, 0x55d0c8a4e000ULL);
	cr_expect_eq(e->end, 0x55d0c8a53000ULL);
	cr_expect_eq(e->offset, 0x2000);
	cr_expect_eq(e->perms, PROCMAP_READ | PROCMAP_EXEC | PROCMAP_PRIVATE);
	cr_expect_eq(e->dev_major, 8);
	cr_expect_eq(e->dev_minor, 1);
	cr_expect_eq(e->inode, 1316528);
	cr_expect_str_eq(e->path, "/usr/bin/cat");
	cr_expect_not(e->is_deleted);
	cr_expect_not(e->is_special);
	cr_expect(procmap_entry__is_file(e));
	cr_expect_str_eq(procmap_entry__basename(e), "cat");
	procmaps__free(&m);
}

Test(procmaps, anonymous_and_special)
{
	struct procmaps m;
	const struct procmap_entry *e;

	parse_fixture("maps_mixed.txt", &m, 0);
	e = at(&m, 0x55d0c9f1a000ULL);
	cr_expect_str_eq(e->path, "[heap]");
	cr_expect(e->is_special);
	cr_expect_not(procmap_entry__is_file(e));
	cr_expect_str_eq(procmap_entry__basename(e), "[heap]");

	e = at(&m, 0x7f1e2a000000ULL); /* anonymous, trailing space */
	cr_expect_str_eq(e->path, "");
	cr_expect_not(e->is_special);
	cr_expect_not(procmap_entry__is_file(e));
	e = at(&m, 0x7f1e2a021000ULL); /* anonymous, no trailing space */
	cr_expect_str_eq(e->path, "");
	cr_expect_eq(e->perms, PROCMAP_PRIVATE);

	e = at(&m, 0x7f1e2e400123ULL);
	cr_expect_str_eq(e->path, "[anon:libc_malloc]");
	cr_expect(e->is_special);

	cr_expect(at(&m, 0x7ffd1b6a3000ULL)->is_special);
	cr_expect_str_eq(at(&m, 0x7ffd1b7d0000ULL)->path, "[vvar]");
	cr_expect_str_eq(at(&m, 0x7ffd1b7d5fffULL)->path, "[vdso]");
	e = at(&m, 0xffffffffff600000ULL);
	cr_expect_str_eq(e->path, "[vsyscall]");
	cr_expect_eq(e->perms, PROCMAP_EXEC | PROCMAP_PRIVATE);
	procmaps__free(&m);
}

Test(procmaps, deleted_and_spaces)
{
	struct procmaps m;
	const struct procmap_entry *e;

	parse_fixture("maps_mixed.txt", &m, 0);
	/* only the kernel's final suffix goes */
	e = at(&m, 0x7f1e2e800000ULL);
	cr_expect_str_eq(e->path, "/opt/my app/lib/libspace (deleted).so");
	cr_expect(e->is_deleted);
	cr_expect_str_eq(procmap_entry__basename(e), "libspace (deleted).so");

	e = at(&m, 0x7f1e2e900000ULL);
	cr_expect_str_eq(e->path, "/memfd:pool");
	cr_expect(e->is_deleted);
	cr_expect_eq(e->perms, PROCMAP_READ | PROCMAP_WRITE); /* shared: no PRIVATE bit */

	e = at(&m, 0x7f1e2eb00000ULL);
	cr_expect_str_eq(e->path, "/home/u/My Documents/tool with spaces");
	cr_expect_not(e->is_deleted);
	cr_expect_eq(e->dev_major, 0xfd);
	cr_expect_eq(e->dev_minor, 2);
	procmaps__free(&m);
}

Test(procmaps, find_boundaries)
{
	struct procmaps m;

	parse_fixture("maps_mixed.txt", &m, 0);
	cr_expect_null(procmaps__find(&m, 0));
	cr_expect_null(procmaps__find(&m, 0x55d0c8a4bfffULL));
	cr_expect_eq(procmaps__find(&m, 0x55d0c8a4c000ULL), &m.entries[0]);
	cr_expect_eq(procmaps__find(&m, 0x55d0c8a4dfffULL), &m.entries[0]);
	cr_expect_eq(procmaps__find(&m, 0x55d0c8a4e000ULL), &m.entries[1]);
	/* the gap between 55d0c8a55000 and 55d0c8a56000 */
	cr_expect_null(procmaps__find(&m, 0x55d0c8a55000ULL));
	cr_expect_null(procmaps__find(&m, 0x7f1e2e7bd000ULL));
	cr_expect_null(procmaps__find(&m, UINT64_MAX));
	procmaps__free(&m);
}

Test(procmaps, sorts_entries)
{
	struct procmaps m;

	parse_fixture("maps_unsorted.txt", &m, 0);
	cr_assert_eq(m.nr, 3);
	cr_expect_str_eq(m.entries[0].path, "[a]");
	cr_expect_str_eq(m.entries[1].path, "[b]");
	cr_expect_str_eq(m.entries[2].path, "[c]");
	cr_expect_str_eq(at(&m, 0x7800)->path, "[b]");
	procmaps__free(&m);
}

Test(procmaps, malformed_line_fails_clean)
{
	struct procmaps m;

	parse_fixture("maps_bad.txt", &m, -EINVAL);
	cr_expect_eq(m.nr, 0);
	cr_expect_null(m.entries);
	procmaps__free(&m);
	procmaps__free(NULL);
}

Test(procmaps, parse_line_rejects)
{
	struct procmap_entry e;

	cr_expect_eq(procmaps__parse_line("", &e), -EINVAL);
	cr_expect_eq(procmaps__parse_line("2000-1000 r--p 0 00:00 0", &e), -EINVAL);
	cr_expect_eq(procmaps__parse_line("1000-2000 r- 0 00:00 0", &e), -EINVAL);
	cr_expect_eq(procmaps__parse_line("1000-2000 r--p 0 00:00 0x /x", &e), -EINVAL);
	cr_expect_eq(procmaps__parse_line("1000-2000 r--p 0 00:00 -1 /x", &e), -EINVAL);
	cr_expect_eq(procmaps__parse_line("1000-2000 r--p 0 100000000:00 0 /x", &e), -EINVAL);
	cr_expect_eq(procmaps__parse_line("1000-10000000000000000 r--p 0 00:00 0", &e), -EINVAL);
	cr_expect_eq(procmaps__parse_line("1000 2000 r--p 0 00:00 0", &e), -EINVAL);
	cr_assert_eq(procmaps__parse_line("1000-2000 r--p 0 00:00 0\n", &e), 0);
	cr_expect_str_eq(e.path, "");
	free(e.path);
	cr_assert_eq(procmaps__parse_line("7f00a000-7f00b000 r-xp 0002f000 fd:1a 98765  /a b", &e),
		     0);
	cr_expect_eq(e.start, 0x7f00a000);
	cr_expect_eq(e.end, 0x7f00b000);
	cr_expect_eq(e.offset, 0x2f000);
	cr_expect_eq(e.dev_major, 0xfd);
	cr_expect_eq(e.dev_minor, 0x1a);
	cr_expect_eq(e.inode, 98765);
	cr_expect_eq(e.perms, PROCMAP_READ | PROCMAP_EXEC | PROCMAP_PRIVATE);
	cr_expect_str_eq(e.path, "/a b");
	free(e.path);
}

Test(procmaps, empty_input)
{
	struct procmaps m;
	FILE *f = fmemopen((char *)"", 0, "r");

	cr_assert_not_null(f);
	cr_assert_eq(procmaps__parse(f, &m), 0);
	cr_expect_eq(m.nr, 0);
	cr_expect_null(procmaps__find(&m, 0x1000));
	procmaps__free(&m);
	fclose(f);
}

Test(procmaps, self_maps)
{
	struct procmaps m;
	FILE *f = fopen("/proc/self/maps", "r");
	const struct procmap_entry *e;

	cr_assert_not_null(f);
	cr_assert_eq(procmaps__parse(f, &m), 0);
	fclose(f);
	e = procmaps__find(&m, (uint64_t)(uintptr_t)&procmaps__find);
	cr_assert_not_null(e);
	cr_expect(e->perms & PROCMAP_EXEC);
	cr_expect(procmap_entry__is_file(e));
	procmaps__free(&m);
}

/* What procmap_entry__write() writes, procmaps__parse() reads back the same. */
Test(procmaps, write_reads_back)
{
	struct procmaps m, again;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	parse_fixture("maps_mixed.txt", &m, 0);
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	for (size_t i = 0; i < m.nr; i++)
		cr_assert_eq(procmap_entry__write(f, &m.entries[i]), 0);
	fclose(f);
	f = fmemopen(text, len, "r");
	cr_assert_eq(procmaps__parse(f, &again), 0);
	fclose(f);
	cr_assert_eq(again.nr, m.nr);
	for (size_t i = 0; i < m.nr; i++) {
		const struct procmap_entry *a = &m.entries[i], *b = &again.entries[i];

		cr_expect(a->start == b->start && a->end == b->end && a->offset == b->offset &&
				  a->inode == b->inode && a->dev_major == b->dev_major &&
				  a->dev_minor == b->dev_minor && a->perms == b->perms &&
				  a->is_deleted == b->is_deleted && a->is_special == b->is_special,
			  "entry %zu differs: %s", i, text);
		cr_expect_str_eq(a->path, b->path);
	}
	procmaps__free(&again);
	procmaps__free(&m);
	free(text);
}

Test(procmaps, overlaps)
{
	struct procmaps m;

	parse_fixture("maps_mixed.txt", &m, 0);
	cr_expect(procmaps__overlaps(&m, 0x55d0c8a4c000ULL, 0x55d0c8a4c001ULL));
	cr_expect(procmaps__overlaps(&m, 0, UINT64_MAX));
	cr_expect(procmaps__overlaps(&m, 0x55d0c8a4b000ULL, 0x55d0c8a4c001ULL), "ends inside");
	cr_expect_not(procmaps__overlaps(&m, 0x55d0c8a4b000ULL, 0x55d0c8a4c000ULL),
		      "ends at start");
	cr_expect_not(procmaps__overlaps(&m, 0x55d0c8a55000ULL, 0x55d0c8a56000ULL), "the gap");
	cr_expect_not(procmaps__overlaps(&m, 0, 0x1000));
	procmaps__free(&m);
}
