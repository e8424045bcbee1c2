// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/probewindows.h"
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include "base/pace.h"
#include "probes/attach.h"

struct probe_windows {
	struct tracer *t;
	double fraction;
	uint64_t start, in_ns, opened; /* opened: 0 while closed */
	uint64_t toggle_ns; /* CPU time of the last window's attach, twice: its detach as much */
	unsigned seed;
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t probe_windows__len(uint64_t drawn, uint64_t toggle_ns, double fraction)
{
	/* a window every len / fraction: toggle_ns of it at most 1 / PACE_SHARE_INV */
	double floor = (double)toggle_ns * PACE_SHARE_INV * fraction;

	return floor > (double)drawn ? (uint64_t)floor : drawn;
}

uint64_t probe_windows__next_open(uint64_t in_ns, uint64_t len, double fraction, uint64_t now_ns)
{
	/* open at s: (in_ns + len) / (s + len) = fraction */
	double s = (double)(in_ns + len) / fraction - (double)len;

	return s > (double)now_ns ? (uint64_t)s : now_ns;
}

/* Waits until @at (ns from the start) or a stop; true on a stop. Called locked. */
static bool wait_until(struct probe_windows *w, uint64_t at)
{
	uint64_t abs = w->start + at;
	struct timespec ts = { .tv_sec = (time_t)(abs / 1000000000ull),
			       .tv_nsec = (long)(abs % 1000000000ull) };

	while (!w->stop && now_ns() < abs)
		pthread_cond_timedwait(&w->wake, &w->lock, &ts);
	return w->stop;
}

static uint64_t draw_len(struct probe_windows *w)
{
	return PROBE_WINDOW_MIN_NS +
	       (uint64_t)rand_r(&w->seed) % (PROBE_WINDOW_MAX_NS - PROBE_WINDOW_MIN_NS);
}

static void *run(void *arg)
{
	struct probe_windows *w = arg;
	uint64_t len = draw_len(w), t;

	pthread_mutex_lock(&w->lock);
	while (!wait_until(w, w->opened - w->start + len)) {
		/* the breakpoints go out 0.2-7 ms after the window ends (a grace period again),
		 * uncounted */
		pthread_mutex_unlock(&w->lock);
		tracer__alloc_window(w->t, false);
		pthread_mutex_lock(&w->lock);
		t = now_ns();
		w->in_ns += t - w->opened;
		w->opened = 0;
		len = probe_windows__len(draw_len(w), w->toggle_ns, w->fraction);
		if (wait_until(w,
			       probe_windows__next_open(w->in_ns, len, w->fraction, t - w->start)))
			break;
		pthread_mutex_unlock(&w->lock);
		/* the kernel puts the breakpoints in at the end of the attach, after waiting for a
		 * grace period (5-20 ms here): the window starts then */
		t = pace__thread_cpu();
		tracer__alloc_window(w->t, true);
		t = pace__thread_cpu() - t;
		pthread_mutex_lock(&w->lock);
		w->toggle_ns = 2 * t;
		w->opened = now_ns();
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int probe_windows__start(struct probe_windows **out, struct tracer *t, double fraction,
			 uint64_t start_ns)
{
	struct probe_windows *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	int err;

	if (!w)
		return -ENOMEM;
	*w = (struct probe_windows){ .t = t,
				     .fraction = fraction,
				     .start = start_ns,
				     .opened = start_ns,
				     .seed = (unsigned)now_ns() };
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &ca);
	pthread_condattr_destroy(&ca);
	err = -pthread_create(&w->thread, NULL, run, w);
	if (err) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

uint64_t probe_windows__in_ns(struct probe_windows *w)
{
	uint64_t in;

	pthread_mutex_lock(&w->lock);
	in = w->in_ns + (w->opened ? now_ns() - w->opened : 0);
	pthread_mutex_unlock(&w->lock);
	return in;
}

void probe_windows__stop(struct probe_windows *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
