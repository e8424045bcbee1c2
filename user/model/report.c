// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/report.h"
#include <stdio.h>
#include <string.h>
#include "model/profile.h"

int64_t report__sdiff(uint64_t a, uint64_t b)
{
	if (a >= b)
		return a - b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(a - b);
	return b - a > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)(b - a);
}

void proc_summary__reconcile(const struct fl_proc_summary *s, int64_t kern[FL_MEMBERS],
			     int64_t gap[FL_MEMBERS])
{
	const struct proc_status *n = &s->now, *t = &s->at_attach;
	const struct fl_counts *c = &s->attributed;

	kern[FL_ANON] = report__sdiff(n->rss_anon, t->rss_anon);
	kern[FL_FILE] = report__sdiff(n->rss_file, t->rss_file);
	kern[FL_SHMEM] = report__sdiff(n->rss_shmem, t->rss_shmem);
	kern[FL_SWAP] = report__sdiff(n->vm_swap, t->vm_swap);
	for (int m = 0; m < FL_MEMBERS; m++) {
		kern[m] += s->exec_left[m];
		gap[m] = kern[m] - report__sdiff(c->grow[m], c->release[m]);
	}
}

uint64_t proc_status__private_cost(const struct proc_status *s)
{
	return s->pss_anon + s->vm_pte;
}

void proc_summary__ending(const struct fl_proc_summary *s, char *buf, size_t len)
{
	const char *abbrev = s->exit_signal > 0 ? sigabbrev_np(s->exit_signal) : NULL;

	if (s->alive || !s->have_exit)
		snprintf(buf, len, "%s", s->alive ? "alive" : "exited");
	else if (abbrev)
		snprintf(buf, len, "killed by SIG%s", abbrev);
	else if (s->exit_signal > 0)
		snprintf(buf, len, "killed by signal %d", s->exit_signal);
	else
		snprintf(buf, len, "exited with status %d", s->exit_code);
}

void report__charge(struct fl_counts *attributed, uint64_t *hugetlb_faults,
		    const struct fl_key *key, const struct fl_counts *c)
{
	if (key->origin != FL_ORIGIN_EXIT)
		counts__add(attributed, c);
	if (key->map_class == FL_MAP_HUGETLB)
		*hugetlb_faults += c->faults;
}

int report__oldest_age(const struct fl_report *r, const struct fl_call_site *s, uint64_t *ns)
{
	*ns = 0;
	if (!metric__value(&s->counts, FL_METRIC_LIVE_COUNT) &&
	    !metric__value(&s->counts, FL_METRIC_LIVE_BYTES))
		return 0;
	if (s->oldest_ts && r->now_ns >= s->oldest_ts) {
		*ns = r->now_ns - s->oldest_ts;
		return 1;
	}
	if (!r->ages_ns || r->now_ns < r->ages_ns)
		return 0;
	*ns = r->now_ns - r->ages_ns;
	return -1;
}

bool report__ages_as_of(const struct fl_report *r, uint64_t *ns)
{
	*ns = 0;
	if (!r->ages_ns || r->now_ns < r->ages_ns)
		return false;
	if (!r->ages_now)
		*ns = r->now_ns - r->ages_ns;
	return true;
}
