/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The one source of user stacks: the walk of unwind.bpf.h, by unwind table rows and frame
 * pointers. Aggregation and output only see (stack, origin, leaf_ret), so another unwinder can
 * replace this file alone.
 */
#ifndef FAULTLINE_STACK_BPF_H
#define FAULTLINE_STACK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "legacy.bpf.h"
#include "maps.bpf.h"
#include "regs_x86.bpf.h"
#include "threads.bpf.h"
#include "unwind.bpf.h"

#define VM_EXEC 0x00000004 /* include/linux/mm.h */

static long fl_vma_exec(struct task_struct *task, struct vm_area_struct *vma, void *exec)
{
	*(bool *)exec = vma->vm_flags & VM_EXEC;
	return 0;
}

/* @word, the word at the user stack pointer, when it points into executable code (fl_key). */
static __always_inline __u64 fl_leaf_ret(struct task_struct *task, __u64 word)
{
	bool exec = false;

	if (word < 4096 || FL_IS_LEGACY)
		return 0;
	/* fails with -EBUSY when mmap_lock is contended: then the frame is just not added */
	if (bpf_find_vma(task, word, fl_vma_exec, &exec, 0) || !exec)
		return 0;
	return word;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fl_scratch);
} stack_scratch SEC(".maps") __weak;

/*
 * Stacks this CPU stored or found lately, by the low bits of their hash: a hot stack skips the
 * stacks map lookup. Entries never leave the stacks map, so a remembered hash stays true.
 */
#define FL_SEEN_SLOTS 256

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[FL_SEEN_SLOTS]);
} stack_seen SEC(".maps") __weak;

/* FNV-1a over whole words; fl_hash_end() avalanches and never gives 0 (0: "no stack"). */
#define FL_HASH_INIT 0xcbf29ce484222325ull

static __always_inline __u64 fl_hash_end(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h ? h : 1;
}

/* Zeroes what a longer previous walk left after this one's last frame. */
static long fl_clear_step(__u32 i, struct fl_walk_state *w)
{
	__u32 at = w->s->w.n + i;

	if (at >= FL_MAX_STACK_DEPTH || !w->s->st.ips[at])
		return 1;
	w->s->st.ips[at] = 0;
	return 0;
}

/* Hashes the walk's frame @i: once the walk is done, as a frame becomes its object's only
 * when the step from it looks its row up. */
static long fl_hash_step(__u32 i, struct fl_walk_state *w)
{
	if (i >= w->s->w.n || i >= FL_MAX_STACK_DEPTH)
		return 1;
	w->s->w.hash = (w->s->w.hash ^ w->s->st.ips[i]) * 0x100000001b3ull;
	return 0;
}

/* Walks the user stack into @w->s->st, leaf first; sets @w->s->w.n and returns the stack's hash. */
static __always_inline __u64 fl_stack_walk(struct fl_walk_state *w)
{
	w->s->w.hash = FL_HASH_INIT;
	w->s->w.n = 1;
	fl_loop(FL_WALK_STEPS, fl_unwind_step, w);
	fl_loop(FL_MAX_STACK_DEPTH, fl_hash_step, w);
	fl_loop(FL_MAX_STACK_DEPTH, fl_clear_step, w);
	/* whole only when every step was one a row said: a frame-pointer step may skip frames */
	if (w->s->w.end == FL_END_WHOLE && w->s->w.fallback)
		w->s->w.end = FL_END_FALLBACK;
	w->s->st.end = w->s->w.end;
	return fl_hash_end(w->s->w.hash);
}

/*
 * Keeps in @c what the walk just done in @w->s depended on (see fl_stack_cache); nwords stays
 * 0 (fl_stack_take_into cleared it) when the walk cannot be checked. The word at sp goes too when the leaf's caller came from it
 * (leaf_ret, see fl_walk).
 */
/*
 * Copies the first @n of @s's slots, and the words they index, into @c; returns the highest
 * slot. A global function: the verifier checks it once per program, where inlined its loop
 * was checked again for each of the states a walk ends in (13,900 of fl_page_fault's 37,700
 * instructions). Its pointers may be NULL to the verifier since Linux 6.8.
 */
