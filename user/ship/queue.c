// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "ship/queue.h"
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BACKOFF_FIRST_MS 1000
#define BACKOFF_MAX_MS 30000

struct ship_queue {
	struct ship_target target;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct ship_request *v; /* a ring of max */
	size_t max, head, n;
	bool busy;	 /* the thread posts v[head] (outside the lock) */
	bool stopping;	 /* finish() asked: send until the deadline, then go */
	double deadline; /* CLOCK_MONOTONIC ms */
	struct ship_stats st;
};

static void free_at(struct ship_queue *q, size_t i)
{
	ship__request_free(&q->v[(q->head + i) % q->max]);
}

/* Drops the front request (sent, or given up). Under the lock. */
static void pop(struct ship_queue *q)
{
	free_at(q, 0);
	q->head = (q->head + 1) % q->max;
	q->n--;
}

/* Sleeps until @until_ms (CLOCK_MONOTONIC, as the condition's clock), a push or the end.
 * Under the lock. */
static void wait_until(struct ship_queue *q, double until_ms)
{
	struct timespec ts = { .tv_sec = (time_t)(until_ms / 1e3) };

	ts.tv_nsec = (long)((until_ms - (double)ts.tv_sec * 1e3) * 1e6);
	pthread_cond_timedwait(&q->wake, &q->lock, &ts);
}

static void *run(void *arg)
{
	struct ship_queue *q = arg;
	long backoff = 0;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct ship_request req;
		struct ship_cost c;
		char why[sizeof(q->st.last_error)];
		int err;

		while (!q->n && !q->stopping)
			pthread_cond_wait(&q->wake, &q->lock);
		if (!q->n || (q->stopping && ship__now_ms() >= q->deadline))
			break;
		req = q->v[q->head];
		q->busy = true;
		pthread_mutex_unlock(&q->lock);
		err = ship__send(&q->target, &req, &c, why, sizeof(why));
		pthread_mutex_lock(&q->lock);
		q->busy = false;
		if (!err) {
			q->st.sent++;
			pop(q);
			backoff = 0;
			continue;
		}
		memcpy(q->st.last_error, why, sizeof(why));
		if (q->stopping) {
			/* at the end each window gets one more try, no waits: then it is lost */
			q->st.lost++;
			pop(q);
			continue;
		}
		q->st.retries++;
		backoff = backoff ? backoff * 2 : BACKOFF_FIRST_MS;
		if (backoff > BACKOFF_MAX_MS)
			backoff = BACKOFF_MAX_MS;
		/* a new window does not cut the wait short; the end does */
		for (double until = ship__now_ms() + (double)backoff;
		     !q->stopping && ship__now_ms() < until;)
			wait_until(q, until);
	}
	/* what is left could not go in time */
	q->st.lost += q->n;
	while (q->n)
		pop(q);
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct ship_queue *ship_queue__new(const struct ship_target *t, size_t max)
{
	struct ship_queue *q = calloc(1, sizeof(*q));
	pthread_condattr_t attr;
	int err;

	if (!q || !(q->v = calloc(max ? max : 1, sizeof(*q->v)))) {
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	q->target = *t;
	q->max = max ? max : 1;
	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&q->wake, &attr);
	pthread_condattr_destroy(&attr);
	err = pthread_create(&q->thread, NULL, run, q);
	if (err) {
		free(q->v);
		free(q);
		errno = err;
		return NULL;
	}
	return q;
}

void ship_queue__push(struct ship_queue *q, struct ship_request *req)
{
	pthread_mutex_lock(&q->lock);
	if (q->n == q->max && q->busy && q->max == 1) {
		/* the one place holds the request being posted: the new one is lost */
		ship__request_free(req);
		q->st.lost++;
		pthread_mutex_unlock(&q->lock);
		return;
	}
	if (q->n == q->max) {
		/* the oldest waiting goes: the front one while it is being posted is not waiting */
		size_t drop = q->busy ? 1 : 0;

		free_at(q, drop);
		for (size_t i = drop; i + 1 < q->n; i++)
			q->v[(q->head + i) % q->max] = q->v[(q->head + i + 1) % q->max];
		q->n--;
		q->st.lost++;
	}
	q->v[(q->head + q->n) % q->max] = *req;
	q->n++;
	*req = (struct ship_request){ .len = 0 };
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
}

void ship_queue__stats(struct ship_queue *q, struct ship_stats *st)
{
	pthread_mutex_lock(&q->lock);
	*st = q->st;
	st->waiting = q->n;
	pthread_mutex_unlock(&q->lock);
}

void ship_queue__finish(struct ship_queue *q, long deadline_ms, struct ship_stats *st)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stopping = true;
	q->deadline = ship__now_ms() + (double)deadline_ms;
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	*st = q->st;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->wake);
	free(q->v);
	free(q);
}
