/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* One refresh: the counts rows named and merged into the profile model and the report. */
#ifndef FAULTLINE_SNAPSHOT_H
#define FAULTLINE_SNAPSHOT_H

#include "cli.h"
#include "formats/folded.h"
#include "formats/jsonreport.h"
#include "formats/output.h"
#include "formats/pprof.h"
#include "model/profile.h"
#include "model/report.h"
#include "trace/collector.h"
#include "trace/frames.h"
#include "trace/targets.h"
#include "treecache.h"

struct snapshot_opts {
	bool threads; /* the thread name as the second frame */
	enum fl_metric metric;
	bool alloc;	    /* --alloc: build the allocation sites too */
	bool alloc_churn;   /* --alloc=churn: entries only, no frees (no live figures) */
	bool vm;	    /* --vm: build the memory call sites too */
	bool new_pages;	    /* --metric new: the session counted new pages */
	enum fl_top by_top; /* the top frames: the executable, the process, or cgroup then exe */
	bool by_stack;	    /* the stack's frames (and the call's) below the process [and thread] */
	bool by_mapping;    /* the mapping class as the last frame (file path for a file) */
	bool pprof;	    /* build the pprof model too (with addresses and mappings) */
	bool inline_frames; /* --inline: inlined calls as frames of the tree */
	/* --every: a window's rows (collector__window()) instead of the collector's; NULL: those */
	const struct fl_row *rows;
	size_t nrows;
	/* ... and, NULL or beside them, those rows as the window ended: pprof takes the metrics
	 * that are levels (the live heap) from these */
	const struct fl_row *ends;
};

struct snapshot {
	struct profile *profile;
	bool profile_kept;	/* the profile is a treecache's, which frees it */
	struct treecache *tree; /* while building: where the rows' paths go */
	struct fl_report report;
	struct fl_proc_summary *procs; /* one per target, in the targets' order */
	struct fl_thread_summary *threads;
	struct fl_call_site *sites;
	struct fl_call_site *vm_sites;
	struct pprof *pprof; /* snapshot_opts.pprof: the same rows with frame addresses */
	enum fl_metric pprof_types[FL_METRIC__COUNT]; /* the metric of each sample value */
	size_t npprof_types;
};

/*
 * Builds @snap from the rows @col last read, its call tree in @keep's (kept from the last
 * build, and changed by the next one) or, @keep NULL or with pprof, in a new one of its own.
 * Returns 0 or -ENOMEM.
 */
int snapshot__build(struct snapshot *snap, const struct snapshot_opts *o, struct collector *col,
		    struct frames *frames, struct target_set *targets, struct treecache *keep);

/* The summary of target @t as a snapshot holds it before its rows are charged: what a folded
 * process was charged (its rows are others'), its peak, the blocks its execs dropped. */
void snapshot__summary(const struct collector *col, const struct target *t,
		       struct fl_proc_summary *out);

/*
 * The writers of the final outputs, each into an output opened when the session started
 * (formats/output.h) and closed by the writer: the file is in place once they return 0.
 * They return 0 or -errno, reported.
 */
/* The folded stacks of @snap by @l's metric, after the line that says what they hold. */
int snapshot__write_folded(const struct snapshot *snap, struct output *o,
			   const struct folded_layout *l);
/* The pprof model of @snap, gzip-compressed profile.proto. */
int snapshot__write_pprof(const struct snapshot *snap, struct output *o);
/* Sets the pprof model's wall-clock start and length from the report's; returns the end, now,
 * in ns since the epoch. */
int64_t snapshot__stamp_pprof(const struct snapshot *snap);
/* The JSON document of @snap (jsonreport.h). */
int snapshot__write_json(const struct snapshot *snap, struct output *o,
			 const struct jsonreport_opts *jo);
/* The flame graph of @snap by @m (svg.h), titled with the metric, the total and the
 * processes. */
int snapshot__write_svg(const struct snapshot *snap, struct output *o, enum fl_metric m);

void snapshot__fini(struct snapshot *snap);

#endif /* FAULTLINE_SNAPSHOT_H */
