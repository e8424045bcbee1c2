/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Whether shared pages make the resident growth of several processes overstate what the
 * machine paid: RSS counts a shared page once in every process that maps it (a server's
 * shared buffers, touched by each backend), PSS splits it among them. Over the processes
 * whose RSS and PSS are known at both ends, the RSS change far above the PSS change is pages
 * counted more than once.
 */
#ifndef FAULTLINE_SHAREDPAGES_H
#define FAULTLINE_SHAREDPAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/report.h"

/* Below this, the excess is too small to be worth a line (a few shared library pages). */
#define SHARED_PAGES_MIN_EXCESS (4ULL << 20)

struct shared_pages {
	uint64_t growth; /* resident growth of every process (what the tree sums) */
	/* ... of it, file and shmem growth, and the processes that had some: pages that may
	 * be another process's too, the one sign left when the processes are gone (PSS is
	 * then as last read) */
	uint64_t shareable_growth;
	size_t shareable_procs;
	size_t procs;	    /* the processes compared: alive, RSS and PSS read at both ends */
	int64_t rss_change; /* ... the sum of their RssAnon + RssFile + RssShmem changes */
	int64_t pss_change; /* ... and of their Pss changes */
};

/* Sums the @n processes @procs into @out. An exited process is left out of the comparison:
 * its PSS is as last read while it lived, its pages gone since. */
void shared_pages__sum(const struct fl_proc_summary *procs, size_t n, struct shared_pages *out);

/* The RSS change exceeds the PSS change by SHARED_PAGES_MIN_EXCESS or more, and by at least
 * half the RSS change: most of the resident growth is pages counted once per process. */
bool shared_pages__overstated(const struct shared_pages *s);

/* Not told by PSS (the processes compared are too few: gone by the end, as a pgbench
 * backend is), but two processes or more grew file and shmem pages, SHARED_PAGES_MIN_EXCESS
 * or more and at least half of all the growth: pages that may count in several. */
bool shared_pages__likely(const struct shared_pages *s);

#endif /* FAULTLINE_SHAREDPAGES_H */
