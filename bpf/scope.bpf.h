/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Whether a process belongs to the session's scope (-a, --cgroup): decided here, from the
 * task's cgroup v2, as it forks or is moved, so that a process that starts in a selected
 * cgroup is a target from its first event and one outside never is, without the loader
 * chasing pids.
 */
#ifndef FAULTLINE_SCOPE_BPF_H
#define FAULTLINE_SCOPE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "faultline.h"

#define FL_PF_KTHREAD 0x00200000 /* include/linux/sched.h */

const volatile __u32 scope __weak = FL_SCOPE_PIDS; /* enum fl_scope */
const volatile __u32 self_tgid __weak = 0;	   /* faultline never traces itself */

/* --cgroup: the ids of the selected cgroups (the v2 directory's inode number) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FL_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, __u32);
} scope_cgroups SEC(".maps") __weak;

/* Whether @task's process is in the scope: a user process (not faultline) on the host, or in
 * a selected cgroup or one of their descendants. */
static __always_inline bool fl_in_scope(struct task_struct *task)
{
	struct cgroup *cg;

	if (scope == FL_SCOPE_PIDS)
		return false;
	if ((BPF_CORE_READ(task, flags) & FL_PF_KTHREAD) || BPF_CORE_READ(task, tgid) == self_tgid)
		return false;
	if (scope == FL_SCOPE_ALL)
		return true;
	cg = BPF_CORE_READ(task, cgroups, dfl_cgrp);
	for (int i = 0; i < FL_CGROUP_DEPTH && cg; i++) {
		__u64 id = BPF_CORE_READ(cg, kn, id);

		if (bpf_map_lookup_elem(&scope_cgroups, &id))
			return true;
		cg = BPF_CORE_READ(cg, self.parent, cgroup);
	}
	return false;
}

#endif /* FAULTLINE_SCOPE_BPF_H */
