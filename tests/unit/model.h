/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Building profile models in the unit tests. */
#ifndef FAULTLINE_TEST_MODEL_H
#define FAULTLINE_TEST_MODEL_H

#include "profile.h"

/* Adds the stack "a|b|c" (frames split at '|', so names may hold ';' and anything else, up
 * to 32 frames) with @c; fails the test when profile__add() does. */
void model_add(struct profile *p, const char *path, struct fl_counts c);

#endif /* FAULTLINE_TEST_MODEL_H */
