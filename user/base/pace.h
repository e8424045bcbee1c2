/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Work paced to a share of a core: each run waits PACE_SHARE_INV times the CPU time the last
 * one took, from the last one's start. For reads whose cost grows with the target (a walk of
 * every live block, smaps_rollup's walk of every page table), so that a refresh costs the same
 * on a small process and on a 100 GiB one; their figures are then as of the last run.
 */
#ifndef FAULTLINE_PACE_H
#define FAULTLINE_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A run's CPU time is at most 1 / PACE_SHARE_INV of the time to the next one. */
#define PACE_SHARE_INV 100

struct pace {
	uint64_t at;   /* CLOCK_MONOTONIC ns at the start of the last run; 0: none yet */
	uint64_t next; /* from then on a run is due */
};

/* True when a run is due at @now (CLOCK_MONOTONIC ns): none yet, or its wait is over. */
bool pace__due(const struct pace *p, uint64_t now);

/* A run that started at @start took @cpu_ns of CPU. */
void pace__done(struct pace *p, uint64_t start, uint64_t cpu_ns);

/* pace__done() for one of @n alike (each process's read of one file): together they keep to
 * the share one would, however many they are. */
void pace__done_among(struct pace *p, uint64_t start, uint64_t cpu_ns, size_t n);

/* CLOCK_MONOTONIC and the calling thread's CPU time, in ns. */
uint64_t pace__now(void);
uint64_t pace__thread_cpu(void);

#endif /* FAULTLINE_PACE_H */
