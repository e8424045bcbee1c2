// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "session.h"
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/units.h"
#include "debuginfo.h"
#include "follow.h"
#include "forget.h"
#include "formats/folded.h"
#include "formats/output.h"
#include "probes/features.h"
#include "session_state.h"
#include "views/table.h"
#include "views/tui.h"

/* after a SIGINT or SIGTERM, how long a launched command has to exit before the session ends */
#define STOP_GRACE_S 5
#define EVENTS_GAP_S 0.005

/* Redraws the live table in place, cut to the terminal's height so the header stays put. */
static void redraw(FILE *out, const char *text, unsigned rows)
{
	const char *end = text;

	for (unsigned i = 0; rows > 1 && i < rows - 1 && *end; i++) {
		const char *nl = strchr(end, '\n');

		end = nl ? nl + 1 : end + strlen(end);
	}
	fputs("\033[H\033[2J", out);
	fwrite(text, 1, rows > 1 ? (size_t)(end - text) : strlen(text), out);
}

/* Writes the table of @snap to @out: plain, or redrawn in place on a terminal while live.
 * Returns 0 or the write's -errno. */
static int render(FILE *out, const struct snapshot *snap, const struct table_opts *to, bool live,
		  unsigned rows)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	if (!live || !isatty(fileno(out)) || !(mem = open_memstream(&text, &len))) {
		table__render(out, &snap->report, snap->profile, to);
		fputc('\n', out);
	} else {
		table__render(mem, &snap->report, snap->profile, to);
		fclose(mem);
		redraw(out, text, rows);
		free(text);
	}
	return output__stream_error(out);
}

/* A closed stdout (`| head`) ends the table, not the session: the files are still written
 * and the exit status stays 0. Any other failure to write the table makes it 1. */
static void table_failed(struct session *s, FILE *out, int err)
{
	s->table_off = true;
	if (err != -EPIPE)
		s->table_err = err;
	fprintf(stderr, "faultline: writing the table to %s failed: %s; the session goes on\n",
		out == stdout ? "stdout" : "stderr", strerror(-err));
}

/* Lines cut at a width nobody chose (issue 25: 100 columns of a redirected table lost the
 * callers of arena_get2) are said once, with how to widen them; not into a live redraw on
 * a terminal, where it would land in the middle of the screen. */
static void say_cut(struct session *s, FILE *out, bool final, unsigned width)
{
	if (s->width_said || s->cfg->width != UNITS_WIDTH_UNSET || (!final && isatty(fileno(out))))
		return;
	s->width_said = true;
	units__say_cut(stderr, "faultline", width);
}

/* One line of --json-stream. A failed write (a reader gone, a full disk) stops the stream,
 * not the session: the final report and the other outputs still come. */
static void write_stream(struct session *s, const struct snapshot *snap,
			 const struct jsonreport_opts *jo)
{
	FILE *f = s->stream.f;
	/* where this line starts (each line is flushed): a file keeps whole lines only */
	long at = f != stdout ? ftell(f) : -1;
	int err = jsonreport__write(f, &snap->report, snap->profile, jo);

	if (!err)
		return;
	fprintf(stderr, "faultline: writing %s failed: %s; no more JSON lines\n",
		output__name(&s->stream), strerror(-err));
	__fpurge(f); /* what did not fit must not be flushed after the cut */
	if (at >= 0 && ftruncate(fileno(f), at)) {
		/* not a regular file (a FIFO): there is nothing to take back */
	}
	output__discard(&s->stream);
	s->stream_err = err;
}

/* The ages of live blocks cost a walk of them all: made when something shows them, and
 * paced, but at the final report always. */
static enum collector_walk walk_for(const struct session *s, bool final)
{
	const struct fl_config *cfg = s->cfg;

	if (final)
		return COLLECTOR_WALK_NOW;
	if (s->tui || s->stream.path || (!cfg->quiet && !s->table_off))
		return COLLECTOR_WALK_PACED;
	return COLLECTOR_WALK_NONE;
}

/* The session's figures beside the rows' in @r: time, drops, probe windows, unwind tables,
 * the selected cgroups' own counters. */
