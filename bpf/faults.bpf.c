// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Faults and RSS: every change of a target's RSS counters (kmem:rss_stat) charged, as growth or
 * release, to the user stack of the thread that caused it, and every user page fault
 * (exceptions:page_fault_user) counted on the same stack.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "legacy.bpf.h"
#include "mapping.bpf.h"
#include "maps.bpf.h"
#include "rss_math.h"
#include "stack.bpf.h"

/* include/linux/sched.h: not in BTF, stable for years */
#define PF_MEMALLOC 0x00000800
#define PF_KSWAPD 0x00020000

#define X86_PF_WRITE 0x2 /* arch/x86/include/asm/trap_pf.h */

struct fl_stats stats;
__u32 unwind_epoch;
__u32 fl_learn_gen;
/* set by userspace as the final report begins: RSS changes from then on are not counted, so
 * that the kernel's counters it reads at once end where the attributed figures do */
bool fl_stopped;

/* Before 6.2 (commit f1a7941243c1, "mm: convert mm's rss stats into percpu_counter") each
 * task cached its RSS deltas in task_struct.rss_stat and flushed them every 64 faults. A field
 * of a struct every kernel has: a type of none (struct task_rss_stat, say) would have libbpf
 * look for it in the modules' BTF too, which CAP_BPF alone may not list. */
struct task_rss_stat___fl {
	int events;
};

struct task_struct___rss {
	struct task_rss_stat___fl rss_stat;
} __attribute__((preserve_access_index));

bool rss_batched;

/*
 * Run once by the loader after the load (BPF_PROG_RUN; attached nowhere): whether this kernel
 * batches RSS counter updates, which libbpf's CO-RE tells from the kernel's BTF it parses for
 * the load anyway, where the loader would parse it again (8 ms, a few MiB) for this alone. A
 * raw tracepoint program: CAP_BPF and CAP_PERFMON may load and run it (a syscall program
 * needs CAP_SYS_ADMIN).
 */
SEC("raw_tp")
int fl_features(__u64 *ctx)
{
	rss_batched = bpf_core_field_exists(struct task_struct___rss, rss_stat);
	return 0;
}

/* Charges @delta of @member of @mm to @key's row, keeping peak attribution (rss_math.h). */
static __always_inline void fl_charge(struct fl_mm *mm, struct fl_key *key, int member, __s64 delta)
{
	struct fl_counts *c = fl_counts_get(key);
	__u64 grow, release;

	if (!c)
		return;
	fl_peak_before_change(c, mm->peak_seq);
	fl_split_delta(delta, &grow, &release);
	member &= FL_MEMBERS - 1;
	if (grow)
		__sync_fetch_and_add(&c->grow[member], grow);
	else
		__sync_fetch_and_add(&c->release[member], release);
	/* racing CPUs can each see a new high: the peak is as exact as the moment allows */
	if (grow && member != FL_SWAP && fl_peak_after_change(&mm->peak, mm->last))
		__sync_fetch_and_add(&mm->peak_seq, 1);
}

/*
 * Whether the current mm is one an exec is making: the process's image mm is known and this is
 * another, or (not known: a loader's target) the task is inside execve. Its first value is 0,
 * as its counters start from nothing, and its changes until the exec ends are the kernel's
 * (the user registers still hold the old image's): they go to FL_ORIGIN_EXEC. A vfork child
 * changing its parent's mm (@tgid, the owner, is not its process) is in no exec of the owner.
 */
static __always_inline bool fl_mm_in_exec(struct task_struct *task, const struct fl_proc *p,
					  __u32 tgid, __u64 mm_ptr)
{
	if (p->image_mm)
		return mm_ptr != p->image_mm;
	if (!bpf_core_field_exists(task->in_execve) || BPF_CORE_READ(task, tgid) != tgid)
		return false;
	return BPF_CORE_READ_BITFIELD_PROBED(task, in_execve);
}

