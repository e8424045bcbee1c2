// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "session.h"
#include <errno.h>
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
#include "formats/folded.h"
#include "formats/output.h"
#include "session_state.h"
#include "views/table.h"
#include "views/tui.h"

#define MAX_THREADS 16384
/* counts rows per stored stack: one stack is charged from several threads and origins */
#define ROWS_PER_STACK 4
/* after a SIGINT or SIGTERM, how long a launched command has to exit before the session ends */
#define STOP_GRACE_S 5

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* SIGINT, SIGTERM and SIGCHLD arrive through a signalfd, so the loop ends the normal way. */
static int signals_setup(struct session *s)
{
	sigset_t set;

	launch__save_signals(&s->launch);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* a hang-up (an ssh session dropped) ends the session the normal way: outputs written */
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return s->sigfd < 0 ? -errno : 0;
}

static int add_targets(struct session *s)
{
	const struct fl_config *cfg = s->cfg;
	int err;

	if (cfg->command) {
		err = launch__fork(&s->launch, cfg->command);
		if (err) {
			fprintf(stderr, "faultline: cannot start '%s': %s\n", cfg->command[0],
				strerror(-err));
			return err;
		}
		s->launched = true;
		s->child_waiting = true;
		if (!target_set__add(&s->targets))
			return -ENOMEM;
		target__init_launched(&s->targets.v[0], s->launch.pid);
		if (target_set__index(&s->targets, &s->targets.v[0]))
			return -ENOMEM;
		return tracer__add_target(s->tracer, s->launch.pid, NULL);
	}
	for (size_t i = 0; i < s->targets.n; i++) {
		if (target_set__index(&s->targets, &s->targets.v[i]))
			return -ENOMEM;
		err = tracer__add_target(s->tracer, s->targets.v[i].sum.pid,
					 &s->targets.v[i].sum.at_attach);
		if (err)
			return err;
	}
	return 0;
}

/* fds kept for faultline itself: maps, programs, links, the outputs, files read meanwhile */
#define FD_RESERVE 256

/*
 * -f: each live child holds its /proc entry (an fd, two in another root) while it can be
 * named from it; a storm of them must not leave the outputs without fds. The soft limit of
 * open files goes up to the hard one, and children beyond the budget are named at exit only.
 */
static void fd_setup(struct session *s)
{
	struct rlimit r;
	rlim_t was;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return;
	was = r.rlim_cur;
	if (r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &r))
			r.rlim_cur = was;
		else if (s->cfg->verbose)
			fprintf(stderr, "faultline: open files limit raised from %llu to %llu\n",
				(unsigned long long)was, (unsigned long long)r.rlim_cur);
	}
	s->fd_budget = r.rlim_cur > 2 * FD_RESERVE ? (size_t)(r.rlim_cur - FD_RESERVE) / 2 :
						     (size_t)r.rlim_cur / 4;
}

/* -f: the mappings of targets as they exit, where the kernel can (Linux 6.16; -v says why
 * not). Attached before the other programs, so it runs first at an exit. */
static void exits_setup(struct session *s)
{
	int err;

	if (!s->cfg->children)
		return;
	err = exit_maps__open(&s->exits, tracer__procs_fd(s->tracer));
	if (err && s->cfg->verbose)
		fprintf(stderr,
			"faultline: the mappings of exiting processes cannot be recorded here (%s; "
			"Linux 6.7 or later): stacks of children gone before they were seen stay "
			"addresses\n",
			strerror(-err));
}

static void announce(const struct session *s)
{
	fprintf(stderr, "faultline: tracing");
	for (size_t i = 0; i < s->targets.n; i++)
		fprintf(stderr, "%s %d (%s)", i ? "," : "", s->targets.v[i].sum.pid,
			s->launched ? s->cfg->command[0] : s->targets.v[i].sum.comm);
	fprintf(stderr, "%s; Ctrl-C to stop\n", s->cfg->children ? " and their new children" : "");
	if (s->note)
		fprintf(stderr, "faultline: note: %s\n", s->note);
	if (s->cfg->verbose)
		fprintf(stderr,
			"faultline: map sizes: stacks %u, counts %u, threads %u; RSS counter "
			"updates %s\n",
			s->cfg->stack_storage, s->cfg->stack_storage * ROWS_PER_STACK, MAX_THREADS,
			tracer__rss_batched(s->tracer) ? "batched per thread" : "exact");
}

