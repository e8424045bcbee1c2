/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Building profile models in the unit tests. */
#ifndef FAULTLINE_TEST_MODEL_BUILDER_H
#define FAULTLINE_TEST_MODEL_BUILDER_H

#include "model/profile.h"

/* Adds the stack "a|b|c" (frames split at '|', so names may hold ';' and anything else, up
 * to 64 frames) with @c; fails the test when profile__add() does. */
void model_add(struct profile *p, const char *path, struct fl_counts c);
/* ... with frames split at any character of @sep. */
void model_add_sep(struct profile *p, const char *path, const char *sep, struct fl_counts c);

/* Counts of @bytes anon growth and @faults faults. */
struct fl_counts model_anon(uint64_t bytes, uint64_t faults);

#endif /* FAULTLINE_TEST_MODEL_BUILDER_H */
