// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The scope's side of the tracer (-a, --cgroup): the cgroups the BPF side checks a process
 * against, and the processes already in the scope when the session starts. */
#include "probes/scope.h"
#include <bpf/bpf.h>
#include <errno.h>
#include "probes/tracer_state.h"

int tracer__scope_cgroup(struct tracer *t, uint64_t id)
{
	__u32 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.scope_cgroups), &id, &one, BPF_ANY))
		return -errno;
	return 0;
}

int tracer__admit(struct tracer *t, pid_t pid, const struct proc_status *seed, uint64_t start_ns)
{
	/* from the BPF side's counter, so that no generation is two processes' */
	struct fl_proc p = { .start = start_ns,
			     .gen = __sync_fetch_and_add(&t->skel->bss->fl_next_gen, 1) % 65535 + 1,
			     .flags = FL_PROC_PRESENT };

	/* only new: a fork or a move since the attach made it a target already */
	return tracer_put_target(t, pid, seed, &p, true);
}
