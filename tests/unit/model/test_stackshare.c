/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* How whole the stacks are: bytes by how their walk ended, and the phrase the header shows. */
#include <criterion/criterion.h>
#include <string.h>
#include "model/stackshare.h"

Test(stackshare, growth_and_alloc_by_end)
{
	struct fl_stack_share s = { 0 };
	struct fl_counts whole = {
		.grow = { [FL_ANON] = 900, [FL_FILE] = 80, [FL_SHMEM] = 7, [FL_SWAP] = 1000 },
		.alloc_bytes = 50
	};
	struct fl_counts cut = { .grow = { [FL_ANON] = 13 }, .alloc_bytes = 50 };
	char buf[256];

	stack_share__add(&s, FL_END_WHOLE, &whole);
	stack_share__add(&s, FL_END_NO_TABLE, &cut);
	cr_expect_eq(s.growth[FL_END_WHOLE], 987, "swap entries are not resident growth");
	cr_expect_eq(s.growth[FL_END_NO_TABLE], 13);
	cr_expect_str_eq(stack_share__describe(s.growth, buf, sizeof(buf)),
			 "98.7% whole, 1.3% cut (no unwind info 1.3%)");
	cr_expect_str_eq(stack_share__describe(s.alloc, buf, sizeof(buf)),
			 "50.0% whole, 50.0% cut (no unwind info 50.0%)");
	stack_share__add(&s, FL_SHARE_LOST, &cut);
	stack_share__add(&s, FL_END_DEPTH, &cut);
	cr_expect_str_eq(
		stack_share__describe(s.growth, buf, sizeof(buf)),
		"96.2% whole, 3.8% cut (no unwind info 1.3%, depth 1.3%, stack lost 1.3%)");
}

Test(stackshare, nothing_or_all_whole)
{
	struct fl_stack_share s = { 0 };
	struct fl_counts c = { .grow = { [FL_ANON] = 4096 } };
	char buf[64];

	cr_expect_str_eq(stack_share__describe(s.growth, buf, sizeof(buf)), "");
	stack_share__add(&s, FL_END_WHOLE, &c);
	cr_expect_str_eq(stack_share__describe(s.growth, buf, sizeof(buf)),
			 "100.0% whole, 0.0% cut");
	stack_share__add(&s, 99, &c); /* an end this build does not know: counted as cut */
	cr_expect_str_eq(stack_share__describe(s.growth, buf, sizeof(buf)),
			 "50.0% whole, 50.0% cut (frame pointers 50.0%)");
}

Test(stackshare, saturates)
{
	struct fl_stack_share s = { 0 };
	struct fl_counts c = { .grow = { [FL_ANON] = UINT64_MAX, [FL_FILE] = 5 } };

	stack_share__add(&s, FL_END_WHOLE, &c);
	stack_share__add(&s, FL_END_WHOLE, &c);
	cr_expect_eq(s.growth[FL_END_WHOLE], UINT64_MAX);
}