FL_SUBPROG int fl_cache_words(struct fl_stack_cache *c, struct fl_scratch *s, __u32 n)
{
	__u32 i, idx, max = 0;

	if (!c || !s)
		return 0;
	for (i = 0; i < FL_CACHE_WORDS && i < n; i++) {
		idx = s->slots[i] & (FL_WINDOW / 8 - 1);
		c->slots[i] = idx;
		c->words[i] = s->win[idx];
		if (idx > max)
			max = idx;
	}
	return (int)max;
}

static __always_inline void fl_cache_note(struct fl_stack_cache *c, struct fl_scratch *s)
{
	__u32 n = s->w.nslots;

	if (!s->w.leaf_by_row && n < FL_CACHE_WORDS)
		s->slots[n++ & (FL_CACHE_WORDS - 1)] = 0;
	if (s->w.nocache || !s->w.have_win || !n || n > FL_CACHE_WORDS)
		return;
	c->maxidx = (__u8)fl_cache_words(c, s, n);
	c->unwind_epoch = s->w.epoch;
	c->nwords = n;
}

/*
 * True when the cached walk of @c is this fault's: same registers, the same unwind tables, no
 * uprobe in the way, and every word the walk read unchanged (one copy of the stack up to the
 * highest of them). Registers alone are not enough: two callers can reach the same code at
 * the same depth (tests/workloads/samedepth.c), and their return addresses differ.
 */
static __always_inline bool fl_cache_check(struct task_struct *task, struct fl_stack_cache *c,
					   __u64 ip, __u64 bp, __u64 sp)
{
	__u32 zero = 0, n = c->nwords, i, len;
	struct uprobe_task *ut = BPF_CORE_READ(task, utask);
	struct fl_scratch *s;
	bool same = true;

	if (!n || !c->stack || c->ip != ip || c->sp != sp || c->bp != bp)
		return false;
	if (ut && (fl_pending_ri(ut, sp) || BPF_CORE_READ(ut, active_uprobe)))
		return false;
	if (c->unwind_epoch != *(volatile __u32 *)&unwind_epoch)
		return false;
	s = bpf_map_lookup_elem(&stack_scratch, &zero);
	if (!s || s->busy)
		return false;
	s->busy = 1;
	len = ((c->maxidx & (FL_WINDOW / 8 - 1)) + 1) * 8;
	if (bpf_probe_read_user(s->win, len, (void *)sp)) {
		s->busy = 0;
		return false;
	}
	for (i = 0; i < FL_CACHE_WORDS && i < n; i++) {
		if (s->win[c->slots[i] & (FL_WINDOW / 8 - 1)] != c->words[i]) {
			same = false;
			break;
		}
	}
	s->busy = 0;
	return same;
}

/*
 * The walk itself, from (@ip, @sp, @bp), into @s (held by the caller): s->st, and in s->w the
 * stack's hash, the word at sp (with have_word) and leaf_by_row. A global function, checked
 * once a program: inlined, the verifier went through the whole walk again for each state its
 * callers reached it in, which differ in what the walk does not read (a thread with a stack
 * cache and one without made two walks of every program that takes a stack). The task's utask
 * is loaded here once: each load of a pointer from the task has the verifier search the
 * kernel's BTF by name, linearly (some 1.5 ms on 6.18), for each state that reaches it.
 */
#ifdef FL_LEGACY
#define FL_STACK_RUN static __always_inline /* inside fl_stack_run_here() */
#else
#define FL_STACK_RUN __weak __noinline
#endif
FL_STACK_RUN int fl_stack_run(struct fl_scratch *s, __u64 ip, __u64 sp, __u64 bp, int exact)
{
	struct fl_walk_state w = { .s = s };

	if (!s)
		return 0;
	/* exact & 1: bool(exact) is a branch, and the verifier then went through the walk
	 * once for each side of it */
	fl_unwind_begin(&w, BPF_CORE_READ(fl_current_task(), utask), ip, sp, bp, exact & 1);
	/* a window past the top of the stack fails whole: then the walk reads frame by frame */
	s->w.have_win = !bpf_probe_read_user(s->win, FL_WINDOW, (void *)s->w.win_base);
	s->w.have_word = s->w.have_win; /* before the window moves */
	s->w.sp_word = s->win[0];
	s->w.hash = fl_stack_walk(&w);
	return 1;
}