/* The state of a target's mm seen for the first time, with its baseline (rss_math.h). */
static __noinline struct fl_mm *fl_mm_create(struct fl_proc *p, __u32 tgid, __u32 mm_id)
{
	struct task_struct *task = fl_current_task();
	struct fl_mm mm = { .tgid = tgid,
			    .gen = (__u16)p->gen,
			    .mm_ptr = (__u64)BPF_CORE_READ(task, mm) };
	long err;

	if (fl_mm_in_exec(task, p, tgid, mm.mm_ptr)) {
		p->flags |= FL_PROC_FRESH;
		mm.flags = FL_MM_IN_EXEC;
	}
	p->flags = fl_mm_baseline(p, mm_id, mm.last);
	p->mm_id = mm_id;
	err = bpf_map_update_elem(&mm_state, &mm_id, &mm, BPF_NOEXIST);
	if (err && err != -FL_EEXIST)
		fl_drop(FL_DROP_MM_FULL);
	else if (!err && bpf_map_update_elem(&mm_ids, &mm.mm_ptr, &mm_id, BPF_ANY))
		fl_drop(FL_DROP_MM_FULL); /* then its state stays until its process is retired */
	return bpf_map_lookup_elem(&mm_state, &mm_id);
}

/*
 * xchg keeps the running sum of deltas exact when threads of one mm race on two CPUs. The
 * first value of a member with no baseline (a forked child's) is its baseline, and goes to
 * the process's seed[] too: userspace reconciles the kernel's figures against it. Not once
 * its image's counters were kept for its teardown: a member first seen there did not change
 * while it lived (a child's fork copy), and the teardown's first value is already less.
 */
static __always_inline __s64 fl_mm_advance(struct fl_mm *mm, int member, __s64 size)
{
	__s64 old = fl_xchg(&mm->last[member & (FL_MEMBERS - 1)], size);
	struct fl_proc *p;

	if (old == FL_SIZE_UNKNOWN && (p = bpf_map_lookup_elem(&procs, &mm->tgid)) &&
	    !(p->flags & FL_PROC_LAST_KEPT))
		p->seed[member & (FL_MEMBERS - 1)] = size;
	return fl_rss_delta(old, size);
}

/*
 * The state of the current process's mm @mm_id, created when the process is a target. Only
 * targets' mms have state, so a hit spares the target lookup. A vfork or posix_spawn child
 * before its exec changes its parent's mm: *@shared is set and the caller charges it as a
 * change to another process's memory, the parent's (the target's own entry must not be
 * replaced by the child's); state not made yet is made for the parent, its owner, never for
 * the child, whose own counters start at its exec. A hit for another process that is no
 * such child is an entry whose mm_id a new mm reuses (its teardown was not seen), which goes.
 */
static __always_inline struct fl_mm *fl_own_mm(__u32 tgid, __u32 mm_id, bool *shared)
{
	struct fl_mm *mm = bpf_map_lookup_elem(&mm_state, &mm_id);
	struct task_struct *task;
	struct fl_proc *p;
	__u32 owner;

	*shared = false;
	if (mm && mm->tgid == tgid)
		return mm;
	task = fl_current_task();
	/* vfork_done: set in a child its parent waits for (CLONE_VFORK), which shares its mm;
	 * a new mm that reuses the id of a freed one is no child's */
	/* read, not loaded (maps.bpf.h) */
	if (BPF_CORE_READ(task, vfork_done)) {
		if (mm && bpf_map_lookup_elem(&procs, &mm->tgid)) {
			*shared = true;
			return mm;
		}
		if (!mm && BPF_CORE_READ(task, mm) == BPF_CORE_READ(task, real_parent, mm)) {
			owner = BPF_CORE_READ(task, real_parent, tgid);
			p = fl_target(owner);
			*shared = true;
			return p ? fl_mm_create(p, owner, mm_id) : NULL;
		}
	}
	if (mm)
		bpf_map_delete_elem(&mm_state, &mm_id);
	p = fl_target(tgid);
	return p ? fl_mm_create(p, tgid, mm_id) : NULL;
}