/*
 * The interactive view, when both stdin and stdout are a terminal and the live table is
 * wanted. Not for a launched command, which shares the terminal's input.
 */
static void start_view(struct session *s)
{
	const struct fl_config *cfg = s->cfg;
	enum fl_metric metrics[FL_METRIC__COUNT];
	size_t n = 0;

	if (cfg->quiet || cfg->plain || cfg->command || config__stdout_outputs(cfg) ||
	    !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return;
	for (int m = 0; m < FL_METRIC__COUNT; m++)
		if (config__has_metric(cfg, (enum fl_metric)m))
			metrics[n++] = (enum fl_metric)m;
	s->tui = tui__start(metrics, n, s->metric, s->threads);
}

/* Every output, before anything is attached: a path that cannot be written ends the session
 * before it starts, not when it ends. */
static int open_outputs(struct session *s)
{
	const struct fl_config *cfg = s->cfg;
	int err = 0;

	if (cfg->folded)
		err = output__open(&s->folded, cfg->folded);
	if (!err && cfg->json)
		err = output__open(&s->json, cfg->json);
	if (!err && cfg->pprof)
		err = output__open(&s->pprof, cfg->pprof);
	if (!err && cfg->svg)
		err = output__open(&s->svg, cfg->svg);
	if (!err && cfg->json_stream)
		err = output__open_stream(&s->stream, cfg->json_stream);
	return err;
}

static int setup(struct session *s)
{
	const struct fl_config *cfg = s->cfg;
	struct tracer_opts to = {
		.stack_storage = cfg->stack_storage,
		.max_counts = cfg->stack_storage * ROWS_PER_STACK,
		.max_threads = MAX_THREADS,
		.alloc = cfg->alloc,
		.max_live = cfg->max_live,
		.sample_bytes = cfg->sample_bytes,
		.vm = cfg->vm,
		.map_classes = cfg->by_mapping,
		.follow_children = cfg->children,
	};
	int err;

	if (cfg->command && (err = launch__check(cfg->command[0])))
		return err;
	for (size_t i = 0; i < cfg->npids; i++) {
		struct target *t = target_set__add(&s->targets);

		if (!t)
			return -ENOMEM;
		err = target__init(t, cfg->pids[i]);
		if (err)
			return err;
	}
	err = open_outputs(s);
	if (!err)
		err = signals_setup(s);
	if (!err)
		err = tracer__load(&s->tracer, &to);
	if (err)
		return err;
	s->metric = cfg->metric;
	s->threads = cfg->threads;
	if (tracer__rss_batched(s->tracer)) {
		s->note =
			"this kernel batches RSS counter updates per thread (before Linux 6.2): "
			"bytes per stack are approximate (each flush of up to 64 faults lands on one "
			"stack), so stacks are ranked by faults unless --metric says otherwise; "
			"process totals and fault counts are exact";
		if (!cfg->metric_given)
			s->metric = FL_METRIC_FAULTS;
	}
	s->col = collector__new(tracer__counts_fd(s->tracer), tracer__stacks_fd(s->tracer),
				tracer__threads_fd(s->tracer), to.max_counts);
	s->elf = elf_cache__new();
	s->frames = frames__new();
	if (!s->col || !s->elf || !s->frames || debuginfo__start(s))
		return -ENOMEM;
	/* source lines only where an output shows them: DWARF costs memory */
	elf_cache__set_dwarf(s->elf,
			     cfg->inline_frames || cfg->pprof || cfg->json || cfg->json_stream);
	collector__set_mm_state(s->col, tracer__mm_state_fd(s->tracer));
	collector__set_procs(s->col, tracer__procs_fd(s->tracer));
	if (cfg->alloc)
		collector__set_alloc(s->col, tracer__live_fd(s->tracer),
				     tracer__hists_fd(s->tracer));
	err = add_targets(s);
	if (!err) {
		/* after the launched command's fork: it keeps the limits it was given */
		fd_setup(s);
		exits_setup(s);
		err = tracer__attach(s->tracer);
	}
	for (size_t i = 0; i < s->targets.n && !err && cfg->alloc; i++)
		err = allocsetup__attach(s->tracer, &s->alloc, s->targets.v[i].sum.pid,
					 s->launched ? cfg->command[0] : NULL);
	if (err)
		return err;
	s->start = now_s();
	announce(s);
	if (s->launched) {
		s->child_waiting = false;
		err = launch__go(&s->launch, cfg->command[0]);
		if (err) {
			s->launched = false; /* reaped by launch__go */
			return err;
		}
		if (s->launch.reaped) /* a signal killed it before its exec */
			follow__launched_gone(s);
	}
	for (size_t i = 0; i < s->targets.n; i++)
		follow__start_naming(s, &s->targets.v[i]);
	start_view(s);
	return 0;
}

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

static int show(struct session *s, bool final)
{
	const struct fl_config *cfg = s->cfg;
	struct snapshot_opts so = { .threads = s->threads,
				    .metric = s->metric,
				    .alloc = cfg->alloc,
				    .vm = cfg->vm,
				    .by_stack = cfg->by_stack,
				    .by_mapping = cfg->by_mapping,
				    .pprof = final && cfg->pprof,
				    .inline_frames = cfg->inline_frames };
	struct table_opts to = { .top = cfg->top,
				 .metric = s->metric,
				 .threads = s->threads,
				 .min_share = 0.005,
				 .peak_column = final,
				 .by_mapping_only = !cfg->by_stack };
	struct jsonreport_opts jo = { .version = FAULTLINE_VERSION,
				      .metric = s->metric,
				      .threads = s->threads,
				      .children = cfg->children,
				      .by_stack = cfg->by_stack };
	/* a machine format on stdout keeps it to itself: the tables go to stderr */
	FILE *out = config__stdout_outputs(cfg) ? stderr : stdout;
	struct snapshot snap = {};
	unsigned rows;
	int err;

	units__terminal(&to.width, &rows);
	frames__next_round(s->frames);
	err = collector__read(s->col);
	if (!err)
		follow__reload_execs(s);
	if (!err)
		err = debuginfo__refresh(s, final);
	for (size_t i = 0; i < s->targets.n; i++)
		follow__refresh(s, &s->targets.v[i]);
	if (!err)
		err = snapshot__build(&snap, &so, s->col, s->frames, &s->targets);
	if (err) {
		fprintf(stderr, "faultline: reading the BPF maps failed: %s\n", strerror(-err));
		goto cleanup;
	}
	snap.report.elapsed_s = now_s() - s->start;
	snap.report.final = final;
	snap.report.note = s->note;
	snap.report.sample_bytes = cfg->sample_bytes;
	snap.report.now_ns = (uint64_t)(now_s() * 1e9);
	memcpy(snap.report.drops, tracer__stats(s->tracer)->drops, sizeof(snap.report.drops));
	snap.report.drops[FL_DROP_EXIT_MAPS] += exit_maps__lost(s->exits);
	if (s->stream.path)
		write_stream(s, &snap, &jo);
	if (final && cfg->folded)
		err = snapshot__write_folded(&snap, &s->folded, s->metric);
	if (final && cfg->pprof)
		err = snapshot__write_pprof(&snap, &s->pprof) ?: err;
	if (final && cfg->json)
		err = snapshot__write_json(&snap, &s->json, &jo) ?: err;
	/* written even when the folded file failed: it is a separate file */
	if (final && cfg->svg)
		err = snapshot__write_svg(&snap, &s->svg, s->metric) ?: err;
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
		int terr = render(out, &snap, &to, !final, rows);

		if (terr)
			table_failed(s, out, terr);
	}
	if (final && cfg->verbose) {
		size_t nrows;

		collector__rows(s->col, &nrows);
		fprintf(stderr, "faultline: %zu counts rows, %zu distinct stacks, %.1f s session\n",
			nrows, snap.profile->nstacks, snap.report.elapsed_s);
	}
cleanup:
	snapshot__fini(&snap);
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
	s->grace_end = now_s() + STOP_GRACE_S;
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
	while (s->launched && waitpid(s->launch.pid, &status, WNOHANG) == s->launch.pid) {
		switch (launch__on_wait(&s->launch, status)) {
		case LAUNCH_AT_EXIT: /* its last mappings and figures are still readable */
			follow__refresh(s, &s->targets.v[0]);
			launch__release(&s->launch);
			break;
		case LAUNCH_GONE:
			follow__launched_gone(s);
			break;
		case LAUNCH_RUNNING:
			break;
		}
	}
	follow__exits(s);
}

