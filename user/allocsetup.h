/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* --alloc per target: finds the allocator a process uses and attaches its probes to it. */
#ifndef FAULTLINE_ALLOCSETUP_H
#define FAULTLINE_ALLOCSETUP_H

#include <sys/types.h>
#include "attach.h"
#include "cli.h"

/*
 * Finds the allocator of @pid (--alloc-lib, else from its mappings) and attaches its probes to
 * @pid alone. @launched: the command of a launched child that has not exec'd yet (its
 * mappings are still faultline's), else NULL. Prints what it found (more with -v) and one
 * clear line on failure. Returns 0 or -errno.
 */
int allocsetup__attach(struct tracer *t, const struct fl_config *cfg, pid_t pid,
		       const char *launched);

#endif /* FAULTLINE_ALLOCSETUP_H */
