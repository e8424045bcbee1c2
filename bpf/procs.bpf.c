// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* Process lifecycle of the targets: exec (a launched command goes live), thread renames. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "faultline.h"
#include "maps.bpf.h"

/*
 * A launched command is a target from fork on but ignored until its exec, so the loader's own
 * pages copied into the child are not counted; its new mm starts at zero, all of it growth.
 */
SEC("tracepoint/sched/sched_process_exec")
int fl_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct fl_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	if (!p)
		return 0;
	if (p->flags & FL_PROC_AWAIT_EXEC)
		p->flags = (p->flags & ~FL_PROC_AWAIT_EXEC) | FL_PROC_FRESH;
	fl_note_thread(tgid, (__u32)pid_tgid);
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
