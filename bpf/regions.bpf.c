// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Regions (--alloc): the anonymous regions the targets map during the session, each with the
 * stack that mapped it and whether an allocator call made it, so that userspace can tell the
 * allocator's resident memory (arenas, heaps, large blocks) from the application's own (a
 * buffer pool) in its inventory of mappings. One program, at the syscall's exit: the user
 * registers still hold the call's arguments and the stack is the caller's, so nothing need be
 * kept from its entry, and every other syscall of the machine pays one compare.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "alloc_task.bpf.h"
#include "faultline.h"
#include "legacy.bpf.h"
#include "maps.bpf.h"
#include "pages.bpf.h"
#include "regs_x86.bpf.h"
#include "stack.bpf.h"
#include "syscalls_x86.h"
#include "vm_math.h"

#define FL_MAP_FIXED 0x10

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, FL_NO_PREALLOC);
	__uint(max_entries, FL_MAX_REGIONS);
	__type(key, struct fl_region_key);
	__type(value, struct fl_region);
} regions SEC(".maps");

/* Records the region at @start of @len bytes that the current thread, a target's, mapped. */
static __noinline void fl_region_record(void *ctx, __u64 start, __u64 len, __u64 sp)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fl_key key = { .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid };
	struct fl_region_key k = { .tgid = key.tgid, .start = start };
	struct fl_region r = { .len = len, .tid = key.tid };

	fl_user_stack(ctx, &key, false, false);
	r.stack = key.stack;
	r.owner = fl_in_allocator(fl_current_task(), sp) ? FL_OWNER_ALLOCATOR : FL_OWNER_APP;
	if (bpf_map_update_elem(&regions, &k, &r, BPF_ANY))
		fl_drop(FL_DROP_REGIONS_FULL);
}

/* @len bytes unmapped at the start of the region @k records: when only its head went (glibc
 * aligning a new arena), the rest keeps the record, moved to where it now starts. */
static __noinline void fl_region_unmap(struct fl_region_key *k, __u64 len)
{
	struct fl_region *r = bpf_map_lookup_elem(&regions, k);
	struct fl_region rest;

	if (!r)
		return;
	rest = *r;
	bpf_map_delete_elem(&regions, k);
	if (len >= rest.len)
		return;
	rest.len -= len;
	k->start += len;
	if (bpf_map_update_elem(&regions, k, &rest, BPF_ANY))
		fl_drop(FL_DROP_REGIONS_FULL);
}

SEC("raw_tp/sys_exit")
int fl_region_exit(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];
	long ret = (long)ctx[1], nr = fl_syscall_nr(regs);
	struct fl_region_key k = { .tgid = bpf_get_current_pid_tgid() >> 32 };
	struct fl_proc *p;
	__u64 flags;

	if (nr != NR_MMAP && nr != NR_MREMAP && nr != NR_MUNMAP)
		return 0;
	/* the loader's targets only (gen 0): the inventory is read for them, not for the
	 * children -f follows, whose regions would fill the map */
	p = fl_target(k.tgid);
	if (!p || p->gen)
		return 0;
	if (ret < 0 && ret >= -FL_MAX_ERRNO)
		return 0;
	/* the arguments: munmap(addr, len), mremap(old, old_len, new_len, ...), mmap(addr, len,
	 * prot, flags, ...) */
	if (nr == NR_MUNMAP) {
		k.start = PT_REGS_PARM1_CORE_SYSCALL(regs);
		fl_region_unmap(&k,
				fl_page_align(PT_REGS_PARM2_CORE_SYSCALL(regs), fl_page_bytes()));
		return 0;
	}
	if (nr == NR_MREMAP) {
		k.start = PT_REGS_PARM1_CORE_SYSCALL(regs);
		if (k.start != (__u64)ret)
			bpf_map_delete_elem(&regions, &k);
		fl_region_record(ctx, (__u64)ret, PT_REGS_PARM3_CORE_SYSCALL(regs),
				 PT_REGS_SP_CORE(regs));
		return 0;
	}
	flags = PT_REGS_PARM4_CORE_SYSCALL(regs);
	/* a fixed mapping replaces part of one already there (an allocator giving pages back) */
	if (fl_mmap_call(flags) == FL_VM_MMAP_ANON && !(flags & FL_MAP_FIXED))
		fl_region_record(ctx, (__u64)ret, PT_REGS_PARM2_CORE_SYSCALL(regs),
				 PT_REGS_SP_CORE(regs));
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
