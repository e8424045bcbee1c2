/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The maps every program family of the main object shares, and the helpers that update them. Maps are __weak so
 * that each .bpf.c can include this header and `bpftool gen object` links them into one.
 * Sizes here are defaults: the loader sets them before load.
 *
 * Two rules keep the load (start-up) short. A pointer field of a kernel struct the verifier
 * trusts (the current task, a vma given to a callback) is read with BPF_CORE_READ, not loaded:
 * each load has the verifier search the kernel's BTF by name, linearly, four times, every time
 * it walks that instruction (27 ms of 67 in the verifier with -f --alloc, Linux 6.18). And each
 * kernel type that CO-RE relocates, a flavor (type___x) included, costs libbpf one scan of the
 * kernel's BTF (1.5 ms): use a type the programs relocate already where one will do.
 */
#ifndef FAULTLINE_MAPS_BPF_H
#define FAULTLINE_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "legacy.bpf.h"
#include "targets.bpf.h"

/* Last RSS counter values per mm, keyed by the tracepoint's mm_id: one per target, and the old
 * mm of a target that exec'd until it is torn down. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2 * FL_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct fl_mm);
} mm_state SEC(".maps") __weak;

/*
 * The mm_state key of each mm there, by the mm's kernel address: exit_mmap gives the address,
 * rss_stat only a hash of it. So the state of an mm leaves when the mm is torn down, before
 * its memory (and its hash) can be another process's.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2 * FL_MAX_PROCS);
	__type(key, __u64);
	__type(value, __u32);
} mm_ids SEC(".maps") __weak;

/*
 * The aggregation: (process, thread, stack, origin) -> counters. Allocated as rows appear: the
 * 14 MiB of a preallocated map took 6-8 ms of start-up to clear, before the probes were live.
 * An insert that finds no memory charges the process's overflow row (fl_counts_new), as a
 * full map does.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, FL_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct fl_key);
	__type(value, struct fl_counts);
} counts SEC(".maps") __weak;

/* User stacks by the hash of their frames; allocated as stacks appear (1 KiB each). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, FL_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct fl_stack);
} stacks SEC(".maps") __weak;

/* Thread names, captured when a thread is first charged and when it is renamed. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct fl_thread);
} threads SEC(".maps") __weak;

/*
 * Wake-ups for the loader: the tgid of a target that exec'd, so that the new image's unwind
 * tables go in within milliseconds rather than at the loader's next poll, 100 ms away: a
 * short-lived program (a compiler, a script's commands) would otherwise run its whole life by
 * frame pointers. A fork needs none: the child unwinds by its parent's tables (fl_fork), and
 * naming it (and putting allocator probes into it, which stalls every fork on the machine
 * while the kernel registers them) costs more than a child of a few milliseconds is worth.
 * Only a hint: when the ring is full, the poll finds the same processes, later. The walk wakes
 * it too for an object it found mapped without a table (unwind_learn.bpf.h).
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16384);
} proc_events SEC(".maps") __weak;

static __always_inline __attribute__((unused)) void fl_wake_loader(__u32 tgid)
{
	bpf_ringbuf_output(&proc_events, &tgid, sizeof(tgid), 0);
}

/* bpf_map_update_elem(BPF_NOEXIST) lost a race to another CPU: the entry is there. */
#define FL_EEXIST 17

/* The target entry of @tgid, or NULL when it is not traced (yet, or since it exited: its pid
 * may be another process's soon). */
static __always_inline struct fl_proc *fl_target(__u32 tgid)
{
	struct fl_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	return p && !(p->flags & (FL_PROC_AWAIT_EXEC | FL_PROC_EXITED)) ? p : NULL;
}

/*
 * The counters of the process's image before its teardown (its exit; an exec's of the image it
 * leaves, which fl_exec forgets): its RSS at exit. Kept at the exit of its last thread, or at
 * the first change of the teardown, whichever comes first (the order of the two varies). A
 * target the loader gave has no image mm known until its first exec: any mm of it is its
 * image then, but the one an exec is making.
 */
static __always_inline __attribute__((unused)) void fl_keep_last(struct fl_proc *p,
								 const struct fl_mm *mm)
{
	if (p->flags & FL_PROC_LAST_KEPT)
		return;
	if (p->image_mm ? mm->mm_ptr != p->image_mm : mm->flags & FL_MM_IN_EXEC)
		return;
	__builtin_memcpy(p->gone_last, mm->last, sizeof(p->gone_last));
	fl_or(&p->flags, FL_PROC_LAST_KEPT);
}

static __noinline __attribute__((unused)) void fl_note_thread(__u32 tgid, __u32 tid)
{
	struct fl_thread t = { .tgid = tgid };

	bpf_get_current_comm(t.comm, sizeof(t.comm));
	if (bpf_map_update_elem(&threads, &tid, &t, BPF_ANY))
		fl_drop(FL_DROP_THREADS_FULL);
}

/* fl_counts_get() when @key has no row yet. */
static __noinline __attribute__((unused)) struct fl_counts *fl_counts_new(struct fl_key *key)
{
	static const struct fl_counts zero;
	struct fl_key overflow = { .tgid = key->tgid, .origin = FL_ORIGIN_OVERFLOW };
	long err;

	err = bpf_map_update_elem(&counts, key, &zero, BPF_NOEXIST);
	if (!err) {
		if (key->tid)
			fl_note_thread(key->tgid, key->tid);
	} else if (err != -FL_EEXIST) {
		fl_drop(FL_DROP_COUNTS_FULL);
		return bpf_map_lookup_elem(&counts, &overflow);
	}
	return bpf_map_lookup_elem(&counts, key);
}

/*
 * The counters of @key, created when missing. When the map is full the process's overflow
 * row (created by the loader at attach, or at fork; one per pid, generation 0) takes the
 * charge, so no byte is lost. The lookup is inlined: the row is there for nearly every event.
 */
static __always_inline __attribute__((unused)) struct fl_counts *fl_counts_get(struct fl_key *key)
{
	struct fl_counts *c = bpf_map_lookup_elem(&counts, key);

	return c ? c : fl_counts_new(key);
}

#endif /* FAULTLINE_MAPS_BPF_H */
