/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include "base/pace.h"

Test(pace, first_run_due_then_waits_its_share)
{
	struct pace p = { 0 };

	cr_expect(pace__due(&p, 5), "never run: due");
	pace__done(&p, 1000, 10);
	cr_expect_not(pace__due(&p, 1000 + 10 * PACE_SHARE_INV - 1));
	cr_expect(pace__due(&p, 1000 + 10 * PACE_SHARE_INV));
}

Test(pace, reads_among_many_keep_one_share)
{
	struct pace p = { 0 }, one = { 0 };

	/* 1,000 processes' reads of 50 us each: each waits 1,000 times longer, so that all of
	 * them together take what one process's would */
	pace__done_among(&p, 1000, 50000, 1000);
	cr_expect_not(pace__due(&p, 1000 + 50000ull * PACE_SHARE_INV * 1000 - 1));
	cr_expect(pace__due(&p, 1000 + 50000ull * PACE_SHARE_INV * 1000));
	pace__done_among(&one, 1000, 50000, 0);
	cr_expect(pace__due(&one, 1000 + 50000ull * PACE_SHARE_INV), "none counted: as one");
}
