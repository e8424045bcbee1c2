// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Process lifecycle of the targets: exec (a launched command goes live, a target's image
 * changes), fork (-f: a new process of a target becomes one), exit (a target charges nothing
 * more, so its pid can be another process's), the teardown of an mm, thread renames.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "legacy.bpf.h"
#include "maps.bpf.h"
#include "scope.bpf.h"
#include "threads.bpf.h"
#include "unwind_procs.bpf.h"

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
	struct fl_mm *mm;

	if (!p)
		return 0;
	p->flags = (p->flags & ~(FL_PROC_AWAIT_EXEC | FL_PROC_SEEDED)) | FL_PROC_FRESH;
	/* exec bumped it already: the new image's blocks carry it (alloc.bpf.c) */
	p->exec_id = (__u32)FL_TASK(fl_current_task(), self_exec_id);
	/* the new image runs from here: its mm's changes are its own (fl_mm_in_exec); read, not
	 * loaded (maps.bpf.h) */
	p->image_mm = (__u64)BPF_CORE_READ(fl_current_task(), mm);
	/* the teardown of the image it left was not its exit: what it held is the image's; a
	 * member with no value kept held its seed, if it had one */
	if (p->flags & FL_PROC_LAST_KEPT)
		for (int m = 0; m < FL_MEMBERS; m++) {
			if (p->gone_last[m] >= 0)
				p->exec_left[m] += p->gone_last[m];
			else if (p->seed[m] >= 0)
				p->exec_left[m] += p->seed[m];
		}
	p->flags &= ~FL_PROC_LAST_KEPT;
	mm = bpf_map_lookup_elem(&mm_state, &p->mm_id);
	if (mm && mm->mm_ptr == p->image_mm)
		mm->flags &= ~FL_MM_IN_EXEC;
	__sync_fetch_and_add(&p->execs, 1);
	/* the old image's mappings are gone: frame pointers until userspace maps the new one */
	if (!bpf_map_delete_elem(&unwind_procs, &tgid))
		fl_unwind_changed();
	fl_note_thread(tgid, (__u32)pid_tgid);
	fl_wake_loader(tgid);
	return 0;
}

/* The generations of children, counted up (fl_proc.gen); the loader takes some too. */
__u32 fl_next_gen;

/*
 * Makes the process of @task, a new one or one that joined the scope, a target that the
 * BPF side found (fl_proc.gen not 0): the first value seen of each RSS counter of its mm is a
 * baseline (rss_math.h fl_mm_baseline), as its seed[] records (faults.bpf.c). Its overflow
 * row comes first, as for the loader's targets (fl_counts_get()). Its start time makes
 * (pid, start) its identity for userspace, its generation keeps its rows apart from those of
 * an earlier process of the same pid. Returns bpf_map_update_elem()'s error.
 */
static __always_inline long fl_admit(struct task_struct *task, __u32 tgid, __u32 parent,
				     __u32 flags)
{
	static const struct fl_counts zero;
	struct fl_proc fresh = {
		.seed = { FL_SIZE_UNKNOWN, FL_SIZE_UNKNOWN, FL_SIZE_UNKNOWN, FL_SIZE_UNKNOWN },
		.gone_last = { FL_SIZE_UNKNOWN, FL_SIZE_UNKNOWN, FL_SIZE_UNKNOWN, FL_SIZE_UNKNOWN },
	};
	struct fl_key overflow = { .tgid = tgid, .origin = FL_ORIGIN_OVERFLOW };
	long err;

	err = bpf_map_update_elem(&counts, &overflow, &zero, BPF_NOEXIST);
	if (err && err != -FL_EEXIST)
		fl_drop(FL_DROP_COUNTS_FULL);
	fresh.parent = parent;
	fresh.flags = flags;
	fresh.gen = fl_fetch_add(&fl_next_gen, 1) % 65535 + 1;
	fresh.start = BPF_CORE_READ(task, group_leader, start_boottime);
	fresh.image_mm = (__u64)BPF_CORE_READ(task, mm);
	return bpf_map_update_elem(&procs, &tgid, &fresh, BPF_NOEXIST);
}

/*
 * A new process becomes a target when a target forked it (-f; the loader disables this
 * program without -f or a scope) or when it is in the scope (-a, --cgroup). The copy of the
 * parent's pages that fork made is its baseline, not growth (fl_admit()).
 * A child whose pid is still held by an exited target that userspace has not retired yet
 * (the pid was reused within ~100 ms) is not followed: its rows would be that target's.
 * A thread (clone with CLONE_THREAD) is not a new process; a launched command waiting for its
 * exec (fl_target() says no) has no children to follow yet.
 * TP_PROTO(struct task_struct *parent, struct task_struct *child).
 */
