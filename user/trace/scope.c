// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The scope's side of the tracer (-a, --cgroup): the cgroups the BPF side checks a process
 * against, and the processes already in the scope when the session starts. */
#include "trace/scope.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "trace/tracer_state.h"

int tracer__scope_cgroup(struct tracer *t, uint64_t id)
{
	__u32 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.scope_cgroups), &id, &one, BPF_ANY))
		return -errno;
	return 0;
}

int tracer__admit(struct tracer *t, pid_t pid, const struct proc_status *seed, uint64_t start_ns)
{
	struct fl_key overflow = { .tgid = (__u32)pid, .origin = FL_ORIGIN_OVERFLOW };
	struct fl_counts zero = {};
	struct fl_proc p = { .flags = FL_PROC_SEEDED, .start = start_ns };
	__u32 tgid = (__u32)pid;

	for (int m = 0; m < FL_MEMBERS; m++)
		p.gone_last[m] = FL_SIZE_UNKNOWN;
	p.seed[FL_FILE] = (__s64)seed->rss_file;
	p.seed[FL_ANON] = (__s64)seed->rss_anon;
	p.seed[FL_SWAP] = (__s64)seed->vm_swap;
	p.seed[FL_SHMEM] = (__s64)seed->rss_shmem;
	/* from the BPF side's counter, so that no generation is two processes' */
	p.gen = __sync_fetch_and_add(&t->skel->bss->fl_next_gen, 1) % 65535 + 1;
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.counts), &overflow, &zero, BPF_NOEXIST) &&
	    errno != EEXIST)
		return -errno;
	/* NOEXIST: a fork or a move since the attach made it a target already */
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.procs), &tgid, &p, BPF_NOEXIST))
		return -errno;
	return 0;
}
