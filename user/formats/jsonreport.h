/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The JSON view (--json, --json-stream): one document holding the report's figures and every
 * stack of the profile with all its counters, in the versioned schema docs/json.md describes.
 * It reads the report and the profile only (no BPF, no /proc), so tests build both by hand.
 */
#ifndef FAULTLINE_JSONREPORT_H
#define FAULTLINE_JSONREPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "model/profile.h"
#include "model/report.h"

/* The schema's name and version: additive changes keep it, any other change bumps it. */
#define JSONREPORT_SCHEMA "faultline/1"

/* What the document says about the session beyond what struct fl_report holds. */
struct jsonreport_opts {
	const char *version;   /* faultline's version */
	enum fl_metric metric; /* the metric the session ranks by */
	bool threads;	       /* -T: the thread name is the second frame */
	bool children;	       /* -f */
	bool by_stack;	       /* --by: stack frames (and/or the mapping: fl_report.map_classes) */
	const char *top;       /* --by's top of the tree: "exe", "process" or "cgroup" */
};

/*
 * Writes one JSON document on one line, then "\n", to @out and flushes it: the header
 * (schema, version, final, elapsed seconds, metric, options, drops by name), the processes,
 * their groups by executable and the shared pages' figures (jsongroups.h), the threads, the allocation sites (@r->alloc) and memory call sites (@r->vm), and every leaf
 * path of @p with its counters, frames root first, in pre-order with siblings in the tree's
 * order (the session sorts it by the metric, heaviest first). Returns 0 or -errno of the
 * failed write (-EIO when unknown).
 */
int jsonreport__write(FILE *out, const struct fl_report *r, const struct profile *p,
		      const struct jsonreport_opts *o);

#endif /* FAULTLINE_JSONREPORT_H */
