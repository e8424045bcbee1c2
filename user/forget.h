/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Exited processes past --keep-exited go from the targets, the oldest first: a host or a
 * service followed for days starts millions, and each one kept would cost memory and a turn
 * at every refresh, so that a week would hold seven times what a day holds. What they were
 * charged stays, summed (model/forgotten.h); their rows are already another's.
 */
#ifndef FAULTLINE_FORGET_H
#define FAULTLINE_FORGET_H

#include "session_state.h"

/* Forgets the oldest exited processes that can go once a quarter more than the bound are kept,
 * down to the bound; again as more exit or rows move (some kept may have become forgettable). */
void forget__exited(struct session *s);

#endif /* FAULTLINE_FORGET_H */