SEC("raw_tp/sched_process_fork")
int fl_fork(__u64 *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx[0];
	struct task_struct *child = (struct task_struct *)ctx[1];
	__u32 ptgid = BPF_CORE_READ(parent, tgid), tgid = BPF_CORE_READ(child, tgid);
	bool followed;
	long err;

	if (tgid != (__u32)BPF_CORE_READ(child, pid))
		return 0;
	followed = fl_target(ptgid) != NULL;
	if (!followed && !fl_in_scope(child))
		return 0;
	err = fl_admit(child, tgid, followed ? ptgid : 0, 0);
	if (!err) {
		/* the child runs its parent's code: its stacks unwind by the parent's tables */
		struct fl_unwind_proc *code = bpf_map_lookup_elem(&unwind_procs, &ptgid);

		if (code && code->n && !bpf_map_update_elem(&unwind_procs, &tgid, code, BPF_ANY))
			fl_unwind_changed();
	} else if (err == -FL_EEXIST) {
		struct fl_proc *old = bpf_map_lookup_elem(&procs, &tgid);

		if (old && (old->flags & FL_PROC_EXITED))
			fl_drop(FL_DROP_PID_REUSED);
	} else if (err) {
		fl_drop(FL_DROP_PROCS_FULL);
	}
	return 0;
}

/*
 * --cgroup: a process moved into a selected cgroup (a service manager or container runtime
 * forks outside it, moves the child in, then execs) is a target from then on. Its exec then
 * counts the new image from zero, as for any target. Moves out are not followed: a process
 * that leaves stays a target.
 * TP_PROTO(struct cgroup *dst_cgrp, const char *path, struct task_struct *task,
 *	    bool threadgroup).
 */
SEC("raw_tp/cgroup_attach_task")
int fl_cgroup_attach(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[2];
	__u32 tgid = BPF_CORE_READ(task, tgid);
	long err;

	if (bpf_map_lookup_elem(&procs, &tgid) || !fl_in_scope(task))
		return 0;
	err = fl_admit(task, tgid, 0, FL_PROC_JOINED);
	if (!err)
		fl_wake_loader(tgid);
	else if (err != -FL_EEXIST)
		fl_drop(FL_DROP_PROCS_FULL);
	return 0;
}

/*
 * The last thread of a target exits: nothing it does from now on is charged but the teardown
 * of its memory, and userspace retires it. Its pid is released only once its parent reaps
 * it, so no new process can be charged to it. group_dead (an argument since Linux 6.16) is
 * read as the kernel computes it, so that older kernels attach this program too.
 * TP_PROTO(struct task_struct *p[, bool group_dead]).
 */
SEC("raw_tp/sched_process_exit")
int fl_exit(__u64 *ctx)
{
	struct task_struct *task = fl_current_task();
	__u32 tgid = FL_TASK(task, tgid);
	struct fl_proc *p;
	struct fl_mm *mm;

	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	fl_thread_forget(FL_TASK(task, pid));
	/* read, not loaded (maps.bpf.h); a target's exit only */
	if (BPF_CORE_READ(task, signal, live.counter))
		return 0;
	mm = (p->flags & FL_PROC_MM_KNOWN) ? bpf_map_lookup_elem(&mm_state, &p->mm_id) : NULL;
	if (mm && mm->tgid == tgid)
		fl_keep_last(p, mm);
	fl_or(&p->flags, FL_PROC_EXITED);
	return 0;
}

/*
 * An mm is torn down (the last user of it went: exit, exec, or whoever held it last): its
 * state goes, so that a new mm whose rss_stat id is the same hash is not taken for it (a fork
 * storm reuses the freed mm at once), and its peak stays in its process's entry.
 * TP_PROTO(struct mm_struct *mm).
 */
SEC("raw_tp/exit_mmap")
int fl_mm_exit(__u64 *ctx)
{
	__u64 mm_ptr = ctx[0];
	__u32 *id = bpf_map_lookup_elem(&mm_ids, &mm_ptr);
	struct fl_mm *mm;
	struct fl_proc *p;
	__u32 mm_id;

	if (!id)
		return 0;
	mm_id = *id;
	bpf_map_delete_elem(&mm_ids, &mm_ptr);
	mm = bpf_map_lookup_elem(&mm_state, &mm_id);
	if (!mm || mm->mm_ptr != mm_ptr)
		return 0;
	p = bpf_map_lookup_elem(&procs, &mm->tgid);
	if (p && mm->peak > p->gone_peak) {
		p->gone_peak = mm->peak;
		p->gone_peak_seq = mm->peak_seq;
	}
	bpf_map_delete_elem(&mm_state, &mm_id);
	return 0;
}

/*
 * Keeps the names of threads already seen current (prctl(PR_SET_NAME), pthread_setname_np).
 * Raw: the task is a type the programs relocate anyway, the event's record one more.
 * TP_PROTO(struct task_struct *task, const char *comm).
 */
SEC("raw_tp/task_rename")
int fl_task_rename(__u64 *ctx)
{
	__u32 tid = BPF_CORE_READ((struct task_struct *)ctx[0], pid);
	struct fl_thread *t = bpf_map_lookup_elem(&threads, &tid);

	if (t)
		bpf_probe_read_kernel_str(t->comm, sizeof(t->comm), (const char *)ctx[1]);
	return 0;
}
