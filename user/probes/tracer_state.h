/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The tracer's state, shared by the files that make it: attach.c (loading the programs,
 * the target set), allocprobes.c (the allocator's uprobes) and scope.c (-a, --cgroup).
 * Private to user/trace/.
 */
#ifndef FAULTLINE_TRACER_STATE_H
#define FAULTLINE_TRACER_STATE_H

#include <bpf/libbpf.h>
#include <pthread.h>
#include <stdbool.h>
#include "probes/attach.h"
#include "probes/btfcache.h"
#include "probes/exitprobe.h"
#include "probes/features.h"
#include "probes/probesites.h"
#include "probes/sideload.h"

/* after faultline.h (by way of attach.h): the skeleton names its types */
#include "faultline.skel.h"

/* An allocator probe: a libbpf perf-uprobe link, or the fd of a uprobe_multi link. */
struct probe_link {
	struct bpf_link *link;
	int fd;
};

struct link_set {
	struct probe_link *v;
	size_t n, cap;
};

/* --sample-time: a target's allocator probes, in place only while a window is open. */
struct windowed {
	pid_t pid;
	struct alloc_plan *plan;
	struct link_set links;
};

struct tracer {
	struct faultline *skel;
	struct faultline *side[SIDE_LOADS]; /* the walkers' instances (sideload.h), or NULL */
	struct faultline *alloc_skel;	    /* the instance with the allocator programs */
	struct ring_buffer *events;	    /* proc_events: targets that exec'd */
	bool rss_batched;
	struct kplan plan;	  /* what the kernel lacks (probes/features.h) */
	bool uprobe_multi;	  /* the allocator probes go through uprobe_multi links */
	bool alloc_session;	  /* --sample-bytes: entry and return are one uprobe session */
	bool alloc_churn;	  /* --alloc=churn: entry probes alone, cookies with their sites */
	bool regions;		  /* the region programs are loaded (tracer__regions_fd) */
	struct exit_probe *exits; /* -f, Linux 6.7+: the exit mappings program (exitprobe.h) */
	int procs_fd;		  /* the target set, given to both objects */
	struct btf_cache types;	  /* the kernel types the object needs, cached (btfcache.h) */
	bool cache_types;	  /* ... made as the tracer goes: this session read the kernel's */
	struct link_set links;	  /* every link, the allocator probes of each target among them */
	/* --sample-time: the allocator probes by target instead, and whether they are in */
	bool windowed;
	pthread_mutex_t win_lock;
	bool win_open;
	struct windowed *win;
	size_t nwin, win_cap;
	pthread_t closer; /* the last window's detaching, joined before the next */
	bool closing;
	struct probe_sites sites; /* the legacy programs' probe cookies (probesites.h) */
};

/* enum bpf_attach_type and flags of Linux 6.6 (commit 89ae89f53d20, "bpf: Add multi uprobe
 * link"), which the UAPI headers of older distributions lack. */
#define FL_TRACE_UPROBE_MULTI 48
#define FL_F_UPROBE_MULTI_RETURN 1
/* ... and of Linux 6.13's uprobe sessions (an entry program that may decline its return) */
#define FL_TRACE_UPROBE_SESSION 57

/* The allocator programs (--alloc), the return probe first: an entry seen without its
 * return would leave the thread looking inside an allocator call. */
struct alloc_prog {
	struct bpf_program *prog;
	bool ret;	/* a return probe */
	bool free_side; /* probes free and operator delete, not the allocating functions */
	bool churn;	/* --alloc=churn's program, the others exact mode's */
	bool session;	/* the entry and the return as one uprobe session */
	bool pair;	/* one of the entry and return programs that a session replaces */
};

#define ALLOC_PROGS 5

/* Makes @pid a target with entry @p (its generation and start already set): counted from
 * @seed (its /proc status), or from its exec when NULL; its overflow row made first. With
 * @only_new, neither replaces one the BPF side made (-EEXIST). 0 or -errno (attach.c). */
int tracer_put_target(struct tracer *t, pid_t pid, const struct proc_status *seed,
		      struct fl_proc *p, bool only_new);

/* Fills @out with the allocator programs of @skel (allocprobes.c). */
void allocprobes__progs(const struct faultline *skel, struct alloc_prog out[ALLOC_PROGS]);

/* Whether @p is one of the programs this tracer's allocator probes run. */
bool allocprobes__used(const struct tracer *t, const struct alloc_prog *p);

/* Keeps @l in @s to detach later; detaches it at once when out of memory. */
int allocprobes__keep_link(struct link_set *s, struct probe_link l);

/* Detaches every link of @s, in parallel, and empties it. */
void allocprobes__destroy_links(struct link_set *s);

/* --sample-time: @pid is gone; its probes go with the rest at the end. */
void allocprobes__forget(struct tracer *t, pid_t pid);

/* --sample-time: every target's probes and plans go. */
void allocprobes__destroy_windowed(struct tracer *t);

/* objects.c: loads the BPF objects for @o (0 or -errno, reported); frees them; true, having said
 * what to do, when @err is the open-files limit being too low for @what. */
int objects__load(struct tracer *t, const struct tracer_opts *o);
void objects__destroy(struct tracer *t);
bool objects__explain_fd_limit(int err, const char *what);

#endif /* FAULTLINE_TRACER_STATE_H */