/*
 * A change made by a task that does not own the mm: exit teardown (by the process, or by
 * whoever drops the last reference of an exited process's mm), reclaim, another process.
 */
static __always_inline void fl_rss_foreign(__u32 mm_id, int member, __s64 size)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct task_struct *task = fl_current_task();
	struct fl_key key = {};
	struct fl_mm *mm = bpf_map_lookup_elem(&mm_state, &mm_id);
	struct fl_proc *p;
	__s64 delta;

	if (!mm || !(p = bpf_map_lookup_elem(&procs, &mm->tgid)))
		return;
	key.tgid = mm->tgid;
	key.gen = mm->gen;
	if (pid_tgid >> 32 == mm->tgid) {
		key.origin = FL_ORIGIN_EXIT;
		key.tid = (__u32)pid_tgid;
	} else if (p->flags & FL_PROC_EXITED) {
		key.origin = FL_ORIGIN_EXIT;
	} else if (FL_TASK(task, flags) & (PF_KSWAPD | PF_MEMALLOC)) {
		key.origin = FL_ORIGIN_RECLAIM;
	} else {
		key.origin = FL_ORIGIN_REMOTE;
	}
	/* before this change lands in mm->last */
	if (key.origin == FL_ORIGIN_EXIT)
		fl_keep_last(p, mm);
	delta = fl_mm_advance(mm, member, size);
	if (!delta)
		return;
	fl_charge(mm, &key, member, delta);
}

/* A change of the current thread's own mm: charged to its user stack. */
static __always_inline void fl_rss_own(void *ctx, __u32 mm_id, int member, __s64 size)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fl_key key = { .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid };
	bool shared;
	struct fl_mm *mm = fl_own_mm(key.tgid, mm_id, &shared);
	__s64 delta;

	if (!mm)
		return;
	if (shared) {
		fl_rss_foreign(mm_id, member, size);
		return;
	}
	delta = fl_mm_advance(mm, member, size);
	if (!delta)
		return;
	key.gen = mm->gen;
	if (mm->flags & FL_MM_IN_EXEC) {
		key.origin = FL_ORIGIN_EXEC;
	} else {
		fl_user_stack(ctx, &key, false, false);
		if (map_classes && member == FL_ANON && delta == fl_pmd_bytes())
			key.map_class = FL_MAP_THP;
	}
	fl_charge(mm, &key, member, delta);
}

SEC("tracepoint/kmem/rss_stat")
int fl_rss_stat(struct trace_event_raw_rss_stat *ctx)
{
	int member = fl_member_index(ctx->member);

	if (member < 0 || fl_stopped)
		return 0;
	if (ctx->curr)
		fl_rss_own(ctx, ctx->mm_id, member, ctx->size);
	else
		fl_rss_foreign(ctx->mm_id, member, ctx->size);
	return 0;
}

/*
 * A raw tracepoint: page_fault_user fires for every user fault on the machine, and the classic
 * tracepoint would first format a record that this program reads one field of. Raw tracepoints
 * here take their arguments as a __u64 array: vmlinux.h's struct bpf_raw_tracepoint_args is
 * relocated by CO-RE like any kernel type, one more scan of the kernel's BTF at every load.
 * TP_PROTO(unsigned long address, struct pt_regs *regs, unsigned long error_code).
 */
SEC("raw_tp/page_fault_user")
int fl_page_fault(__u64 *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fl_key key = { .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid };
	struct fl_counts *c;
	struct fl_proc *p = fl_target(key.tgid);

	if (!p)
		return 0;
	key.gen = (__u16)p->gen;
	if (map_classes)
		fl_classify(&key, ctx[0]);
	fl_user_stack(ctx, &key, true, true);
	c = fl_counts_get(&key);
	if (!c)
		return 0;
	__sync_fetch_and_add(&c->faults, 1);
	if (ctx[2] & X86_PF_WRITE)
		__sync_fetch_and_add(&c->write_faults, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
