/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Windows of a continuous session (--every): every row's counts as the last window ended, so
 * that a window's rows are what came since. The counters stay cumulative in the maps (nothing
 * is reset, so nothing that lands between two reads is lost); a row that moves (a retired
 * process's, folded into another's key) takes its baseline along, or the next window would
 * count it again.
 */
#ifndef FAULTLINE_WINDOW_H
#define FAULTLINE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include "faultline.h"

struct fl_row;

struct window_base;

struct window_base *window_base__new(void);    /* NULL on -ENOMEM */
void window_base__free(struct window_base *w); /* accepts NULL */

/* Whether the row of @key made it into the window's profile (its process is known). */
typedef bool (*window_counted_fn)(const struct fl_key *key, void *ctx);

/* The rows of @rows that @counted says went into the window, as of now: the next window starts
 * there for them. The others keep their baseline, so what they hold goes into the first window
 * that counts them (a child not known yet). @counted NULL: all. Returns 0 or -ENOMEM. */
int window_base__mark(struct window_base *w, const struct fl_row *rows, size_t n,
		      window_counted_fn counted, void *ctx);

/* How many rows have a baseline: those of the last mark (and where moves took them). */
size_t window_base__size(const struct window_base *w);

/* The row of @from moved into the row of @to: its baseline is added to @to's. Returns 0 or
 * -ENOMEM. */
int window_base__move(struct window_base *w, const struct fl_key *from, const struct fl_key *to);

/* @rows less their baselines (counts__since()) into a new array *@out (free() it) of *@nout,
 * rows with nothing since left out. With @ends, a second array *@ends (free() it) beside it:
 * the same rows as they stand, for the metrics that are levels (metric__is_level()); a row
 * with a level is then kept though nothing came since (a block held for days). Returns 0 or
 * -ENOMEM. */
int window_base__since(const struct window_base *w, const struct fl_row *rows, size_t n,
		       struct fl_row **out, struct fl_row **ends, size_t *nout);

#endif /* FAULTLINE_WINDOW_H */
