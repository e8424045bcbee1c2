// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Regions (--alloc): the anonymous regions the targets map during the session, each with the
 * stack that mapped it and whether an allocator call made it, so that userspace can tell the
 * allocator's resident memory (arenas, heaps, large blocks) from the application's own (a
 * buffer pool) in its inventory of mappings. mmap calls are rare beside faults: one walk each.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "alloc_task.bpf.h"
#include "faultline.h"
#include "maps.bpf.h"
#include "stack.bpf.h"
#include "syscalls_x86.h"
#include "vm_math.h"

#define FL_MAP_FIXED 0x10
#define FL_MAX_ERRNO 4095

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, FL_MAX_REGIONS);
	__type(key, struct fl_region_key);
	__type(value, struct fl_region);
} regions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fl_region_task);
} region_task SEC(".maps");

/* Notes an mmap or mremap of @len bytes (moving the region at @old, 0 for mmap) to record at
 * its exit, with the caller's stack and owner. */
static __always_inline void fl_region_begin(void *ctx, struct pt_regs *regs, __u64 len, __u64 old)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fl_key key = { .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid };
	struct task_struct *task = bpf_get_current_task_btf();
	struct fl_region_task *rt;

	rt = bpf_task_storage_get(&region_task, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!rt) {
		fl_drop(FL_DROP_REGIONS_FULL);
		return;
	}
	fl_user_stack(ctx, &key, false, false);
	rt->len = len;
	rt->old = old;
	rt->r.len = len;
	rt->r.stack = key.stack;
	rt->r.tid = key.tid;
	rt->r.owner = fl_in_allocator(task, BPF_CORE_READ(regs, sp)) ? FL_OWNER_ALLOCATOR :
								       FL_OWNER_APP;
}

SEC("raw_tp/sys_enter")
int fl_region_enter(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	long nr = (long)ctx->args[1];
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 flags;

	if ((nr != NR_MMAP && nr != NR_MREMAP && nr != NR_MUNMAP) || !fl_target(tgid))
		return 0;
	if (nr == NR_MUNMAP) {
		struct fl_region_key k = { .tgid = tgid, .start = BPF_CORE_READ(regs, di) };

		bpf_map_delete_elem(&regions, &k);
		return 0;
	}
	if (nr == NR_MREMAP) {
		fl_region_begin(ctx, regs, BPF_CORE_READ(regs, dx), BPF_CORE_READ(regs, di));
		return 0;
	}
	flags = BPF_CORE_READ(regs, r10);
	/* a fixed mapping replaces part of one already there (an allocator giving pages back) */
	if (fl_mmap_call(flags) == FL_VM_MMAP_ANON && !(flags & FL_MAP_FIXED))
		fl_region_begin(ctx, regs, BPF_CORE_READ(regs, si), 0);
	return 0;
}

SEC("raw_tp/sys_exit")
int fl_region_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct fl_region_task *rt;
	struct fl_region_key k = { .tgid = bpf_get_current_pid_tgid() >> 32 };
	long ret = (long)ctx->args[1];

	rt = bpf_task_storage_get(&region_task, bpf_get_current_task_btf(), NULL, 0);
	if (!rt || !rt->len)
		return 0;
	rt->len = 0;
	if (ret < 0 && ret >= -FL_MAX_ERRNO)
		return 0;
	if (rt->old && rt->old != (__u64)ret) {
		k.start = rt->old;
		bpf_map_delete_elem(&regions, &k);
	}
	k.start = (__u64)ret;
	if (bpf_map_update_elem(&regions, &k, &rt->r, BPF_ANY))
		fl_drop(FL_DROP_REGIONS_FULL);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
