/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The processes being profiled: identity, liveness, /proc figures, symbolizer. */
#ifndef FAULTLINE_TARGETS_H
#define FAULTLINE_TARGETS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/pace.h"
#include "model/inventory.h"
#include "model/report.h"
#include "symbols/symbolizer.h"
#include "trace/exitmaps.h"

struct target {
	struct fl_proc_summary sum; /* pid, comm, alive, status at attach and now */
	struct symbolizer *sym;	    /* NULL until the process runs its own image */
	int pidfd;		    /* a given target's, readable once it exits; -1 for children
				     * (the BPF side says when they exit) or when unsupported */
	uint32_t execs;		    /* the BPF side's exec count when sym was made */
	uint32_t now_execs;	    /* ... when sum.now was read: a later exec makes it stale */
	/* -f: the child's start (the BPF side's, ns) and generation (fl_key.gen): with the pid,
	 * its identity; both 0 for the given targets */
	uint64_t start;
	uint16_t gen;
	pid_t parent;		/* -f: the target that forked it */
	bool retired;		/* taken out of the BPF target set (it exited) */
	uint64_t retired_at;	/* ... as collector__moves() said so many */
	uint64_t unwind_layout; /* symbolizer__layout() its unwind tables were loaded for */
	bool tables_due;	/* named, its tables to load at the next follow__load_tables() */
	/* after an exec, ld.so maps the libraries: the maps are read again at settle_at, then
	 * at twice the delay each time, settle_steps times in all */
	uint64_t settle_at; /* pace__now() ns; 0: settled */
	unsigned settle_step;
	size_t older;	    /* index + 1 of the previous target of the same pid; 0: none */
	struct pace rollup; /* reads of smaps_rollup, whose cost grows with the process */
	bool ended;	    /* sum.now's status read as the probes stopped (target__read_end) */
	uint8_t based; /* -f: the members (bit 1 << enum fl_member) whose sum.at_attach figure is
			* the BPF side's baseline */
	/* what it holds resident, by mapping (the given targets and the launched command, not
	 * -f's children: each read walks the page tables); NULL until the first read */
	struct inventory *inventory;
	struct pace inventory_pace; /* live reads on request (the interactive view) */
};

/* The targets of a session: given ones first, then the children -f finds, in that order. */
struct target_set {
	struct target *v;
	size_t n;
	size_t cap;
	size_t *slots; /* by pid: index + 1 of the newest target of each pid; 0: free */
	size_t nslots;
	size_t npids;
};

/* Room for one more target: returns the new slot (zeroed, pidfd -1), counted in @set->n, or
 * NULL when out of memory. Slots move: a pointer into the set lasts until the next add. */
struct target *target_set__add(struct target_set *set);

/* Makes @t, once its pid is set, the newest target of its pid. Returns 0 or -ENOMEM. */
int target_set__index(struct target_set *set, struct target *t);

/* The first target of process @pid in @set's order, or NULL: a linear search, for the given
 * targets before they are indexed. */
struct target *target_set__first(struct target_set *set, pid_t pid);

/* The newest target of process @pid, or NULL. */
struct target *target_set__find(struct target_set *set, pid_t pid);

/* The target of process @pid of generation @gen (fl_key.gen), or NULL. @gen 0, which the rows
 * of allocator and memory calls carry, and the given targets have: the newest of @pid. */
struct target *target_set__find_gen(struct target_set *set, pid_t pid, uint16_t gen);

/*
 * Finishes and removes the targets @drop says go, the others kept in their order and indexed
 * again; @moved (NULL, or room for the set's count before) gets each old index's new index + 1,
 * 0 for one removed. Returns how many went.
 */
size_t target_set__drop(struct target_set *set, bool (*drop)(const struct target *t, void *ctx),
			void *ctx, size_t *moved);

/* Finishes every target and frees the array. */
void target_set__fini(struct target_set *set);

/*
 * Checks that @pid names a live user process and fills @t (status at attach, comm). A thread
 * id is replaced by its process id. Prints one clear line and returns -errno on failure.
 */
int target__init(struct target *t, pid_t pid);

/* For a launched child: nothing is known until it execs; its counters start at zero. */
void target__init_launched(struct target *t, pid_t pid);