static void fill_report(struct session *s, struct fl_report *r, bool final)
{
	const struct fl_config *cfg = s->cfg;
	struct fl_stats stats;

	r->elapsed_s = session_now() - s->start;
	r->forgotten = &s->forgotten;
	session__ship_status(s, r);
	r->final = final;
	r->note = s->note;
	r->kernel_release = tracer__plan(s->tracer)->release;
	r->rss_batched = tracer__rss_batched(s->tracer);
	r->kernel_legacy = tracer__plan(s->tracer)->legacy;
	r->nkernel_missing =
		features__missing_ids(tracer__plan(s->tracer), r->kernel_missing,
				      sizeof(r->kernel_missing) / sizeof(r->kernel_missing[0]));
	r->sample_bytes = cfg->sample_bytes;
	r->sample_time = cfg->sample_time;
	if (s->windows)
		r->probed_s = (double)probe_windows__in_ns(s->windows) / 1e9;
	r->now_ns = (uint64_t)(session_now() * 1e9);
	tracer__stats(s->tracer, &stats);
	memcpy(r->drops, stats.drops, sizeof(r->drops));
	unwinder__stats(s->unwind, &r->unwind);
	if (s->scope.ncg) {
		scope__reconcile(&s->scope, r->procs, r->nprocs, r->forgotten);
		r->cgroups = s->scope.recon;
		r->ncgroups = s->scope.ncg;
	}
}

/* --every: a window's rows, and beside them (with --alloc's live heap) as they stand. */
struct window_rows {
	struct fl_row *rows, *ends;
	size_t n;
};

/* The snapshot of the rows just read (or of window @w), by @metric, with thread frames or
 * not. */
static int build(struct session *s, struct snapshot *snap, enum fl_metric metric, bool threads,
		 bool final, struct treecache *keep, const struct window_rows *w)
{
	const struct fl_config *cfg = s->cfg;
	struct snapshot_opts so = { .threads = threads,
				    .metric = metric,
				    .alloc = cfg->alloc,
				    .alloc_churn = cfg->alloc_churn,
				    .vm = cfg->vm,
				    .new_pages = metric__needs_new(cfg->metric),
				    .by_top = cfg->by_top,
				    .by_stack = cfg->by_stack,
				    .by_mapping = cfg->by_mapping,
				    .pprof = final &&
					     (cfg->pprof || cfg->ship.otlp || cfg->ship.pyroscope),
				    .inline_frames = cfg->inline_frames,
				    .rows = w ? w->rows : NULL,
				    .nrows = w ? w->n : 0,
				    .ends = w ? w->ends : NULL };

	return snapshot__build(snap, &so, s->col, s->frames, &s->targets, keep);
}

/* Whether the snapshot took the row of @key: its process is a target (snapshot.c add_rows()). */
static bool known_process(const struct fl_key *key, void *ctx)
{
	return target_set__find_gen(ctx, (pid_t)key->tgid, key->gen) != NULL;
}

/*
 * --every: the rows since the last window (read again unless @fresh: show() just did) as one
 * profile, queued for the endpoints; the next window begins now.
 */
static int ship_window(struct session *s, bool fresh)
{
	struct snapshot snap = {};
	struct window_rows w = {};
	/* the live heap is a level: shown as the window ends, whatever came in it */
	bool levels = s->cfg->alloc && !s->cfg->alloc_churn;
	struct timespec now;
	int64_t end_ns;
	int err = fresh ? 0 : collector__read(s->col);

	if (!err)
		err = collector__window(s->col, &w.rows, levels ? &w.ends : NULL, &w.n);
	if (!err)
		err = build(s, &snap, s->metric, s->threads, true, NULL, &w);
	clock_gettime(CLOCK_REALTIME, &now);
	end_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	if (!err)
		err = session__ship_window(s, &snap, s->window_start_ns, end_ns);
	/* a row of a process not known yet went into no window: it waits for the next */
	if (!err)
		err = collector__window_mark(s->col, known_process, &s->targets);
	s->window_start_ns = end_ns;
	snapshot__fini(&snap);
	free(w.rows);
	free(w.ends);
	return err;
}

/*
 * A --json-stream line while the interactive view shows another metric or thread frames: the
 * stream is an export, so it keeps the command line's, from a snapshot of its own.
 */
static int write_stream_apart(struct session *s, const struct jsonreport_opts *jo)
{
	struct snapshot snap = {};
	int err = build(s, &snap, s->metric, s->threads, false, NULL, NULL);

	if (!err) {
		fill_report(s, &snap.report, false);
		write_stream(s, &snap, jo);
	}
	snapshot__fini(&snap);
	return err;
}

/* The folded file, after its line saying what it holds: the command line's metric, --by
 * and -T, whatever the interactive view showed last. */
