/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The interactive live view (ncurses): the header figures, then the call tree with a cursor.
 * Keys switch the metric, the per-thread frames and the sort (total, or growth over the last
 * interval), expand and collapse nodes, show a table alone above the tree (threads, allocation
 * or memory call sites), pause, and quit to the final report.
 */
#ifndef FAULTLINE_TUI_H
#define FAULTLINE_TUI_H

#include <stdbool.h>
#include "model/profile.h"
#include "model/report.h"
#include "views/table.h"

struct tui;

/* What the session must do after the keys the view read. */
enum tui_action {
	TUI_NONE = 0,
	TUI_REFRESH, /* the metric, the thread frames or the inventory view changed: build a
		      * snapshot now */
	TUI_QUIT,    /* end the session (the final report follows on the plain terminal) */
};

/*
 * Takes over the terminal (stdin and stdout must be one). @metrics: the metrics the session
 * can show, @nmetrics of them, @metric the current one. Returns NULL when the terminal cannot
 * be used (the caller falls back to plain snapshots).
 */
struct tui *tui__start(const enum fl_metric *metrics, size_t nmetrics, enum fl_metric metric,
		       bool threads);

/* Gives the terminal back; accepts NULL. */
void tui__stop(struct tui *t);

/* The fd to poll for keys. */
int tui__fd(const struct tui *t);

/* Shows @r and @p, which the view reads for its redraws until the next call that returns
 * true (the caller keeps them alive until then). Returns false, taking nothing, while paused. */
bool tui__show(struct tui *t, const struct fl_report *r, const struct profile *p,
	       const struct table_opts *o);

/* True while the user keeps the view on what it shows. */
bool tui__paused(const struct tui *t);

/* Reads every pending key and acts on it. */
enum tui_action tui__input(struct tui *t);

/* The metric and thread frames the user chose for the view (the final report and the files
 * keep those tui__start() was given). */
enum fl_metric tui__metric(const struct tui *t);
bool tui__threads(const struct tui *t);

/* True while the view shows the resident inventory (key i) in place of the tree: the
 * session then reads the targets' smaps at its refreshes, paced. */
bool tui__inventory(const struct tui *t);

#endif /* FAULTLINE_TUI_H */