/*
 * For a child that -f found in the BPF target set, @bpf its entry there. Its status when
 * first seen is its "at attach", but for the RSS counters whose baseline the BPF side already
 * took (the first value it saw after the fork): those start from there, so the kernel's
 * change and faultline's growth cover the same window. A child that already exited (gone, a
 * zombie, or its pid another process's by now) is a target that has exited, named
 * @fallback_comm (the name the BPF side captured; NULL: unknown).
 */
void target__init_followed(struct target *t, pid_t pid, const struct fl_proc *bpf,
			   const char *fallback_comm);

/* True when /proc/PID of @t is still its process (read after a /proc read, it says that the
 * read was of @t): its pidfd is not readable, or its start time is the same. */
bool target__same_process(const struct target *t);

/* After the launched child exec'd, at attach, after an exec, or for a new child: name the
 * process, snapshot its maps (a new symbolizer; names already given to stacks stay). @like:
 * the parent's symbolizer, whose objects mapped alike are not opened again (or NULL). */
void target__start_naming(struct target *t, struct elf_cache *elf, const struct symbolizer *like);

/* For a forked child that exited before it could be named and never exec'd: its image was
 * its parent's, so the parent @parent (if still there) names its stacks. */
void target__name_from_parent(struct target *t, struct elf_cache *elf, pid_t parent);

/*
 * For a target that exited: its stacks are named from the mappings the BPF side recorded as it
 * exited (@exits, NULL: none), and where those have none, from what @t's symbolizer knew, and
 * then from @parent's (its image before an exec; NULL: none). Returns 0, -ENOENT when nothing was recorded (the
 * symbolizer then only lets go of its /proc entry), or -errno.
 */
int target__name_at_exit(struct target *t, struct elf_cache *elf, struct exit_maps *exits,
			 const struct symbolizer *parent);

/* -f: each RSS counter's baseline from the BPF side (its first value, fork's copy of the
 * parent's pages) into sum.at_attach, for the members it knows now and did not before: the
 * first read of /proc may come after a member grew, and its first event after that read.
 * After an exec, a member of which no value was seen starts from zero, as the new image. */
void target__take_bases(struct target *t, const struct fl_proc *bpf);

/* @t exited: its RSS counters as its teardown began (@bpf's gone_last), for the members the
 * BPF side knows, into sum.now (a /proc read during the teardown sees part of it gone). */
void target__take_exit_rss(struct target *t, const struct fl_proc *bpf);

/*
 * @t, a process that exited before its /proc figures were read (or after an exec they were
 * read before), reconciled all the same when its exit's counters were kept (sum.counters_only):
 * its RSS counters as the BPF side first knew them (a child's first values after its fork, a
 * given target's /proc read at attach) into sum.at_attach, as its teardown began into sum.now,
 * and what its execs left.
 */
void target__take_counters(struct target *t, const struct fl_proc *bpf);

/*
 * RSS changes are no longer counted (the final report): reads /proc/PID/status into sum.now
 * at once, before anything else of the report, so that the kernel's counters are those of the
 * moment the attributed figures stopped (a process whose RSS moves fast at the end otherwise
 * moves between the two reads). Its smaps_rollup comes with the final target__refresh().
 */
void target__read_end(struct target *t);

/* Reads /proc/PID/status into sum.now, and smaps_rollup when @final or its pace allows (its
 * figures are then sum.rollup_age_ns old; the @alive targets' reads together keep to one's
 * pace); marks the target exited when it is gone (or its pid is another process's). */
void target__refresh(struct target *t, bool final, size_t alive);

/*
 * Reads side @side of @t's inventory (sum.inventory then shows it): at attach, at the end,
 * or live when @paced and its pace allows (a read costs a walk of every page table). Nothing
 * for a target that exited or a child -f found. Returns 0, -EAGAIN when not due yet, or
 * -errno.
 */
int target__read_inventory(struct target *t, enum inv_side side, bool paced);

/* Returns true when the target has exited (pidfd readable, or /proc gone). A child's exit is
 * the BPF side's word: this only says what is known. */
bool target__exited(struct target *t);

void target__fini(struct target *t);

#endif /* FAULTLINE_TARGETS_H */
