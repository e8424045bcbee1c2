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

#endif /* FAULTLINE_RSS_MATH_H */
