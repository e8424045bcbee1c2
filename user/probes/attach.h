/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Loading, attaching and detaching the BPF programs: the only module that knows about the
 * skeleton and its links.
 */
#ifndef FAULTLINE_ATTACH_H
#define FAULTLINE_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/procfs.h"
#include "faultline.h"
#include "probes/allocator.h"

struct tracer;

struct tracer_opts {
	uint32_t stack_storage; /* entries of the stack map */
	uint32_t max_counts;	/* entries of the counts map */
	uint32_t max_threads;	/* entries of the threads map */
	bool alloc;		/* load the allocator programs (--alloc) */
	bool alloc_churn;	/* ... the entry program alone (--alloc=churn): no return
				 * probes, no free, no live table */
	bool alloc_windows;	/* ... attached only while a window is open (--sample-time):
				 * tracer__alloc_window() */
	uint32_t max_live;	/* entries of the live-allocation map (--max-live) */
	uint64_t sample_bytes;	/* --sample-bytes: mean bytes between samples, 0 for all */
	bool vm;		/* load the memory syscall programs (--vm) */
	bool new_pages;		/* load the page allocation program (--metric new) */
	bool map_classes;	/* classify every change by the mapping it hit (--by mapping) */
	bool follow_children;	/* -f: load the fork program, which makes a target's children
				 * targets (at most FL_MAX_PROCS processes in all) */
	uint32_t scope;		/* enum fl_scope: the processes the BPF side makes targets by
				 * themselves (-a, --cgroup: trace/scope.h) */
};

/* Checks the kernel can run faultline (BTF present, tracefs mounted or mountable), opens and
 * loads the programs with the map sizes of @o. Prints one clear line on failure and returns
 * -errno. */
int tracer__load(struct tracer **out, const struct tracer_opts *o);

/* Adds @pid to the target set. @seed: the counters at attach, NULL for a launched child that is
 * counted from its exec on. Returns 0 or -errno. */
int tracer__add_target(struct tracer *t, pid_t pid, const struct proc_status *seed);

/* Drops @pid from the targets once it has exited, with the state of its mm if someone still
 * holds that mm. Copies up to @max of its mms' last states (their peaks: its rows still need
 * them; those torn down already left theirs in its entry) to @gone and returns how many. */
size_t tracer__remove_target(struct tracer *t, pid_t pid, struct fl_mm *gone, size_t max);

/* The BPF side's entry of target @pid (its exec count; a forked child's baselines), into
 * *@out. Returns 0, or -ENOENT when @pid is not a target. */
int tracer__target_proc(const struct tracer *t, pid_t pid, struct fl_proc *out);

/* Attaches every program. Returns 0 or -errno (reported). */
int tracer__attach(struct tracer *t);

/* Attaches the allocator probes of @plan to @pid only (the uprobes trap in no other process).
 * Returns 0 or -errno (reported). */
int tracer__attach_alloc(struct tracer *t, pid_t pid, const struct alloc_plan *plan);
/* @pid mapped code since its allocator probes were attached (a launched command's libraries):
 * the legacy programs learn where its probes are now. */
void tracer__alloc_remap(struct tracer *t, pid_t pid);

/* --sample-time (tracer_opts.alloc_windows): puts every target's allocator probes in
 * (@open), or takes them out. The window is open from the load on, so that the first attach
 * reports its errors; a target added while it is closed is attached when it opens next, and
 * dropped then if it exited. Returns how many targets have probes. Thread-safe. */
size_t tracer__alloc_window(struct tracer *t, bool open);

/* Detaches and frees everything; accepts NULL. */
void tracer__destroy(struct tracer *t);

/* RSS changes are no longer counted from the next one on (the final report's reads). */
void tracer__stop_counting(struct tracer *t);

/* An fd that polls readable when a target exec'd (a hint: the procs map says which);
 * tracer__take_events() empties it, true when something came. */
int tracer__events_fd(const struct tracer *t);
bool tracer__take_events(struct tracer *t);

int tracer__procs_fd(const struct tracer *t);
int tracer__counts_fd(const struct tracer *t);
/* The regions map (struct fl_region by fl_region_key), or -1 when it was not loaded: regions
 * are recorded under --alloc when its probes see every call (not churn, not sampled). */
int tracer__regions_fd(const struct tracer *t);
int tracer__stacks_fd(const struct tracer *t);
int tracer__threads_fd(const struct tracer *t);
int tracer__mm_state_fd(const struct tracer *t);
int tracer__live_fd(const struct tracer *t);
int tracer__hists_fd(const struct tracer *t);
/* The ring of the mappings of targets as they exit (trace/exitmaps.h), or -1 when not loaded:
 * -f on a kernel with bpf_iter_task_vma (Linux 6.7). */
int tracer__exit_maps_fd(const struct tracer *t);
int tracer__unwind_tables_fd(const struct tracer *t);
int tracer__unwind_procs_fd(const struct tracer *t);
int tracer__unwind_objects_fd(const struct tracer *t);
/* The BPF side's unwind_epoch (live, memory-mapped): bumped after each change of unwind_procs. */
uint32_t *tracer__unwind_epoch(const struct tracer *t);
/* The BPF side's global counters, both objects' added up, as they stand. */
void tracer__stats(const struct tracer *t, struct fl_stats *out);

/* True when the kernel batches RSS counter updates per task (before Linux 6.2), which makes
 * per-stack byte attribution approximate. */
bool tracer__rss_batched(const struct tracer *t);

struct kplan;
/* What the kernel lacks of what faultline uses (probes/features.h), probed at the load. */
const struct kplan *tracer__plan(const struct tracer *t);

/* The file of cached kernel types (btfcache.h), *@used when the load read it (else it is made
 * as the tracer goes); NULL when the kernel has no build-id to name it by. */
const char *tracer__types_cache(const struct tracer *t, bool *used);

#endif /* FAULTLINE_ATTACH_H */
