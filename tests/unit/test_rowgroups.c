/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The counts rows grouped across threads: one group per key but for the thread. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include "rowgroups.h"

static struct fl_row row(uint32_t tgid, uint32_t tid, uint64_t stack, uint16_t call)
{
	return (struct fl_row){ .key = { .tgid = tgid, .tid = tid, .stack = stack, .call = call } };
}

static bool not_pid_9(const struct fl_row *r, void *ctx)
{
	(void)ctx;
	return r->key.tgid != 9;
}

Test(rowgroups, threads_of_a_stack_are_one_group)
{
	const struct fl_row rows[] = {
		row(1, 10, 0xa, 0), row(1, 11, 0xb, 0), row(1, 12, 0xa, 0),
		row(1, 12, 0xa, 2), /* the same stack, another call: its own group */
		row(2, 20, 0xa, 0), /* another process */
		row(9, 90, 0xa, 0), /* filtered out */
		row(1, 13, 0xa, 0),
	};
	size_t n, groups = 0, sizes[8] = { 0 };
	struct row_group *g;

	cr_assert_eq(row_groups__build(rows, 7, not_pid_9, NULL, &g, &n), 0);
	cr_assert_eq(n, 6, "the row of pid 9 left out");
	for (size_t i = 0, j; i < n; i = j, groups++) {
		j = row_groups__end(g, n, i);
		sizes[groups] = j - i;
		for (size_t k = i; k < j; k++) {
			cr_expect_eq(g[k].key.tid, 0);
			cr_expect_eq(rows[g[k].row].key.stack, g[i].key.stack);
			cr_expect_eq(rows[g[k].row].key.tgid, g[i].key.tgid);
			cr_expect_eq(rows[g[k].row].key.call, g[i].key.call);
		}
	}
	cr_expect_eq(groups, 4, "1:a, 1:b, 1:a calling, 2:a");
	/* pid 1's stack a without a call: threads 10, 12 and 13 */
	cr_expect(sizes[0] == 3 || sizes[1] == 3 || sizes[2] == 3 || sizes[3] == 3);
	cr_expect_eq(sizes[0] + sizes[1] + sizes[2] + sizes[3], 6);
	free(g);
}
