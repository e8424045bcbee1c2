/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "views/inventorytable.h"

#define KIB 1024ULL
#define MIB (1024ULL * 1024)

/* The fixture's mappings at attach, and at the end the same with the pool grown by 1 MiB. */
static void load(struct inventory *inv)
{
	const struct thread_sp threads[] = {
		{ .tid = 101, .comm = "worker", .sp = 0x7f0004700000 }
	};
	struct map_kind_hints h = { .threads = threads, .nthreads = 1 };
	struct inv_read r = { .have_vm_rss = true };
	FILE *f = fopen("fixtures/smaps_mixed.txt", "r");
	struct map_kind_of k[32];
	struct smaps m;

	cr_assert_not_null(f);
	cr_assert_eq(smaps__parse(f, &m), 0);
	fclose(f);
	mapkind__classify(&m, &h, k);
	r.vm_rss = 46 * MIB;
	cr_assert_eq(inventory__take(inv, INV_AT_ATTACH, &m, k, &r), 0);
	m.v[9].rss += MIB;
	cr_assert_eq(inventory__take(inv, INV_AT_END, &m, k, &r), 0);
	smaps__free(&m);
}

static const struct inv_row *row(const struct inv_row *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

Test(inventorytable, rows_grouped_and_ordered)
{
	struct inventory inv = {};
	struct inv_row *v;
	const struct inv_row *r;
	size_t n;

	load(&inv);
	cr_assert_eq(inventorytable__rows(&inv, &v, &n), 0);
	/* the heaviest first: the pool, then the arena */
	cr_expect_str_eq(v[0].name, "[anon:pool] 0x7f0006000000-0x7f0008000000 (32.0 MiB)");
	cr_expect_eq(v[0].at[INV_AT_END].rss - v[0].at[INV_AT_ATTACH].rss, MIB);
	r = row(v, n, "arena 0x7f0000000000");
	cr_assert_not_null(r);
	cr_expect_eq(r->nmappings, 2, "the arena and its reserve");
	cr_expect_eq(r->owner, INV_OWNER_ALLOCATOR);
	r = row(v, n, "thread worker (101)");
	cr_assert_not_null(r);
	cr_expect_eq(r->nmappings, 2, "the stack and its guard page");
	cr_expect_eq(r->at[INV_AT_END].rss, 2056 * KIB);
	r = row(v, n, "stacks of no live thread");
	cr_assert_not_null(r, "the cached stack, told by its guard page");
	cr_expect_eq(r->nmappings, 2);
	r = row(v, n, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	cr_assert_not_null(r, "libc holds over 1 MiB: a row of its own");
	cr_expect_eq(r->nmappings, 3);
	cr_expect_eq(r->at[INV_AT_ATTACH].rss, (160 + 900 + 16) * KIB);
	r = row(v, n, "3 small file mappings");
	cr_assert_not_null(r, "/usr/bin/app's two segments, /run/app/buffer (no tmpfs hint)");
	cr_expect(r->grouped);
	r = row(v, n, "2 kernel mappings ([vdso], [vvar], ...)");
	cr_assert_not_null(r);
	cr_expect_not_null(row(v, n, "/memfd:cache (deleted)"));
	cr_expect_not_null(row(v, n, "[heap]"));
	cr_expect_not_null(row(v, n, "/anon_hugepage (deleted)"), "hugetlb: by itself");
	for (size_t i = 1; i < n; i++) {
		uint64_t a = v[i - 1].at[INV_AT_END].rss + v[i - 1].at[INV_AT_END].hugetlb;
		uint64_t b = v[i].at[INV_AT_END].rss + v[i].at[INV_AT_END].hugetlb;

		cr_expect_geq(a >= v[i - 1].at[0].rss ? a : v[i - 1].at[0].rss, b, "row %zu", i);
	}
	free(v);
	inventory__free(&inv);
}

static char *render(const struct fl_proc_summary *s, unsigned width, size_t max_rows)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	inventorytable__render(f, width, s, max_rows, true, 0);
	fclose(f);
	return buf;
}

Test(inventorytable, render_bounded_and_summed)
{
	struct inventory inv = {};
	struct fl_proc_summary s = { .pid = 4242, .comm = "app", .inventory = &inv };
	char *text;

	load(&inv);
	text = render(&s, 200, 4);
	cr_expect_not_null(
		strstr(text, "inventory of pid 4242 app: 20 mappings at attach, 20 at end"));
	cr_expect_not_null(strstr(text, "SWAP"), "the pool has swap: the column shows");
	cr_expect_not_null(strstr(text, "[anon:pool]"));
	cr_expect_not_null(strstr(text, "more rows:"), "past the bound, the rest named");
	cr_expect_not_null(strstr(text, "  at attach rows "));
	cr_expect_not_null(strstr(text, "  at end    rows "));
	cr_expect_not_null(strstr(text, "change    rows +1.0 MiB"));
	cr_expect_not_null(strstr(text, "hugetlb pages 4.0 MiB (outside RSS)"));
	for (char *line = text; *line;) {
		size_t len = strcspn(line, "\n");

		cr_expect_leq(len, 200);
		line += len + (line[len] == '\n');
	}
	free(text);
	s.inventory = NULL;
	text = render(&s, 100, 0);
	cr_expect_str_eq(text, "", "no inventory, no section");
	free(text);
	inventory__free(&inv);
}
