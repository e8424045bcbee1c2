// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "views/tui.h"
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/units.h"
#include "views/inventorytable.h"
#include "views/tuitree.h"

#define HEADER_SHARE 0.4 /* of the screen, at most, for the figures above the tree */
#define TABLE_SHARE 0.6	 /* ... for a table shown alone there (tab) */
#define AUTO_SHARE 0.05	 /* nodes holding this share of the total start expanded */

static const char help_line[] =
	"q quit  arrows/jk move  enter/right open  left close  "
	"m metric  s sort  t threads  tab tables  f figures  i inventory  p pause";

struct tui {
	enum fl_metric metrics[FL_METRIC__COUNT];
	size_t nmetrics;
	enum fl_metric metric;
	bool threads;
	/* the command line's: the final report and the files keep them whatever the view shows */
	enum fl_metric given_metric;
	bool given_threads;
	enum tui_sort sort;
	bool paused;
	bool figures;			/* the header figures are shown */
	enum table_panel panel;		/* ... or the table tab chose */
	bool inventory;			/* the resident inventory in place of the tree */
	size_t inventory_top;		/* its first line on screen */
	const struct fl_report *report; /* what tui__show() was given, until the next call */
	const struct profile *profile;
	struct table_opts opts;
	struct tui_tree tree;
	struct tui_row *rows;
	size_t nrows;
	uint64_t selected; /* path of the row under the cursor; 0: the first */
	size_t top;	   /* first tree row on screen */
	FILE *log;	   /* what was written to stderr meanwhile, shown when the view ends */
	int saved_stderr;
};

struct tui *tui__start(const enum fl_metric *metrics, size_t nmetrics, enum fl_metric metric,
		       bool threads)
{
	struct tui *t = calloc(1, sizeof(*t));

	if (!t || !nmetrics || nmetrics > FL_METRIC__COUNT) {
		free(t);
		return NULL;
	}
	memcpy(t->metrics, metrics, nmetrics * sizeof(*metrics));
	t->nmetrics = nmetrics;
	t->metric = t->given_metric = metric;
	t->threads = t->given_threads = threads;
	t->figures = true;
	t->tree.auto_share = AUTO_SHARE;
	setlocale(LC_CTYPE, "");
	/* newterm, not initscr: initscr exits the process when the terminal is unusable */
	if (!newterm(NULL, stdout, stdin)) {
		free(t);
		return NULL;
	}
	/* messages (a target exits, libbpf) would land in the middle of the screen */
	t->saved_stderr = -1;
	t->log = tmpfile();
	fflush(stderr);
	if (t->log && (t->saved_stderr = dup(STDERR_FILENO)) >= 0)
		dup2(fileno(t->log), STDERR_FILENO);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	return t;
}

void tui__stop(struct tui *t)
{
	char buf[4096];
	size_t n;

	if (!t)
		return;
	endwin();
	fflush(stderr);
	if (t->saved_stderr >= 0) {
		dup2(t->saved_stderr, STDERR_FILENO);
		close(t->saved_stderr);
	}
	if (t->log) {
		rewind(t->log);
		while ((n = fread(buf, 1, sizeof(buf), t->log)) > 0)
			fwrite(buf, 1, n, stderr);
		fclose(t->log);
	}
	free(t->rows);
	tuitree__free(&t->tree);
	free(t);
}

int tui__fd(const struct tui *t)
{
	(void)t;
	return STDIN_FILENO;
}

bool tui__paused(const struct tui *t)
{
	return t->paused;
}

enum fl_metric tui__metric(const struct tui *t)
{
	return t->metric;
}

bool tui__threads(const struct tui *t)
{
	return t->threads;
}

bool tui__inventory(const struct tui *t)
{
	return t->inventory;
}

/* Draws @text's lines from screen row @y on, at most @max of them. Returns rows used. */
static int draw_text(int y, const char *text, int max)
{
	int used = 0;

	while (*text && used < max) {
		const char *nl = strchr(text, '\n');
		int len = nl ? (int)(nl - text) : (int)strlen(text);

		mvaddnstr(y + used, 0, text, len < COLS ? len : COLS);
		used++;
		text += len + (nl ? 1 : 0);
	}
	return used;
}

/* The header figures (the table's), or the table tab chose, cut to a share of the screen. */
static int draw_figures(struct tui *t, int y)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int used;

	if (!t->figures || !t->report || !(mem = open_memstream(&text, &len)))
		return 0;
	t->opts.width = (unsigned)COLS;
	if (!table__has_panel(t->report, t->panel))
		t->panel = TABLE_PANEL_FIGURES;
	table__render_panel(mem, t->report, &t->opts, t->panel);
	fclose(mem);
	used = draw_text(
		y, text ? text : "",
		(int)(LINES * (t->panel == TABLE_PANEL_FIGURES ? HEADER_SHARE : TABLE_SHARE)));
	free(text);
	return used;
}

