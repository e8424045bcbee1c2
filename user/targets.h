/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The processes being profiled: identity, liveness, /proc figures, symbolizer. */
#ifndef FAULTLINE_TARGETS_H
#define FAULTLINE_TARGETS_H

#include <stdbool.h>
#include <sys/types.h>
#include "report.h"
#include "symbolizer.h"

struct target {
	struct fl_proc_summary sum; /* pid, comm, alive, status at attach and now */
	struct symbolizer *sym;	    /* NULL until the process runs its own image */
	int pidfd;		    /* readable once the process exits; -1 when unsupported */
};

/*
 * Checks that @pid names a live user process and fills @t (status at attach, comm). A thread
 * id is replaced by its process id. Prints one clear line and returns -errno on failure.
 */
int target__init(struct target *t, pid_t pid);

/* For a launched child: nothing is known until it execs; its counters start at zero. */
void target__init_launched(struct target *t, pid_t pid);

/* After the launched child exec'd, or at attach: name the process, snapshot its maps. */
void target__start_naming(struct target *t, struct elf_cache *elf);

/* Reads /proc/PID/status into sum.now; marks the target exited when it is gone. */
void target__refresh(struct target *t);

/* Returns true when the target has exited (pidfd readable, or /proc gone). */
bool target__exited(struct target *t);

void target__fini(struct target *t);

#endif /* FAULTLINE_TARGETS_H */
