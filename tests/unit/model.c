// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "unit/model.h"

void model_add(struct profile *p, const char *path, struct fl_counts c)
{
	char buf[512], *save = NULL, *tok;
	const char *frames[32];
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, "|", &save); tok && n < 32; tok = strtok_r(NULL, "|", &save))
		frames[n++] = tok;
	cr_assert_eq(profile__add(p, frames, n, &c), 0, "adding %s", path);
}