static size_t selected_index(const struct tui *t)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].path == t->selected)
			return i;
	return 0;
}

static void draw_row(const struct tui *t, int y, const struct tui_row *r, uint64_t total,
		     bool cursor)
{
	bool bytes = metric__is_bytes(t->metric);
	char v[UNITS_BUF], d[UNITS_BUF], line[UNITS_LINE_MAX + 1], name[512];
	unsigned indent = r->depth * 2 > 40 ? 40 : r->depth * 2;

	units__value(v, sizeof(v), r->value, bytes);
	units__svalue(d, sizeof(d), r->delta, bytes);
	snprintf(name, sizeof(name), "%s", r->node->name);
	units__sanitize(name);
	snprintf(line, sizeof(line), "%10s %5.1f%% %10s  %*s%s %s", v,
		 total ? 100.0 * (double)r->value / (double)total : 0.0, d, (int)indent, "",
		 !r->has_children ? " " :
		 r->expanded	  ? "-" :
				    "+",
		 name);
	if (cursor)
		attron(A_REVERSE);
	mvaddnstr(y, 0, line, COLS);
	if (cursor) {
		for (int x = (int)strlen(line); x < COLS; x++)
			mvaddch(y, x, ' ');
		attroff(A_REVERSE);
	}
}

/* What the final report and the files will hold, when the view shows something else. */
static void given_note(const struct tui *t, char *buf, size_t len)
{
	buf[0] = '\0';
	if (t->metric != t->given_metric || t->threads != t->given_threads)
		snprintf(buf, len, "  (report and files: %s%s)", metric__name(t->given_metric),
			 t->threads == t->given_threads ? "" :
			 t->given_threads		? ", thread frames" :
							  ", no thread frames");
}

/* The inventory of each process in place of the tree, from its line inventory_top on. */
static void draw_inventory(struct tui *t, int y)
{
	char *text = NULL;
	const char *p;
	size_t len = 0, skip;
	FILE *mem = open_memstream(&text, &len);
	bool any = false;

	if (!mem)
		return;
	for (size_t i = 0; t->report && i < t->report->nprocs; i++) {
		if (!t->report->procs[i].inventory)
			continue;
		inventorytable__render(mem, (unsigned)COLS, &t->report->procs[i], 0, false,
				       t->report->now_ns);
		any = true;
	}
	if (!any)
		fputs(t->report ? "(no inventory: it is read for the -p targets and a launched "
				  "command, at the next refresh)\n" :
				  "(waiting for the first refresh)\n",
		      mem);
	fclose(mem);
	p = text ? text : "";
	for (skip = t->inventory_top; skip && *p; skip--) {
		const char *nl = strchr(p, '\n');

		p = nl ? nl + 1 : p + strlen(p);
	}
	draw_text(y, p, LINES - y - 1);
	free(text);
}

static void draw(struct tui *t)
{
	char title[256], metric[32], given[64];
	int y = 1, rows;
	size_t cur;
	uint64_t total;

	erase();
	snprintf(metric, sizeof(metric), "%s", metric__name(t->metric));
	given_note(t, given, sizeof(given));
	snprintf(title, sizeof(title), "faultline %.1f s  metric %s  sort %s%s%s%s",
		 t->report ? t->report->elapsed_s : 0.0, metric,
		 t->sort == TUI_SORT_DELTA ? "growth/interval" : "total",
		 t->threads ? "  threads" : "", t->paused ? "  PAUSED" : "", given);
	attron(A_BOLD);
	mvaddnstr(0, 0, title, COLS);
	attroff(A_BOLD);
	y += draw_figures(t, y);
	if (t->inventory) {
		draw_inventory(t, y);
		attron(A_REVERSE);
		mvaddnstr(LINES - 1, 0, help_line, COLS);
		attroff(A_REVERSE);
		refresh();
		return;
	}
	snprintf(title, sizeof(title), "%10s %6s %10s  %s", metric, "%",
		 t->sort == TUI_SORT_DELTA ? "GROWTH/INT" : "LAST INT", "STACK");
	for (char *c = title; *c; c++)
		*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
	attron(A_BOLD);
	mvaddnstr(y++, 0, title, COLS);
	attroff(A_BOLD);
	rows = LINES - y - 1;
	cur = selected_index(t);
	if (rows > 0) {
		if (cur < t->top)
			t->top = cur;
		if (cur >= t->top + (size_t)rows)
			t->top = cur - (size_t)rows + 1;
	}
	total = t->profile ? metric__value(&t->profile->root.total, t->metric) : 0;
	for (int i = 0; i < rows && t->top + (size_t)i < t->nrows; i++)
		draw_row(t, y + i, &t->rows[t->top + (size_t)i], total, t->top + (size_t)i == cur);
	if (!t->nrows && rows > 0)
		mvaddnstr(y, 0,
			  t->profile ? "(nothing attributed yet for this metric)" :
				       "(waiting for the first refresh)",
			  COLS);
	attron(A_REVERSE);
	mvaddnstr(LINES - 1, 0, help_line, COLS);
	attroff(A_REVERSE);
	refresh();
}

