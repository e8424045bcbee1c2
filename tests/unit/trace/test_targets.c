/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include "trace/targets.h"

static struct target *add(struct target_set *set, pid_t pid, uint16_t gen)
{
	struct target *t = target_set__add(set);

	cr_assert_not_null(t);
	t->sum.pid = pid;
	t->gen = gen;
	cr_assert_eq(target_set__index(set, t), 0);
	return t;
}

/* A pid's processes, newest first; generation 0 (rows without one) finds the newest. */
Test(targets, found_by_pid_and_generation)
{
	struct target_set set = { 0 };
	size_t first, second;

	add(&set, 42, 0);
	first = (size_t)(add(&set, 100, 3) - set.v);
	for (pid_t p = 1000; p < 3000; p++)
		add(&set, p, 1);
	second = (size_t)(add(&set, 100, 9) - set.v);
	cr_expect_eq(target_set__find(&set, 100), &set.v[second], "the newest");
	cr_expect_eq(target_set__find_gen(&set, 100, 3), &set.v[first]);
	cr_expect_eq(target_set__find_gen(&set, 100, 9), &set.v[second]);
	cr_expect_eq(target_set__find_gen(&set, 100, 0), &set.v[second]);
	cr_expect_null(target_set__find_gen(&set, 100, 5), "a generation never seen");
	cr_expect_eq(target_set__find_gen(&set, 42, 0), &set.v[0]);
	cr_expect_null(target_set__find(&set, 7));
	cr_expect_eq(target_set__find(&set, 2999)->sum.pid, 2999);
	target_set__fini(&set);
}