static int write_folded(struct session *s, const struct snapshot *snap)
{
	const struct fl_config *cfg = s->cfg;
	struct folded_layout l = { .metric = s->metric, .threads = s->threads };

	config__by_name(cfg, l.by, sizeof(l.by));
	return snapshot__write_folded(snap, &s->folded, &l);
}

static int show(struct session *s, bool final)
{
	const struct fl_config *cfg = s->cfg;
	/* the view's keys change what it shows only: the final report and every export keep
	 * the command line's metric and thread frames (issue 25: 'm' made them all 'peak') */
	bool view = s->tui && !final;
	enum fl_metric metric = view ? tui__metric(s->tui) : s->metric;
	bool threads = view ? tui__threads(s->tui) : s->threads;
	struct table_opts to = { .top = cfg->top,
				 .metric = metric,
				 .threads = threads,
				 .min_share = 0.005,
				 .peak_column = final,
				 .by_mapping_only = !cfg->by_stack };
	struct jsonreport_opts jo = { .version = FAULTLINE_VERSION,
				      .metric = s->metric,
				      .threads = s->threads,
				      .children = cfg->children,
				      .by_stack = cfg->by_stack,
				      .top = config__top_name(cfg->by_top) };
	/* a machine format on stdout keeps it to itself: the tables go to stderr */
	FILE *out = config__stdout_outputs(cfg) ? stderr : stdout;
	struct snapshot snap = {};
	size_t alive = 0;
	unsigned rows;
	int err;

	units__terminal(cfg->width, &to.width, &rows);
	frames__next_round(s->frames);
	collector__set_walk(s->col, walk_for(s, final));
	err = collector__read(s->col);
	if (!err)
		follow__reload_execs(s);
	if (!err)
		err = debuginfo__refresh(s, final);
	for (size_t i = 0; i < s->targets.n; i++)
		alive += s->targets.v[i].sum.alive;
	for (size_t i = 0; i < s->targets.n; i++) {
		follow__refresh(s, &s->targets.v[i], final, alive);
		/* the inventory at the end, and live while the view shows it (paced) */
		if (final || (s->tui && tui__inventory(s->tui)))
			session__read_inventory(s, &s->targets.v[i], !final);
	}
	/* a live refresh no one reads (-q, no view, no stream) builds nothing: with -a or a
	 * storm of children the report is the costliest part of a refresh */
	if (!final && cfg->quiet && !s->tui && !s->stream.path)
		goto cleanup;
	if (!err)
		/* the kept tree changes under what a paused view still shows */
		err = build(s, &snap, metric, threads, final,
			    final || (s->tui && tui__paused(s->tui)) ? NULL : s->tree, NULL);
	if (!err)
		fill_report(s, &snap.report, final);
	if (!err && s->stream.path && (metric != s->metric || threads != s->threads))
		err = write_stream_apart(s, &jo);
	else if (!err && s->stream.path)
		write_stream(s, &snap, &jo);
	if (err) {
		fprintf(stderr, "faultline: reading the BPF maps failed: %s\n", strerror(-err));
		goto cleanup;
	}
	if (final && cfg->folded)
		err = write_folded(s, &snap);
	if (final && cfg->pprof)
		err = snapshot__write_pprof(&snap, &s->pprof) ?: err;
	if (final && cfg->json)
		err = snapshot__write_json(&snap, &s->json, &jo) ?: err;
	/* written even when the folded file failed: it is a separate file */
	if (final && cfg->svg)
		err = snapshot__write_svg(&snap, &s->svg, s->metric) ?: err;
	/* after the files: they are written whatever the endpoints do; --every: the last
	 * window, then the queues get their time */
	if (final && cfg->ship.every_s > 0)
		err = ship_window(s, true) ?: session__ship_finish(s) ?: err;
	else if (final)
		err = session__ship(s, &snap) ?: err;
	if (s->tui && !final) {
		/* the view reads what it shows until the next one: s->shown keeps it alive */
		struct snapshot old = s->shown;

		s->shown = snap;
		snap = old; /* freed below */
		if (!tui__show(s->tui, &s->shown.report, s->shown.profile, &to)) {
			snap = s->shown; /* paused: the view still shows the old one */
			s->shown = old;
		}
	} else if ((final || !cfg->quiet) && !s->table_off) {
		unsigned long cut = units__lines_cut();
		int terr = render(out, &snap, &to, !final, rows);

		if (terr)
			table_failed(s, out, terr);
		else if (units__lines_cut() > cut)
			say_cut(s, out, final, to.width);
	}
	if (final && cfg->verbose) {
		size_t nrows;

		collector__rows(s->col, &nrows);
		fprintf(stderr, "faultline: %zu counts rows, %zu distinct stacks, %.1f s session\n",
			nrows, snap.profile->nstacks, snap.report.elapsed_s);
	}
cleanup:
	snapshot__fini(&snap);
	/* a refresh frees large arrays (rows, the profile tree): give their pages back, or a
	 * long session's RSS creeps up with the holes (half of its growth per followed child) */
	malloc_trim(0);
	return err;
}

