/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * What the running kernel offers of what faultline's BPF programs use, probed before the load
 * (helpers, map types, tracepoints), never guessed from the version: distributions backport.
 * A missing required feature ends the session with one line that names it; a missing optional
 * one leaves a session that says once what it lacks.
 */
#ifndef FAULTLINE_FEATURES_H
#define FAULTLINE_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

enum kfeature {
	KF_TASK_STORAGE,
	KF_CURRENT_TASK_BTF,
	KF_TASK_PT_REGS,
	KF_LOOP,
	KF_FIND_VMA,
	KF_HASH_ALLOC, /* hash maps allocated as they fill, in tracing programs (by BTF name) */
	KF_RINGBUF,
	KF_ATTACH_COOKIE,
	KF_RSS_STAT,
	KF_PAGE_FAULT_USER,
	KF_PROCESS_EXEC,
	KF_PROCESS_EXIT,
	KF_TASK_RENAME,
	KF_PROCESS_FORK,
	KF_CGROUP_ATTACH,
	KF_PAGE_ALLOC,
	KF_SYSCALLS,
	KF_EXIT_MMAP,
	KF_UPROBE_MULTI, /* these three too: found by name in the kernel's BTF */
	KF_UPROBE_SESSION,
	KF_ITER_TASK_VMA,
	KF__COUNT
};

#define KF_BIT(f) (1u << (f))

/* What a session uses, beyond what every session does. */
enum kf_use {
	KF_USE_ALLOC = 1 << 0,	  /* --alloc: allocator uprobes */
	KF_USE_FORK = 1 << 1,	  /* -f, -a, --cgroup: forks make targets */
	KF_USE_CGROUP = 1 << 2,	  /* --cgroup: moves into a cgroup make targets */
	KF_USE_NEW = 1 << 3,	  /* --metric new: page allocations */
	KF_USE_SYSCALLS = 1 << 4, /* --vm, and --alloc's regions: the syscall tracepoints */
	KF_USE_SAMPLED = 1 << 5,  /* --alloc --sample-bytes: an allocator call's entry weighs */
	KF_USE_MAPPING = 1 << 6,  /* --by mapping: each fault's mapping looked up */
};

/* What a session on the legacy programs (bpf/legacy.bpf.h) does without. */
#define FL_LEGACY_WHAT                                                                     \
	"a stack is walked 32 frames deep by unwind tables, a library mapped after its "   \
	"process was read waits for the next refresh, --by mapping is not available, and " \
	"per-thread state is kept for 16384 threads at most"

struct kfeature_info {
	const char *id;	     /* for -v and the JSON: "task_storage" */
	const char *name;    /* for a person: "BPF task storage" */
	const char *since;   /* the upstream release that brought it: "5.11" */
	uint32_t uses;	     /* enum kf_use: needed only by these; 0: by every session */
	const char *without; /* optional: what a session without it lacks; NULL: required */
	bool legacy;	     /* the legacy programs do without it (FL_LEGACY_WHAT) ... */
	uint32_t needed_by;  /* ... but not for these uses (enum kf_use) */
};

/* The plan: what was found, and of what the session needs, what is missing. */
struct kplan {
	uint32_t have;		   /* KF_BIT()s found */
	uint32_t missing_required; /* needed, not found: the session cannot run */
	uint32_t missing_optional; /* not found: the session runs without */
	bool legacy;		   /* it runs the legacy programs (bpf/legacy.bpf.h) */
	char release[65];	   /* uname -r */
};

const struct kfeature_info *features__info(enum kfeature f);

/* The plan for a kernel that has @have, for a session that uses @uses (enum kf_use). */
void features__plan(struct kplan *p, uint32_t have, uint32_t uses);

/* The one line that refuses a kernel missing p->missing_required (no "faultline: " and no
 * newline), into @buf. Returns snprintf's count. */
int features__refusal(const struct kplan *p, char *buf, size_t size);

/* The plan in one line for -v: "full" or "degraded (lacks ...)". Returns snprintf's count. */
int features__describe(const struct kplan *p, char *buf, size_t size);

/* features__describe() on stderr, "faultline: " before it: -v's line. */
void features__print(const struct kplan *p);

/* The ids of the features missing (required, then optional) into @ids, at most @max. */
size_t features__missing_ids(const struct kplan *p, const char **ids, size_t max);

struct tracer_opts;
/* What a session loaded with @o uses (enum kf_use). */
uint32_t features__uses(const struct tracer_opts *o);

/* Probes the running kernel (root, tracefs mounted): the features found as KF_BIT()s, those
 * named in the kernel's BTF by a read of its string section (about 1 ms); of these, the ones
 * only some sessions use where @uses (enum kf_use) does. */
uint32_t features__probe(uint32_t uses);

/* Probes the kernel and plans a session that uses @uses. A required feature missing: prints
 * the refusal and returns -EOPNOTSUPP; an optional one missing: says so once on stderr. */
int features__check(struct kplan *p, uint32_t uses);

/* log2 of the kernel's page size (sysconf): 12 on x86, 12, 14 or 16 on arm64. */
unsigned features__page_shift(void);

#endif /* FAULTLINE_FEATURES_H */
