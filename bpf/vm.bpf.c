// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Memory syscalls (--vm): mmap, munmap, mremap, brk and madvise of the targets, counted on the
 * caller's stack by what they do (enum fl_vm_call). The entry walks the stack into the
 * per-thread cache with the call, so that the RSS changes made inside it (faults.bpf.c) are
 * charged to the call's row too: who gave memory back, and who populated it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "mapping.bpf.h"
#include "maps.bpf.h"
#include "stack.bpf.h"
#include "vm_math.h"

/* The arguments of the memory syscall each target thread is inside, from entry to exit. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fl_vm_task);
} vm_task SEC(".maps");

/*
 * Notes a call of the current thread, a target's, and walks its stack for what follows.
 * @class: the class of the mapping the call makes (mmap, brk), or 0 to look up the one at
 * @addr (--by mapping).
 */
static __always_inline void fl_vm_enter(void *ctx, __u32 call, __u32 class, __u64 addr, __u64 len,
					__u64 arg, __u64 old_brk)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fl_key key = { .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid };
	struct fl_vm_task *v;

	if (!call || !fl_target(key.tgid))
		return;
	v = bpf_task_storage_get(&vm_task, bpf_get_current_task_btf(), NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!v) {
		fl_drop(FL_DROP_VM_STATE);
		return;
	}
	v->call = call;
	v->len = len;
	v->arg = arg;
	v->old_brk = old_brk;
	key.call = call;
	if (map_classes && class)
		key.map_class = class;
	else if (map_classes)
		fl_classify(&key, addr);
	/* refills the stack cache with the call: the RSS changes inside it are charged to it */
	fl_user_stack(ctx, &key, true);
}

/* Charges the call the thread is leaving, with the syscall's return value @ret. */
static __always_inline void fl_vm_exit(void *ctx, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fl_key key = { .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid };
	struct fl_vm_task *v;
	struct fl_vm_bytes b;
	struct fl_counts *c;

	v = bpf_task_storage_get(&vm_task, bpf_get_current_task_btf(), NULL, 0);
	if (!v || !v->call)
		return;
	b = fl_vm_result(v, ret);
	key.call = v->call;
	v->call = 0;
	fl_user_stack(ctx, &key, false);
	/* a later syscall through the same wrapper may come from another caller */
	fl_stack_cache_forget();
	c = fl_counts_get(&key);
	if (!c)
		return;
	__sync_fetch_and_add(&c->vm_calls, 1);
	if (b.failed)
		__sync_fetch_and_add(&c->vm_failed, 1);
	if (b.reserved)
		__sync_fetch_and_add(&c->reserved, b.reserved);
	if (b.unmapped)
		__sync_fetch_and_add(&c->unmapped, b.unmapped);
	if (b.advised)
		__sync_fetch_and_add(&c->advised, b.advised);
}

SEC("tracepoint/syscalls/sys_enter_mmap")
int fl_mmap_enter(struct trace_event_raw_sys_enter *ctx)
{
	fl_vm_enter(ctx, fl_mmap_call(ctx->args[3]), fl_mmap_class(ctx->args[3]), 0, ctx->args[1],
		    0, 0);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_munmap")
int fl_munmap_enter(struct trace_event_raw_sys_enter *ctx)
{
	fl_vm_enter(ctx, FL_VM_MUNMAP, 0, ctx->args[0], ctx->args[1], 0, 0);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_mremap")
int fl_mremap_enter(struct trace_event_raw_sys_enter *ctx)
{
	fl_vm_enter(ctx, FL_VM_MREMAP, 0, ctx->args[0], ctx->args[1], ctx->args[2], 0);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_brk")
int fl_brk_enter(struct trace_event_raw_sys_enter *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 old = BPF_CORE_READ(task, mm, brk);

	fl_vm_enter(ctx, fl_brk_call(ctx->args[0], old), FL_MAP_HEAP, 0, 0, ctx->args[0], old);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_madvise")
int fl_madvise_enter(struct trace_event_raw_sys_enter *ctx)
{
	fl_vm_enter(ctx, fl_madvise_call(ctx->args[2]), 0, ctx->args[0], ctx->args[1], 0, 0);
	return 0;
}

/* One program per exit tracepoint: each is enabled apart, and each fires for its call only. */
SEC("tracepoint/syscalls/sys_exit_mmap")
int fl_mmap_exit(struct trace_event_raw_sys_exit *ctx)
{
	fl_vm_exit(ctx, ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_munmap")
int fl_munmap_exit(struct trace_event_raw_sys_exit *ctx)
{
	fl_vm_exit(ctx, ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mremap")
int fl_mremap_exit(struct trace_event_raw_sys_exit *ctx)
{
	fl_vm_exit(ctx, ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_brk")
int fl_brk_exit(struct trace_event_raw_sys_exit *ctx)
{
	fl_vm_exit(ctx, ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_madvise")
int fl_madvise_exit(struct trace_event_raw_sys_exit *ctx)
{
	fl_vm_exit(ctx, ctx->ret);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