/*
 * SIGINT, SIGTERM and SIGHUP end an attach session. A launched command is given the signal first (the
 * way a shell's Ctrl-C would have reached it without faultline) and STOP_GRACE_S to exit, so
 * the final report sees its end; a second signal ends the session at once.
 */
static void on_signal(struct session *s, const struct signalfd_siginfo *si)
{
	int sig = (int)si->ssi_signo;
	bool sent;

	if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
		return;
	if (!s->launched || s->grace_end) {
		s->stop = true;
		return;
	}
	s->grace_end = session_now() + STOP_GRACE_S;
	sent = launch__forward(&s->launch, sig, si->ssi_code == SI_KERNEL);
	fprintf(stderr,
		"faultline: SIG%s%s; waiting up to %d s for %s (pid %d) to exit (signal faultline "
		"again to stop now)\n",
		sigabbrev_np(sig), sent ? " passed on" : "", STOP_GRACE_S, s->cfg->command[0],
		s->launch.pid);
}

/* A launched command that exits ends the session; so does the last attached process. */
static void reap(struct session *s)
{
	struct signalfd_siginfo si;
	int status, err;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si))
		on_signal(s, &si);
	/* before the exits: a parent that forks and exits hands the session to its children, and
	 * a launched command stopped at its exit can still name the children that are gone */
	follow__discover(s);
	if (s->cfg->children && (err = collector__sweep(s->col)))
		fprintf(stderr, "faultline: reading the BPF maps failed: %s\n", strerror(-err));
	follow__drop_folded_names(s);
	/* not under a paused view: its report still lists them, and counts the forgotten live */
	if (!(s->tui && tui__paused(s->tui)))
		forget__exited(s);
	while (s->launched && waitpid(s->launch.pid, &status, WNOHANG) == s->launch.pid) {
		switch (launch__on_wait(&s->launch, status)) {
		case LAUNCH_AT_EXIT: /* its last mappings and figures are still readable */
			follow__launched_at_exit(s);
			launch__release(&s->launch);
			break;
		case LAUNCH_GONE:
			follow__launched_gone(s);
			break;
		case LAUNCH_EXEC: /* its new image's tables before it runs a line of it */
			follow__start_naming(s, &s->targets.v[0]);
			launch__resume(&s->launch);
			break;
		case LAUNCH_MAPPED: /* ... and each library's */
			follow__code_mapped(s, &s->targets.v[0]);
			launch__resume(&s->launch);
			break;
		case LAUNCH_RUNNING:
			break;
		}
	}
	follow__exits(s);
}

static bool any_alive(struct session *s)
{
	/* a launched command's end is its reaping's to say: a refresh can see it first (its
	 * pidfd readable), and the loop must reap it for its status */
	if (s->launched && !s->child_waiting)
		return true;
	/* a scope lasts until a signal, -d, or the removal of its cgroup */
	if (s->scope.kind)
		return scope__still_there(&s->scope);
	for (size_t i = 0; i < s->targets.n; i++)
		if (s->targets.v[i].sum.alive)
			return true;
	return false;
}

/* Acts on what the interactive view read: a new metric or thread frames need a snapshot. */
static int on_keys(struct session *s)
{
	enum tui_action act = tui__input(s->tui);

	if (act == TUI_QUIT)
		s->stop = true;
	return act == TUI_REFRESH ? show(s, false) : 0;
}

/* poll()'s timeout from @now to @until (CLOCK_MONOTONIC seconds), at most 100 ms: the loop
 * wakes that often to notice targets that exit. */
static int wake_ms(double until, double now)
{
	if (until > now + 0.1)
		return 100;
	return until > now ? (int)((until - now) * 1000) + 1 : 0;
}

