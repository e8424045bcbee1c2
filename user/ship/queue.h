/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The windows of a continuous session on their way to one endpoint: a thread posts them in
 * order, so that tracing never waits for the network. A request that fails is tried again
 * after 1 s, 2 s, 4 s... (at most 30 s apart) while the session goes on; the queue holds at most
 * a bound of windows, and when a new one finds it full the oldest waiting is dropped and
 * counted lost. At the end each window queued gets one more try, no waits, within a deadline;
 * what fails or is left then is lost too.
 */
#ifndef FAULTLINE_SHIP_QUEUE_H
#define FAULTLINE_SHIP_QUEUE_H

#include <stdint.h>
#include "ship/ship.h"

struct ship_queue;

struct ship_stats {
	uint64_t sent, lost, retries;
	uint64_t waiting;     /* in the queue now (ship_queue__stats()) */
	char last_error[320]; /* the last failure's words; "" when none */
};

/* A queue of at most @max requests to @t (copied; its strings must outlive the queue), its
 * thread started. NULL on -ENOMEM or when no thread could start (errno says). */
struct ship_queue *ship_queue__new(const struct ship_target *t, size_t max);

/* Takes @req (its body is the queue's now) as the newest window. */
void ship_queue__push(struct ship_queue *q, struct ship_request *req);

/* What was sent and lost so far. */
void ship_queue__stats(struct ship_queue *q, struct ship_stats *st);

/* Lets the thread send what is queued for up to @deadline_ms more, then stops it and frees the
 * queue; what was not sent by then counts as lost in @st. Accepts NULL (nothing done). */
void ship_queue__finish(struct ship_queue *q, long deadline_ms, struct ship_stats *st);

#endif /* FAULTLINE_SHIP_QUEUE_H */