#ifdef FL_LEGACY
/* fl_stack_run() on this CPU's scratch: a global function, checked once a program (a static
 * one for each state that reaches it: 28 s of a session's start under emulation for 8 steps,
 * 10 s so), which before Linux 5.12 may take scalars alone */
__weak __noinline int fl_stack_run_here(__u64 ip, __u64 sp, __u64 bp, int exact)
{
	__u32 zero = 0;
	struct fl_scratch *s = bpf_map_lookup_elem(&stack_scratch, &zero);

	return fl_stack_run(s, ip, sp, bp, exact);
}
#endif

/* What a caller of fl_stack_take_into() reads once the walk is done and the scratch released:
 * small, as it is on the stack of callers that are deep in calls already (--alloc's). */
struct fl_walk_out {
	__u64 sp_word;	  /* the word at the stack pointer */
	bool have_word;	  /* ... read */
	bool leaf_by_row; /* the first step went by a row: the leaf's caller is right */
};

/*
 * Walks the user stack from (@ip, @bp, @sp) and fills key->stack and key->origin (stored in the
 * stacks map when new), and @w's sp_word, have_word and leaf_by_row. Returns the scratch (no
 * longer held: read nothing from it) or NULL when no stack was taken.
 */
static __always_inline struct fl_scratch *fl_stack_take_into(__u64 ip, __u64 bp, __u64 sp,
							     bool exact, struct fl_key *key,
							     struct fl_walk_out *w,
							     struct fl_stack_cache *fill)
{
	__u32 zero = 0;
	struct fl_scratch *s = bpf_map_lookup_elem(&stack_scratch, &zero);
	__u64 h, (*seen)[FL_SEEN_SLOTS];

	key->stack = 0;
	key->origin = FL_ORIGIN_STACK_LOST;
	key->leaf_ret = 0;
	if (fill) /* checkable only once this walk's words are noted */
		fill->nwords = 0;
	if (!s)
		return NULL;
	if (!ip) {
		fl_drop(FL_DROP_STACK_FAILED);
		return NULL;
	}
	if (s->busy) { /* this CPU's walk was preempted: its scratch is not ours to take */
		fl_drop(FL_DROP_STACK_FAILED);
		return NULL;
	}
	s->busy = 1;
#ifdef FL_LEGACY
	fl_stack_run_here(ip, sp, bp, exact); /* on s, this CPU's scratch */
#else
	fl_stack_run(s, ip, sp, bp, exact);
#endif
	h = s->w.hash;
	w->have_word = s->w.have_word;
	w->sp_word = s->w.sp_word;
	w->leaf_by_row = s->w.leaf_by_row;
	seen = bpf_map_lookup_elem(&stack_seen, &zero);
	if (!seen || (*seen)[h & (FL_SEEN_SLOTS - 1)] != h) {
		long err = 0;

		if (!bpf_map_lookup_elem(&stacks, &h))
			err = bpf_map_update_elem(&stacks, &h, &s->st, BPF_NOEXIST);
		if (err && err != -FL_EEXIST) {
			s->busy = 0;
			fl_drop(FL_DROP_STACKS_FULL);
			return NULL;
		}
		if (seen)
			(*seen)[h & (FL_SEEN_SLOTS - 1)] = h;
	}
	if (fill)
		fl_cache_note(fill, s);
	s->busy = 0;
	key->stack = h;
	key->origin = FL_ORIGIN_USER;
	return s;
}

static __always_inline __attribute__((unused)) struct fl_scratch *
fl_stack_take(__u64 ip, __u64 bp, __u64 sp, bool exact, struct fl_key *key, struct fl_walk_out *w)
{
	return fl_stack_take_into(ip, bp, sp, exact, key, w, NULL);
}

/*
 * Fills the stack fields of @key with the current user stack (see fl_key), stored in the
 * stacks map when new.
 */