static int loop(struct session *s)
{
	const struct fl_config *cfg = s->cfg;
	double next = s->start + cfg->interval_s;
	double end = cfg->duration_s > 0 ? s->start + cfg->duration_s : 0;
	uint64_t settle = 0; /* follow__settle(): when the next maps are due */
	struct timespec wall;
	int err = 0;

	/* --every: the first window begins with the session */
	clock_gettime(CLOCK_REALTIME, &wall);
	s->window_start_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec;
	s->next_window = s->start + cfg->ship.every_s;
	while (!s->stop && any_alive(s)) {
		double t = session_now(), until = end && end < next ? end : next;
		/* a target that exec'd has its tables (and probes) put in at once; at most every
		 * EVENTS_GAP_S, or a storm of execs would wake the loop for each of them */
		bool hear = t >= s->events_at + EVENTS_GAP_S;
		struct pollfd p[3] = { { .fd = s->sigfd, .events = POLLIN },
				       { .fd = s->tui ? tui__fd(s->tui) : -1, .events = POLLIN },
				       { .fd = hear ? tracer__events_fd(s->tracer) : -1,
					 .events = POLLIN } };
		bool events, window, refresh;

		if (cfg->ship.every_s > 0 && s->next_window < until)
			until = s->next_window;
		if (!hear && s->events_at + EVENTS_GAP_S < until)
			until = s->events_at + EVENTS_GAP_S;
		if (settle && settle / 1e9 < until)
			until = settle / 1e9; /* pace__now() is CLOCK_MONOTONIC too */
		if (poll(p, 3, wake_ms(until, t)) < 0 && errno != EINTR)
			return -errno;
		events = tracer__take_events(s->tracer);
		reap(s);
		if (events) {
			s->events_at = session_now();
			follow__reload_execs(s);
		}
		settle = follow__settle(s);
		follow__load_tables(s);
		if (s->tui && (err = on_keys(s)))
			return err;
		t = session_now();
		if ((end && t >= end) || (s->grace_end && t >= s->grace_end))
			break;
		window = cfg->ship.every_s > 0 && t >= s->next_window && !s->stop;
		refresh = t >= next && !s->stop && any_alive(s);
		if (refresh) {
			err = show(s, false);
			if (err)
				return err;
			next += cfg->interval_s * (1 + (int)((t - next) / cfg->interval_s));
		}
		/* a window that ends with a refresh takes the maps it just read */
		if (window) {
			err = ship_window(s, refresh);
			if (err)
				return err;
			s->next_window += cfg->ship.every_s *
					  (1 + (int)((t - s->next_window) / cfg->ship.every_s));
		}
	}
	return 0;
}

/* A launched command's status as a shell reports it (128 + N for signal N), once it ended;
 * else 0. */
static int command_status(const struct session *s)
{
	const struct fl_proc_summary *sum = s->targets.n ? &s->targets.v[0].sum : NULL;

	if (!s->cfg->command || !sum || !sum->have_exit)
		return 0;
	return sum->exit_signal ? 128 + sum->exit_signal : sum->exit_code;
}

/*
 * Before the final report: RSS changes stop being counted, and each process alive is read at
 * once, so that its kernel counters and what faultline attributed end at the same moment (a
 * process whose RSS moves fast at the end moved between the two reads by the time the report
 * came to it: MiB of gap).
 */
static void stop_counting(struct session *s)
{
	tracer__stop_counting(s->tracer);
	for (size_t i = 0; i < s->targets.n; i++)
		target__read_end(&s->targets.v[i]);
}

int session__run(const struct fl_config *cfg)
{
	struct session s = { .cfg = cfg,
			     .sigfd = -1,
			     .alloc = { .lib = cfg->alloc_lib,
					.prefix = cfg->alloc_prefix,
					.verbose = cfg->verbose,
					.churn = cfg->alloc_churn } };
	int err, status;

	err = session__setup(&s);
	if (!err)
		err = loop(&s);
	tui__stop(s.tui); /* the final report goes to the plain terminal */
	s.tui = NULL;
	snapshot__fini(&s.shown);
	follow__end_launch(&s);
	if (!err) {
		/* the loop's last wake-up may not have looked (reap() does) */
		follow__discover(&s);
		stop_counting(&s);
		err = show(&s, true);
	} else if (s.child_waiting)
		launch__abort(&s.launch);
	status = command_status(&s); /* teardown frees the targets */
	session__teardown(&s);
	return err || s.stream_err || s.table_err ? 1 : status;
}
