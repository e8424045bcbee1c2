/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The processes being profiled: identity, liveness, /proc figures, symbolizer. */
#ifndef FAULTLINE_TARGETS_H
#define FAULTLINE_TARGETS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "model/report.h"
#include "symbols/symbolizer.h"

struct target {
	struct fl_proc_summary sum; /* pid, comm, alive, status at attach and now */
	struct symbolizer *sym;	    /* NULL until the process runs its own image */
	int pidfd;		    /* readable once the process exits; -1 when unsupported */
	uint32_t execs;		    /* the BPF side's exec count when sym was made */
	uint32_t now_execs;	    /* ... when sum.now was read: a later exec makes it stale */
};

/* The targets of a session: given ones first, then the children -f finds, in that order. */
struct target_set {
	struct target *v;
	size_t n;
	size_t cap;
};

/* Room for one more target: returns the new slot (zeroed, pidfd -1), counted in @set->n, or
 * NULL when out of memory. */
struct target *target_set__add(struct target_set *set);

/* The target of process @pid, or NULL. A linear search: for the few lookups per refresh. */
struct target *target_set__find(struct target_set *set, pid_t pid);

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
 * For a child that -f found in the BPF target set, @bpf its entry there (NULL: none). Its
 * status when first seen is its "at attach", but for the RSS counters whose baseline the BPF
 * side already took (the first value it saw after the fork): those start from there, so the
 * kernel's change and faultline's growth cover the same window. A child that already exited
 * (gone, or a zombie) is a target that has exited, named @fallback_comm (the name the BPF side
 * captured; NULL: unknown).
 */
void target__init_followed(struct target *t, pid_t pid, const struct fl_proc *bpf,
			   const char *fallback_comm);

/* After the launched child exec'd, at attach, or after an exec: name the process, snapshot its
 * maps (a new symbolizer; names already given to stacks stay). */
void target__start_naming(struct target *t, struct elf_cache *elf);

/* For a forked child that exited before it could be named and never exec'd: its image was
 * its parent's, so the parent @parent (if still there) names its stacks. */
void target__name_from_parent(struct target *t, struct elf_cache *elf, pid_t parent);

/* Reads /proc/PID/status into sum.now; marks the target exited when it is gone. */
void target__refresh(struct target *t);

/* Returns true when the target has exited (pidfd readable, or /proc gone). */
bool target__exited(struct target *t);

void target__fini(struct target *t);

#endif /* FAULTLINE_TARGETS_H */