/* Recomputes the visible rows from the profile shown. */
static void relayout(struct tui *t)
{
	struct tui_row *rows;
	size_t n;

	if (!t->profile)
		return;
	if (tuitree__rows(&t->tree, t->profile, t->metric, t->sort, &rows, &n))
		return; /* out of memory: keep the last layout */
	free(t->rows);
	t->rows = rows;
	t->nrows = n;
	if (t->nrows && !t->selected)
		t->selected = t->rows[0].path;
}

bool tui__show(struct tui *t, const struct fl_report *r, const struct profile *p,
	       const struct table_opts *o)
{
	if (t->paused)
		return false;
	t->report = r;
	t->profile = p;
	t->opts = *o;
	tuitree__rotate(&t->tree);
	relayout(t);
	draw(t);
	return true;
}

static void move_cursor(struct tui *t, long by)
{
	long i = (long)selected_index(t) + by;

	if (!t->nrows)
		return;
	if (i < 0)
		i = 0;
	if (i >= (long)t->nrows)
		i = (long)t->nrows - 1;
	t->selected = t->rows[i].path;
}

/* Opens or closes the node under the cursor; closing a closed one goes to its parent. */
static void open_close(struct tui *t, bool open)
{
	size_t i = selected_index(t);
	const struct tui_row *r;

	if (!t->nrows)
		return;
	r = &t->rows[i];
	if (!open && (!r->has_children || !r->expanded)) {
		while (i > 0 && t->rows[i - 1].depth >= r->depth)
			i--;
		if (i > 0)
			t->selected = t->rows[i - 1].path;
		return;
	}
	if (r->has_children)
		tuitree__mark(&t->tree, r->path, open);
}

static enum tui_action next_metric(struct tui *t, int step)
{
	size_t i = 0;

	while (i < t->nmetrics && t->metrics[i] != t->metric)
		i++;
	i = (i + t->nmetrics + (size_t)(long)step) % t->nmetrics;
	t->metric = t->metrics[i];
	tuitree__forget_values(&t->tree);
	return TUI_REFRESH;
}

/* The next panel above the tree that the session has: figures, threads, sites, calls. */
static void next_panel(struct tui *t)
{
	enum table_panel p = t->panel;

	do
		p = (p + 1) % TABLE_PANEL__COUNT;
	while (t->report && !table__has_panel(t->report, p));
	t->panel = p;
	t->figures = true;
}

static enum tui_action key(struct tui *t, int c)
{
	int page = LINES > 4 ? LINES / 2 : 1;

	switch (c) {
	case 'q':
	case 'Q':
		return TUI_QUIT;
	case KEY_UP:
	case 'k':
		if (t->inventory && t->inventory_top)
			t->inventory_top--;
		move_cursor(t, -1);
		break;
	case KEY_DOWN:
	case 'j':
		t->inventory_top += t->inventory;
		move_cursor(t, 1);
		break;
	case 'i':
		/* a read of smaps now: what the view shows is the process as it is */
		t->inventory = !t->inventory;
		t->inventory_top = 0;
		draw(t);
		return TUI_REFRESH;
	case KEY_PPAGE:
		move_cursor(t, -page);
		break;
	case KEY_NPAGE:
	case ' ':
		move_cursor(t, page);
		break;
	case KEY_HOME:
	case 'g':
		move_cursor(t, -(long)t->nrows);
		break;
	case KEY_END:
	case 'G':
		move_cursor(t, (long)t->nrows);
		break;
	case KEY_RIGHT:
	case KEY_ENTER:
	case '\n':
	case 'l':
		open_close(t, true);
		break;
	case KEY_LEFT:
	case KEY_BACKSPACE:
	case 'h':
		open_close(t, false);
		break;
	case 'm':
		return next_metric(t, 1);
	case 'M':
		return next_metric(t, -1);
	case 't':
		t->threads = !t->threads;
		return TUI_REFRESH;
	case 's':
		t->sort = t->sort == TUI_SORT_TOTAL ? TUI_SORT_DELTA : TUI_SORT_TOTAL;
		break;
	case '\t':
		next_panel(t);
		break;
	case 'f':
		t->figures = !t->figures;
		break;
	case 'p':
		t->paused = !t->paused;
		break;
	case KEY_RESIZE:
		break;
	default:
		return TUI_NONE;
	}
	relayout(t);
	draw(t);
	return TUI_NONE;
}

enum tui_action tui__input(struct tui *t)
{
	enum tui_action act = TUI_NONE;
	int c;

	while (act != TUI_QUIT && (c = getch()) != ERR) {
		enum tui_action a = key(t, c);

		if (a != TUI_NONE)
			act = a;
	}
	return t->paused && act == TUI_REFRESH ? TUI_NONE : act;
}
