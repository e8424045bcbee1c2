// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* Everything a session sets up before its first refresh, and takes down after its last. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "debuginfo.h"
#include "follow.h"
#include "probes/features.h"
#include "session_state.h"
#include "ship/queue.h"
#include "views/tui.h"

#define MAX_THREADS 16384
/* counts rows per stored stack: one stack is charged from several threads and origins */
#define ROWS_PER_STACK 4

/* SIGINT, SIGTERM, SIGHUP and SIGCHLD arrive through a signalfd, so the loop ends the normal
 * way. */
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

/* -f: the mappings of targets as they exit, where the tracer loaded their program (the plan's
 * note says when the kernel cannot: KF_ITER_TASK_VMA). */
static void exits_setup(struct session *s)
{
	int fd = tracer__exit_maps_fd(s->tracer), err;

	if (fd < 0)
		return;
	err = exit_maps__open(&s->exits, fd);
	if (err)
		fprintf(stderr,
			"faultline: the mappings of exiting processes cannot be recorded (%s): "
			"stacks of children gone before they were seen stay addresses\n",
			strerror(-err));
}

/* -v: where the CO-RE relocations found the kernel's types. */
static void say_types_cache(const struct tracer *t)
{
	bool used;
	const char *path = tracer__types_cache(t, &used);

	if (used)
		fprintf(stderr, "faultline: kernel types from the cache %s\n", path);
	else if (path)
		fprintf(stderr,
			"faultline: kernel types read whole; cached as this session ends "
			"(with bpftool) in %s\n",
			path);
}

