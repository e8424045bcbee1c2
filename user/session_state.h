/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The state of one session, shared by its setup and teardown (session_setup.c), the loop
 * (session.c), the targets' lifecycle (follow.c, forget.c), their inventories
 * (session_inventory.c), shipping (session_ship.c) and debug files fetched meanwhile
 * (debuginfo.c); nothing else sees it.
 */
#ifndef FAULTLINE_SESSION_STATE_H
#define FAULTLINE_SESSION_STATE_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include "cli.h"
#include "formats/output.h"
#include "model/forgotten.h"
#include "probes/allocsetup.h"
#include "probes/attach.h"
#include "probes/launch.h"
#include "probes/probewindows.h"
#include "scope.h"
#include "snapshot.h"
#include "trace/collector.h"
#include "trace/exitmaps.h"
#include "trace/frames.h"
#include "trace/targets.h"
#include "trace/unwind.h"
#include "treecache.h"

/* Exited children that never exec'd, by name and code layout: the first one's rows hold the
 * rows of the others (follow.c) */
struct fold_class {
	uint64_t layout; /* symbolizer__layout(); 0: exec'd, a program's (exe) processes */
	uint64_t exe;	 /* exec'd: the fl_file_id() of the program */
	char comm[FL_COMM_LEN];
	pid_t pid; /* the first one's identity */
	uint16_t gen;
};

/* A folded exec'd child (the index of its target) that names its rows until they moved
 * (collector__moves() past @moves) and none kept its own key. */
struct fold_wait {
	size_t target;
	uint64_t moves;
};

struct session {
	const struct fl_config *cfg;
	struct tracer *tracer;
	struct collector *col;
	struct elf_cache *elf;
	struct debuginfod *debuginfod; /* DEBUGINFOD_URLS: debug files fetched meanwhile; or NULL */
	struct frames *frames;
	struct treecache *tree;	   /* the call tree, kept from one refresh to the next */
	struct unwinder *unwind;   /* the targets' unwind tables in the BPF maps */
	struct target_set targets; /* the given ones, then the children -f found */
	struct scope scope;	   /* -a, --cgroup: the processes the BPF side makes targets */
	struct exit_maps *exits;   /* -f: the mappings of targets as they exit; NULL: none */
	struct fold_class *folds;  /* -f */
	size_t nfolds, folds_cap;
	struct fold_wait *fold_waits; /* folded exec'd children whose names may go */
	size_t nfold_waits, fold_waits_cap;
	struct forgotten forgotten; /* exited processes past --keep-exited, summed */
	size_t forget_at;	    /* ... forgotten next when so many children exited */
	uint64_t forget_moves;	    /* ... or when collector__moves() is past this */
	size_t child_syms;	    /* live children holding a symbolizer (an fd or two each) */
	size_t fd_budget;	    /* ... at most so many */
	struct launch launch;
	bool launched;	    /* a launched child we have not reaped */
	bool child_waiting; /* ... still blocked before its exec */
	int sigfd;
	double start;
	bool stop;
	double grace_end; /* a first SIGINT/SIGTERM: when to stop waiting for the command */
	double events_at; /* when the loop last acted on the BPF side's process events */
	const char *note;
	enum fl_metric metric;	 /* --metric, or faults when the kernel batches RSS updates; the
				* interactive view's 'm' changes the view only */
	bool threads;		 /* -T (the interactive view's 't' changes the view only) */
	struct alloc_opts alloc; /* --alloc-lib, --alloc-prefix, -v, churn mode */
	struct probe_windows *windows; /* --sample-time; NULL: the probes are always in */
	struct tui *tui;       /* the interactive view, on a terminal; NULL for plain output */
	struct snapshot shown; /* what the interactive view reads for its redraws */
	/* opened before anything is attached, so that a path that cannot be written ends the
	 * session before it starts; path NULL: not asked for, or done with */
	struct output folded, json, pprof, svg;
	struct output stream; /* --json-stream, written all along */
	/* --every: the endpoints' queues (--otlp's, then --pyroscope's), when the next window
	 * ends (session_now()) and when this one began (CLOCK_REALTIME ns) */
	struct ship_queue *queues[2];
	double next_window;
	int64_t window_start_ns;
	int stream_err;	 /* its write failed: streaming stopped, the exit status is 1 */
	bool table_off;	 /* writing the table failed (stdout closed): no more of it */
	int table_err;	 /* ... for a reason that makes the exit status 1 (not EPIPE) */
	bool width_said; /* lines were cut at a width no --width chose, and that was said */
};

/* CLOCK_MONOTONIC in seconds: the session's times (start, refreshes, grace) */
static inline double session_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Everything before the first refresh, in order: the targets checked, the outputs opened (a
 * path that cannot be written ends the session here), signals, the BPF programs loaded, the
 * targets added (a command launched), attached (and the allocator probes), the command let go,
 * the interactive view started. Returns 0 or -errno, reported; session__teardown() undoes
 * what was done either way.
 */
int session__setup(struct session *s);
void session__teardown(struct session *s);

/* Reads @t's inventory at the end (or live: @paced), and notes on it who mapped each
 * anonymous region the session saw mapped (--alloc): the allocator or the application
 * (session_inventory.c). */
void session__read_inventory(struct session *s, struct target *t, bool paced);

/* --otlp, --pyroscope: @snap's profile sent to each endpoint given (session_ship.c). A failure
 * is one line on stderr each. Returns 0, or -EIO when one failed (the exit status is 1). */
struct snapshot;
int session__ship(struct session *s, const struct snapshot *snap);
/* Before anything is traced: a session that ships needs the HTTP client (libcurl, loaded
 * then). Returns 0, or -ENOSYS having said so. */
int session__ship_ready(const struct session *s);
/* Once the probes are live: each endpoint that cannot be reached now (a wrong host, nothing
 * listening, a certificate refused) is said in one line, long before the end; the session goes
 * on, its files are written and the send is tried at the end all the same. */
void session__ship_check(const struct session *s);
/* --every: @snap (a window's rows, from @start_ns to @end_ns of the wall clock) queued for each
 * endpoint. Returns 0 or -errno (no queue could start). */
int session__ship_window(struct session *s, const struct snapshot *snap, int64_t start_ns,
			 int64_t end_ns);
/* --every, at the end: what is queued gets 20 s, then each endpoint says in one line what was
 * sent and lost. Returns 0, or -EIO when a window was lost (the exit status is 1). */
int session__ship_finish(struct session *s);

/* --every: each endpoint's windows so far into @r (none before the first window). */
void session__ship_status(struct session *s, struct fl_report *r);

#endif /* FAULTLINE_SESSION_STATE_H */
