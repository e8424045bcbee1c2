// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "unit/model_builder.h"

void model_add_sep(struct profile *p, const char *path, const char *sep, struct fl_counts c)
{
	char buf[1024], *save = NULL, *tok;
	const char *frames[64];
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, sep, &save); tok && n < 64; tok = strtok_r(NULL, sep, &save))
		frames[n++] = tok;
	cr_assert_eq(profile__add(p, frames, n, &c), 0, "adding %s", path);
}

void model_add(struct profile *p, const char *path, struct fl_counts c)
{
	model_add_sep(p, path, "|", c);
}

struct fl_counts model_anon(uint64_t bytes, uint64_t faults)
{
	struct fl_counts c = { 0 };

	c.grow[FL_ANON] = bytes;
	c.faults = faults;
	return c;
}