static bool any_alive(const struct session *s)
{
	for (size_t i = 0; i < s->targets.n; i++)
		if (s->targets.v[i].sum.alive)
			return true;
	return false;
}

/* Acts on what the interactive view read: a new metric or thread frames need a snapshot. */
static int on_keys(struct session *s)
{
	enum tui_action act = tui__input(s->tui);

	/* also while paused: the final report follows the view's choices */
	s->metric = tui__metric(s->tui);
	s->threads = tui__threads(s->tui);
	if (act == TUI_QUIT)
		s->stop = true;
	return act == TUI_REFRESH ? show(s, false) : 0;
}

static int loop(struct session *s)
{
	const struct fl_config *cfg = s->cfg;
	double next = s->start + cfg->interval_s;
	double end = cfg->duration_s > 0 ? s->start + cfg->duration_s : 0;
	int err = 0;

	while (!s->stop && any_alive(s)) {
		double t = now_s(), until = end && end < next ? end : next;
		struct pollfd p[2] = { { .fd = s->sigfd, .events = POLLIN },
				       { .fd = s->tui ? tui__fd(s->tui) : -1, .events = POLLIN } };
		int ms = until > t ? (int)((until - t) * 1000) + 1 : 0;

		/* wake at least every 100 ms to notice targets that exit */
		if (poll(p, 2, ms < 100 ? ms : 100) < 0 && errno != EINTR)
			return -errno;
		reap(s);
		if (s->tui && (err = on_keys(s)))
			return err;
		t = now_s();
		if ((end && t >= end) || (s->grace_end && t >= s->grace_end))
			break;
		if (t >= next && !s->stop && any_alive(s)) {
			err = show(s, false);
			if (err)
				return err;
			next += cfg->interval_s * (1 + (int)((t - next) / cfg->interval_s));
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

static void teardown(struct session *s)
{
	tui__stop(s->tui);
	tracer__destroy(s->tracer);
	exit_maps__free(s->exits);
	target_set__fini(&s->targets);
	debuginfo__end(s);
	frames__free(s->frames);
	elf_cache__free(s->elf);
	collector__free(s->col);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->stream.path)
		s->stream_err = output__close(&s->stream, 0);
	/* what the session did not write (it failed): no temporary file stays behind */
	output__discard(&s->folded);
	output__discard(&s->json);
	output__discard(&s->pprof);
	output__discard(&s->svg);
}

int session__run(const struct fl_config *cfg)
{
	struct session s = { .cfg = cfg,
			     .sigfd = -1,
			     .alloc = { cfg->alloc_lib, cfg->alloc_prefix, cfg->verbose } };
	int err, status;

	err = setup(&s);
	if (!err)
		err = loop(&s);
	tui__stop(s.tui); /* the final report goes to the plain terminal */
	s.tui = NULL;
	snapshot__fini(&s.shown);
	follow__end_launch(&s);
	if (!err) {
		follow__discover(
			&s); /* the loop's last wake-up may not have looked (reap() does) */
		err = show(&s, true);
	} else if (s.child_waiting)
		launch__abort(&s.launch);
	status = command_status(&s); /* teardown frees the targets */
	teardown(&s);
	return err || s.stream_err || s.table_err ? 1 : status;
}
