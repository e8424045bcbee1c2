// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/sharedpages.h"
#include <string.h>
#include "model/profile.h"

void shared_pages__sum(const struct fl_proc_summary *procs, size_t n, struct shared_pages *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		const struct fl_proc_summary *s = &procs[i];
		const struct proc_status *now = &s->now, *then = &s->at_attach;

		uint64_t shareable = s->attributed.grow[FL_FILE] + s->attributed.grow[FL_SHMEM];

		out->growth += metric__value(&s->attributed, FL_METRIC_RESIDENT);
		out->shareable_growth += shareable;
		out->shareable_procs += shareable > 0;
		if (!s->alive || s->no_status || !now->have_pss || !then->have_pss)
			continue;
		out->procs++;
		out->rss_change += report__sdiff(now->rss_anon, then->rss_anon) +
				   report__sdiff(now->rss_file, then->rss_file) +
				   report__sdiff(now->rss_shmem, then->rss_shmem);
		out->pss_change += report__sdiff(now->pss, then->pss);
	}
}

bool shared_pages__likely(const struct shared_pages *s)
{
	return !shared_pages__overstated(s) && s->shareable_procs >= 2 &&
	       s->shareable_growth >= SHARED_PAGES_MIN_EXCESS &&
	       s->shareable_growth >= s->growth / 2;
}

bool shared_pages__overstated(const struct shared_pages *s)
{
	int64_t excess = s->rss_change - s->pss_change;

	return s->procs >= 2 && excess >= (int64_t)SHARED_PAGES_MIN_EXCESS &&
	       excess >= s->rss_change / 2;
}
