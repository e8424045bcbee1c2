// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/stackshare.h"
#include <stdbool.h>
#include <stdio.h>

static const char *const cut_names[FL_SHARE__COUNT] = {
	[FL_END_FP] = "frame pointers",
	[FL_END_WHOLE] = "whole",
	[FL_END_NO_TABLE] = "no unwind info",
	[FL_END_INVALID] = "unfollowable rule",
	[FL_END_READ] = "unreadable stack",
	[FL_END_DEPTH] = "depth",
	[FL_END_FALLBACK] = "frame-pointer fallback",
	[FL_SHARE_LOST] = "stack lost",
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

void stack_share__add(struct fl_stack_share *s, unsigned end, const struct fl_counts *c)
{
	if (end >= FL_SHARE__COUNT)
		end = FL_END_FP;
	s->growth[end] = sat_add(s->growth[end], sat_add(c->grow[FL_ANON], c->grow[FL_FILE]));
	s->growth[end] = sat_add(s->growth[end], c->grow[FL_SHMEM]);
	s->alloc[end] = sat_add(s->alloc[end], c->alloc_bytes);
}

const char *stack_share__describe(const uint64_t v[FL_SHARE__COUNT], char *buf, size_t len)
{
	double total = 0;
	size_t at;
	bool first = true;

	for (unsigned i = 0; i < FL_SHARE__COUNT; i++)
		total += (double)v[i];
	if (len)
		buf[0] = '\0';
	if (total <= 0 || !len)
		return buf;
	at = (size_t)snprintf(buf, len, "%.1f%% whole, %.1f%% cut",
			      100.0 * (double)v[FL_END_WHOLE] / total,
			      100.0 * (total - (double)v[FL_END_WHOLE]) / total);
	for (unsigned i = 0; i < FL_SHARE__COUNT && at < len; i++) {
		if (i == FL_END_WHOLE || !v[i])
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s %.1f%%", first ? " (" : ", ",
				       cut_names[i], 100.0 * (double)v[i] / total);
		first = false;
	}
	if (!first && at < len)
		snprintf(buf + at, len - at, ")");
	return buf;
}
