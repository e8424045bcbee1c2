/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --sample-time: the allocator probes of --alloc=churn in place a fraction of the time only, in
 * windows of random length, so that a process that calls malloc a million times a second pays
 * one trap per call for that fraction alone. A thread opens and closes the windows
 * (tracer__alloc_window) and keeps the time they were open: what the counts stand for.
 */
#ifndef FAULTLINE_PROBEWINDOWS_H
#define FAULTLINE_PROBEWINDOWS_H

#include <stdint.h>

struct tracer;
struct probe_windows;

/* A window lasts PROBE_WINDOW_MIN_NS to PROBE_WINDOW_MAX_NS, drawn at random: windows of
 * one length would beat in step with a periodic workload (a 100 ms cron). */
#define PROBE_WINDOW_MIN_NS 10000000ull
#define PROBE_WINDOW_MAX_NS 30000000ull

/*
 * The length of the next window: @drawn (PROBE_WINDOW_MIN_NS..MAX_NS at random), or longer when
 * putting the probes in and out costs so much CPU (@toggle_ns, with many targets: each window
 * attaches every one) that windows of that length would spend more than 1 / PACE_SHARE_INV
 * of a core on it at @fraction.
 */
uint64_t probe_windows__len(uint64_t drawn, uint64_t toggle_ns, double fraction);

/* When the next window of @len ns opens, in ns from the start, so that the probes will have
 * been in place @fraction of the time when it closes, after @in_ns in place so far; never
 * before @now_ns. */
uint64_t probe_windows__next_open(uint64_t in_ns, uint64_t len, double fraction, uint64_t now_ns);

/* Starts the windows on @t, whose probes are in place (the first window) since @start_ns
 * (CLOCK_MONOTONIC). Returns 0 or -errno. */
int probe_windows__start(struct probe_windows **out, struct tracer *t, double fraction,
			 uint64_t start_ns);

/* The time the probes were in place up to now, in ns (the open window's part counted). */
uint64_t probe_windows__in_ns(struct probe_windows *w);

/* Stops the thread, leaving the probes as they are; accepts NULL. */
void probe_windows__stop(struct probe_windows *w);

#endif /* FAULTLINE_PROBEWINDOWS_H */