static void announce(const struct session *s)
{
	fprintf(stderr, "faultline: tracing");
	for (size_t i = 0; i < s->targets.n; i++)
		fprintf(stderr, "%s %d (%s)", i ? "," : "", s->targets.v[i].sum.pid,
			s->launched ? s->cfg->command[0] : s->targets.v[i].sum.comm);
	if (s->scope.kind) {
		char what[PATH_MAX + 64];

		scope__describe(&s->scope, what, sizeof(what));
		fprintf(stderr, "%s%s (%zu processes now, and those that start or join)",
			s->targets.n ? " and " : " ", what, s->scope.present);
	}
	fprintf(stderr, "%s; Ctrl-C to stop\n",
		s->cfg->children && !s->scope.kind ? " and their new children" : "");
	if (s->note)
		fprintf(stderr, "faultline: note: %s\n", s->note);
	if (s->cfg->sample_time)
		fprintf(stderr,
			"faultline: allocator probes in %.0f%% of the time, in windows of 10-30 ms: "
			"the counts are of the calls made in them\n",
			s->cfg->sample_time * 100);
	if (s->cfg->verbose)
		features__print(tracer__plan(s->tracer));
	if (s->cfg->verbose)
		say_types_cache(s->tracer);
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

int session__setup(struct session *s)
{
	const struct fl_config *cfg = s->cfg;
	struct tracer_opts to = {
		.stack_storage = cfg->stack_storage,
		.max_counts = cfg->stack_storage * ROWS_PER_STACK,
		.max_threads = MAX_THREADS,
		.alloc = cfg->alloc,
		.alloc_churn = cfg->alloc_churn,
		.max_live = cfg->max_live,
		.sample_bytes = cfg->sample_bytes,
		.alloc_windows = cfg->sample_time > 0,
		.vm = cfg->vm,
		.new_pages = metric__needs_new(cfg->metric),
		.map_classes = cfg->by_mapping,
		.follow_children = cfg->children,
	};
	uint64_t windows_start;
	bool launched;
	int err;

	if (cfg->command && (err = launch__check(cfg->command[0])))
		return err;
	err = session__ship_ready(s);
	if (err)
		return err;
	err = scope__resolve(cfg, &s->scope);
	if (err)
		return err;
	to.scope = s->scope.kind;
	for (size_t i = 0; i < cfg->npids; i++) {
		struct target *t = target_set__add(&s->targets);
		struct target *first;

		if (!t)
			return -ENOMEM;
		err = target__init(t, cfg->pids[i]);
		if (err)
			return err;
		/* -p PID,TID (a thread id names its process): one target */
		first = target_set__first(&s->targets, t->sum.pid);
		if (first != t) {
			if (cfg->verbose)
				fprintf(stderr, "faultline: %d given twice: traced once\n",
					t->sum.pid);
			target__fini(t);
			s->targets.n--;
		} else {
			/* what it holds before anything is traced (a read walks its page tables) */
			target__read_inventory(t, INV_AT_ATTACH, false);
		}
	}
	err = open_outputs(s);
	if (!err)
		err = signals_setup(s);
	if (!err) {
		/* after signals_setup() saved the limit a launched command gets back */
		fd_setup(s);
		err = tracer__load(&s->tracer, &to);
	}
	if (!err)
		err = scope__give(&s->scope, s->tracer);
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
	s->tree = treecache__new();
	s->unwind = unwinder__new(tracer__unwind_tables_fd(s->tracer),
				  tracer__unwind_procs_fd(s->tracer),
				  tracer__unwind_objects_fd(s->tracer),
				  tracer__unwind_epoch(s->tracer), (uint64_t)cfg->unwind_mib << 20);
	if (!s->col || !s->elf || !s->frames || !s->tree || !s->unwind || debuginfo__start(s))
		return -ENOMEM;
	frames__set_unwinder(s->frames, s->unwind, s->elf);
	collector__set_portable(s->col, follow__portable_walk, s);
	/* source lines only where an output shows them: DWARF costs memory */
	elf_cache__set_dwarf(s->elf,
			     cfg->inline_frames || cfg->pprof || cfg->json || cfg->json_stream);
	collector__set_mm_state(s->col, tracer__mm_state_fd(s->tracer));
	collector__set_procs(s->col, tracer__procs_fd(s->tracer));
	/* churn mode fills neither the live table nor the histograms */
	if (cfg->alloc && !cfg->alloc_churn)
		collector__set_alloc(s->col, tracer__live_fd(s->tracer),
				     tracer__hists_fd(s->tracer));
	err = add_targets(s);
	launched = s->launched;
	if (!err) {
		exits_setup(s);
		err = tracer__attach(s->tracer);
	}
	/* after the attach: a process that forks or moves meanwhile is the BPF side's */
	if (!err && s->scope.kind) {
		scope__read_start(&s->scope);
		scope__admit_present(&s->scope, s->tracer, cfg->verbose);
	}
	windows_start = (uint64_t)(session_now() * 1e9);
	for (size_t i = 0; i < s->targets.n && !err && cfg->alloc; i++)
		err = allocsetup__attach(s->tracer, &s->alloc, s->targets.v[i].sum.pid,
					 s->launched ? cfg->command[0] : NULL);
	if (!err && cfg->sample_time)
		err = probe_windows__start(&s->windows, s->tracer, cfg->sample_time, windows_start);
	if (err)
		return err;
	s->start = session_now();
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
	/*
	 * The targets are named, and their unwind tables loaded, once the probes are live: before
	 * the attach they held it up by 25 ms (faultbench) to 0.3 s (mariadbd's 21 objects). A
	 * -p target's stacks go by frame pointers meanwhile, and its walks say so (stack_walks);
	 * -v says when they are in. A launched command runs nothing of its image before them:
	 * it is stopped after its exec until launch__resume().
	 */
	for (size_t i = 0; i < s->targets.n; i++) {
		struct target *t = &s->targets.v[i];

		follow__start_naming(s, t);
		/* its image mapped, before its first instruction: what it starts with */
		if (launched)
			target__read_inventory(t, INV_AT_ATTACH, false);
		else if (cfg->verbose && t->sym)
			fprintf(stderr,
				"faultline: unwind tables of pid %d in, %.0f ms after the "
				"attach\n",
				t->sum.pid, (session_now() - s->start) * 1e3);
	}
	/* stopped after its exec until now: its stacks are whole from its first instruction */
	if (launched)
		launch__resume(&s->launch);
	/* with the probes live and the command running: a look that waits costs no event */
	session__ship_check(s);
	start_view(s);
	return 0;
}

void session__teardown(struct session *s)
{
	struct ship_stats st;

	/* an end before the final report (an error): the windows queued go as they are */
	for (size_t i = 0; i < sizeof(s->queues) / sizeof(s->queues[0]); i++)
		ship_queue__finish(s->queues[i], 0, &st);
	tui__stop(s->tui);
	probe_windows__stop(s->windows);
	tracer__destroy(s->tracer);
	exit_maps__free(s->exits);
	target_set__fini(&s->targets);
	free(s->folds);
	free(s->fold_waits);
	forgotten__fini(&s->forgotten);
	debuginfo__end(s);
	frames__free(s->frames);
	treecache__free(s->tree);
	unwinder__free(s->unwind);
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
