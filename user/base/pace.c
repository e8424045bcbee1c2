// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "base/pace.h"
#include <time.h>

bool pace__due(const struct pace *p, uint64_t now)
{
	return !p->at || now >= p->next;
}

void pace__done(struct pace *p, uint64_t start, uint64_t cpu_ns)
{
	p->at = start;
	p->next = start + cpu_ns * PACE_SHARE_INV;
}

void pace__done_among(struct pace *p, uint64_t start, uint64_t cpu_ns, size_t n)
{
	pace__done(p, start, cpu_ns * (n ? n : 1));
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t pace__now(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t pace__thread_cpu(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}
