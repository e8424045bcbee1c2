/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* A frame of code with a table (bpf/faultline.h FL_FRAME_OBJ): the same in every process. */
#include <criterion/criterion.h>
#include "faultline.h"

/* Two processes map one object at different places (ASLR): its frames are equal. */
Test(frames, one_object_address_in_every_layout)
{
	const __u64 bias_a = 0x55d1c0a00000ull, bias_b = 0x5601f3200000ull, vaddr = 0x1234;
	__u64 a = bias_a + vaddr + fl_frame_delta(7, bias_a);
	__u64 b = bias_b + vaddr + fl_frame_delta(7, bias_b);

	cr_expect_eq(a, b);
	cr_expect(a & FL_FRAME_OBJ);
	cr_expect_eq(fl_frame_table(a), 7);
	cr_expect_eq(fl_frame_vaddr(a), vaddr);
}

/* The table and the address keep apart at their bounds; another object is another frame. */
Test(frames, bounds)
{
	const __u64 bias = 0x7f0000000000ull;
	__u64 top = bias + 0xffffffffull + fl_frame_delta(4095, bias);

	cr_expect_eq(fl_frame_table(top), 4095);
	cr_expect_eq(fl_frame_vaddr(top), 0xffffffffu);
	cr_expect_neq(bias + 0x10 + fl_frame_delta(1, bias), bias + 0x10 + fl_frame_delta(2, bias));
	/* a user address is never an object's frame */
	cr_expect(!((0x00007fffffffffffull) & FL_FRAME_OBJ));
}
