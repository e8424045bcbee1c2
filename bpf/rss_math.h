/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * RSS counter arithmetic used by the BPF programs and compiled by the unit tests too:
 * static inline functions only, no BPF helpers.
 */
#ifndef FAULTLINE_RSS_MATH_H
#define FAULTLINE_RSS_MATH_H

#include "faultline.h"

/* A member index from the tracepoint, or -1 when the kernel reports one we do not know. */
static inline int fl_member_index(int member)
{
	return member >= 0 && member < FL_MEMBERS ? member : -1;
}

/*
 * The counter values a newly seen mm of process @p starts from (DESIGN.md, "Growth is counted
 * from a baseline"):
 *  - the counters read from /proc/PID/status at attach, for the mm that existed then;
 *  - zero for an mm created by exec (it starts empty, so all of it is growth);
 *  - otherwise unknown: the first value seen becomes the baseline and is not growth
 *    (a forked child starts with a copy of its parent's counters).
 * Returns the flags @p should have afterwards.
 */
static inline __u32 fl_mm_baseline(const struct fl_proc *p, __u32 mm_id, __s64 last[FL_MEMBERS])
{
	__u32 flags = p->flags;
	int i;

	if (flags & FL_PROC_SEEDED) {
		for (i = 0; i < FL_MEMBERS; i++)
			last[i] = p->seed[i];
		flags &= ~FL_PROC_SEEDED;
	} else if ((flags & FL_PROC_FRESH) || ((flags & FL_PROC_MM_KNOWN) && p->mm_id != mm_id)) {
		for (i = 0; i < FL_MEMBERS; i++)
			last[i] = 0;
	} else {
		for (i = 0; i < FL_MEMBERS; i++)
			last[i] = FL_SIZE_UNKNOWN;
	}
	return (flags & ~FL_PROC_FRESH) | FL_PROC_MM_KNOWN;
}

/*
 * The signed change from @last to @size, or 0 when @last is still unknown (the first value
 * seen is a baseline, not growth).
 */
static inline __s64 fl_rss_delta(__s64 last, __s64 size)
{
	return last == FL_SIZE_UNKNOWN ? 0 : size - last;
}

/* Growth and release are counted apart so that every metric stays non-negative. */
static inline void fl_split_delta(__s64 delta, __u64 *grow, __u64 *release)
{
	*grow = delta > 0 ? (__u64)delta : 0;
	*release = delta < 0 ? (__u64)-delta : 0;
}

/* Net resident bytes a row holds: growth - release of anon, file and shmem (not swap). */
static inline __s64 fl_resident_net(const struct fl_counts *c)
{
	return (__s64)(c->grow[FL_ANON] + c->grow[FL_FILE] + c->grow[FL_SHMEM]) -
	       (__s64)(c->release[FL_ANON] + c->release[FL_FILE] + c->release[FL_SHMEM]);
}

/*
 * Before a row changes: when its mm has reached a new peak since the row last changed, the
 * row's net then was its net now; keep it. So no row needs touching when the peak moves.
 */
static inline void fl_peak_before_change(struct fl_counts *c, __u64 mm_peak_seq)
{
	if (c->peak_seq != mm_peak_seq) {
		c->at_peak = fl_resident_net(c);
		c->peak_seq = mm_peak_seq;
	}
}

/* After a change: true (and the peak raised) when anon + file + shmem is a new high. */
static inline bool fl_peak_after_change(__s64 *peak, const __s64 last[FL_MEMBERS])
{
	__s64 total = last[FL_ANON] + last[FL_FILE] + last[FL_SHMEM];

	if (total <= *peak)
		return false;
	*peak = total;
	return true;
}

/* A row's net resident bytes at its mm's highest point (@mm_peak_seq: the mm's peak_seq). */
static inline __s64 fl_at_peak(const struct fl_counts *c, __u64 mm_peak_seq)
{
	return c->peak_seq == mm_peak_seq ? c->at_peak : fl_resident_net(c);
}

#endif /* FAULTLINE_RSS_MATH_H */
