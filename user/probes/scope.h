/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * -a and --cgroup: the BPF side makes every process of the scope a target as it forks or is
 * moved into a selected cgroup (bpf/scope.bpf.h); the loader gives it the cgroups, and the
 * processes already there when the session starts.
 */
#ifndef FAULTLINE_TRACE_SCOPE_H
#define FAULTLINE_TRACE_SCOPE_H

#include <stdint.h>
#include <sys/types.h>
#include "base/procfs.h"

struct tracer;

/* Adds the cgroup of id @id (its v2 directory's inode) to those whose processes are targets.
 * Returns 0 or -errno. */
int tracer__scope_cgroup(struct tracer *t, uint64_t id);

/*
 * Makes @pid, a process in the scope when the session starts, a target found by the BPF side
 * (a generation of its own, as a child -f follows), counted from @seed (its /proc status read
 * now); @start_ns: its start time (/proc/PID/stat, in ns). Returns 0, -EEXIST when the BPF side
 * made it a target already (it forked or moved since the attach), or -errno.
 */
int tracer__admit(struct tracer *t, pid_t pid, const struct proc_status *seed, uint64_t start_ns);

#endif /* FAULTLINE_TRACE_SCOPE_H */
