/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The windows' queue with its endpoint down: each window is sent or counted lost, exactly. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "ship/queue.h"

static struct ship_request request(void)
{
	struct ship_request r = { .type = "application/x-protobuf" };

	snprintf(r.url, sizeof(r.url), "http://127.0.0.1:1/v1development/profiles");
	r.body = strdup("x");
	r.len = 1;
	return r;
}

/* Nothing listens on port 1: a full queue drops its oldest waiting, and at the end each one
 * left gets one more try; none is sent, all five are counted lost, none twice. */
Test(queue, every_window_is_sent_or_lost_once)
{
	const struct ship_target t = { .url = "http://127.0.0.1:1", .timeout_ms = 2000 };
	struct ship_queue *q = ship_queue__new(&t, 2);
	struct ship_stats st;

	cr_assert_not_null(q);
	for (int i = 0; i < 5; i++) {
		struct ship_request r = request();

		ship_queue__push(q, &r);
		cr_expect_null(r.body, "the queue took the body");
	}
	ship_queue__finish(q, 5000, &st);
	cr_expect_eq(st.sent, 0);
	cr_expect_eq(st.lost, 5, "lost %lu", (unsigned long)st.lost);
	cr_expect_neq(st.last_error[0], '\0');
}
