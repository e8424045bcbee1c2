// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Process lifecycle of the targets: exec (a launched command goes live, a target's image
 * changes), fork (-f: a new process of a target becomes one), thread renames.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "maps.bpf.h"

/*
 * A launched command is a target from fork on but ignored until its exec, so the loader's own
 * pages copied into the child are not counted. Any target's new mm starts at zero, all of it
 * growth: FL_PROC_FRESH says so even when the old mm was never seen (a child -f follows that
 * execs before its first RSS change), and the seeds of the old mm no longer apply.
 */
SEC("tracepoint/sched/sched_process_exec")
int fl_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct fl_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	if (!p)
		return 0;
	p->flags = (p->flags & ~(FL_PROC_AWAIT_EXEC | FL_PROC_SEEDED)) | FL_PROC_FRESH;
	/* exec bumped it already: the new image's blocks carry it (alloc.bpf.c) */
	p->exec_id = (__u32)bpf_get_current_task_btf()->self_exec_id;
	__sync_fetch_and_add(&p->execs, 1);
	fl_note_thread(tgid, (__u32)pid_tgid);
	return 0;
}

/*
 * -f: a new process forked by a target becomes a target (the loader disables this program
 * without -f). Its entry has no flags, so the first value seen of each RSS counter of its mm
 * is a baseline (rss_math.h fl_mm_baseline): the copy of the parent's pages that fork made is
 * not growth. Its seed[] receives those baselines as they are seen (faults.bpf.c). Its
 * overflow row comes first, as for the loader's targets (fl_counts_get()).
 * A thread (clone with CLONE_THREAD) is not a new process; a launched command waiting for its
 * exec (fl_target() says no) has no children to follow yet.
 * TP_PROTO(struct task_struct *parent, struct task_struct *child).
 */
SEC("raw_tp/sched_process_fork")
int fl_fork(struct bpf_raw_tracepoint_args *ctx)
{
	static const struct fl_counts zero;
	struct fl_proc fresh = {
		.seed = { FL_SIZE_UNKNOWN, FL_SIZE_UNKNOWN, FL_SIZE_UNKNOWN, FL_SIZE_UNKNOWN },
	};
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	struct fl_key overflow = { .origin = FL_ORIGIN_OVERFLOW };
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	long err;

	overflow.tgid = BPF_CORE_READ(child, tgid);
	if (overflow.tgid != (__u32)BPF_CORE_READ(child, pid) || !fl_target(ptgid))
		return 0;
	err = bpf_map_update_elem(&counts, &overflow, &zero, BPF_NOEXIST);
	if (err && err != -FL_EEXIST)
		fl_drop(FL_DROP_COUNTS_FULL);
	fresh.parent = ptgid;
	err = bpf_map_update_elem(&procs, &overflow.tgid, &fresh, BPF_NOEXIST);
	if (err && err != -FL_EEXIST)
		fl_drop(FL_DROP_PROCS_FULL);
	return 0;
}

/* Keeps the names of threads already seen current (prctl(PR_SET_NAME), pthread_setname_np). */
SEC("tracepoint/task/task_rename")
int fl_task_rename(struct trace_event_raw_task_rename *ctx)
{
	__u32 tid = ctx->pid;
	struct fl_thread *t = bpf_map_lookup_elem(&threads, &tid);

	if (t)
		bpf_probe_read_kernel_str(t->comm, sizeof(t->comm), ctx->newcomm);
	return 0;
}
