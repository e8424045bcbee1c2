/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "base/intern.h"

struct pair {
	uint64_t a, b;
};

Test(intern, records_dense_ids_by_content)
{
	struct intern t;

	intern__init(&t, sizeof(struct pair));
	for (uint64_t i = 0; i < 10000; i++) {
		struct pair k = { i, i * 7 };

		cr_assert_eq(intern__id(&t, &k), i + 1, "a new record takes the next id");
	}
	for (uint64_t i = 0; i < 10000; i += 37) {
		struct pair k = { i, i * 7 };
		const struct pair *got;

		cr_assert_eq(intern__id(&t, &k), i + 1, "found again after the table grew");
		got = intern__get(&t, i + 1);
		cr_expect(got->a == i && got->b == i * 7);
	}
	cr_expect_eq(t.n, 10000);
	intern__fini(&t);
	cr_expect_eq(t.n, 0);
}

Test(intern, strings_are_copied)
{
	struct intern t;
	char buf[32];

	intern__init(&t, 0);
	for (int i = 0; i < 3000; i++) {
		snprintf(buf, sizeof(buf), "name%d", i % 1000);
		cr_assert_eq(intern__id(&t, buf), (uint64_t)(i % 1000) + 1);
	}
	strcpy(buf, "name5");
	cr_expect_str_eq(intern__get(&t, 6), "name5");
	buf[0] = 'X';
	cr_expect_str_eq(intern__get(&t, 6), "name5", "the table keeps its own copy");
	cr_expect_eq(intern__id(&t, ""), 1001, "the empty string is a string like any");
	intern__fini(&t);
}