static __always_inline void fl_walk(struct task_struct *task, __u64 ip, __u64 bp, __u64 sp,
				    bool exact, struct fl_key *key, struct fl_stack_cache *c,
				    bool fill)
{
	struct fl_walk_out w = {};
	struct fl_scratch *s = fl_stack_take_into(ip, bp, sp, exact, key, &w, fill ? c : NULL);
	__u64 word;

	if (!s || w.leaf_by_row) /* a row found the leaf's caller: nothing to repair */
		return;
	if (w.have_word)
		word = w.sp_word;
	else if (bpf_probe_read_user(&word, sizeof(word), (void *)sp))
		return;
	if (c && c->sp_word == word) {
		key->leaf_ret = c->sp_word_exec ? word : 0;
		return;
	}
	key->leaf_ret = fl_leaf_ret(task, word);
	if (c) {
		c->sp_word = word;
		c->sp_word_exec = key->leaf_ret != 0;
	}
}

#define FL_STACK_REFILL 1
#define FL_STACK_EXACT 2

/* fl_user_stack() when the cache does not hold the walk: a subprogram, so that each caller
 * inlines the cache hit alone. @c: the thread's cache, NULL when it has none. */
static __noinline __attribute__((unused)) void fl_user_stack_walk(struct fl_key *key,
								  struct fl_stack_cache *c, int how)
{
	struct task_struct *task = fl_current_task();
	struct fl_uregs r;
	bool exact = how & FL_STACK_EXACT;

	fl_user_regs(task, &r);
	if (!c) {
		fl_drop(FL_DROP_TASK_STORAGE);
		fl_walk(task, r.ip, r.bp, r.sp, exact, key, NULL, false);
		return;
	}
	if (!(how & FL_STACK_REFILL)) {
		fl_walk(task, r.ip, r.bp, r.sp, exact, key, c, false);
		return;
	}
	fl_walk(task, r.ip, r.bp, r.sp, exact, key, c, exact);
	c->stack = key->stack;
	c->leaf_ret = key->leaf_ret;
	c->map_class = key->map_class;
	c->map_file = key->map_file;
	c->call = key->call;
	c->ip = r.ip;
	c->sp = r.sp;
	c->bp = r.bp;
}

/*
 * Fills stack, origin and leaf_ret of @key with the current thread's user stack (stack 0 and
 * origin FL_ORIGIN_STACK_LOST when it cannot be taken). @refill: called for a new page fault
 * or a traced syscall entry, which always walks and fills the cache (with @key's mapping
 * class and call too); other callers use the cache, mapping class and call included, when it
 * holds the current fault or call: an RSS change inside a traced syscall is the call's.
 * @exact: the user registers are where the thread is (a page fault), not just past a syscall
 * instruction. Inlined: a BPF-to-BPF call and its return cost some 10 ns on a kernel with
 * return thunks, and the hit is the common case (once per fault in each fault program).
 */
static __always_inline __attribute__((unused)) void fl_user_stack(void *ctx, struct fl_key *key,
								  bool refill, bool exact)
{
	struct task_struct *task = fl_current_task();
	struct fl_uregs r;
	struct fl_stack_cache *c;

	fl_user_regs(task, &r);
	c = fl_thread_get(&stack_cache, task, true);
	if (c && !refill && c->ip == r.ip && c->sp == r.sp && c->bp == r.bp) {
		key->stack = c->stack;
		key->origin = c->stack ? FL_ORIGIN_USER : FL_ORIGIN_STACK_LOST;
		key->leaf_ret = c->leaf_ret;
		key->map_class = c->map_class;
		key->map_file = c->map_file;
		key->call = c->call;
		return;
	}
	if (c && refill && exact && fl_cache_check(task, c, r.ip, r.bp, r.sp)) {
		/* the same walk as the last fault's: its map class and call are this one's */
		key->stack = c->stack;
		key->origin = FL_ORIGIN_USER;
		key->leaf_ret = c->leaf_ret;
		c->map_class = key->map_class;
		c->map_file = key->map_file;
		c->call = key->call;
		return;
	}
	fl_user_stack_walk(key, c, (refill ? FL_STACK_REFILL : 0) | (exact ? FL_STACK_EXACT : 0));
}

/* The current thread's cached walk will not match its next event (see stack_cache). */
static __always_inline __attribute__((unused)) void fl_stack_cache_forget(void)
{
	struct fl_stack_cache *c;

	c = fl_thread_get(&stack_cache, fl_current_task(), false);
	if (c)
		c->ip = 0;
}

#endif /* FAULTLINE_STACK_BPF_H */
