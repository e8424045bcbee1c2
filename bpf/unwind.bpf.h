/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * One step of the user stack walk: from a frame's (pc, sp, bp) to its caller's, by the unwind
 * table row that covers pc (compiled from .eh_frame by user/symbols/cfi.c), or by the frame
 * pointer where no row does. The tables are per object and shared by every process that maps
 * it; each process has its sorted list of executable mappings, loaded by user/trace/unwind.c.
 */
#ifndef FAULTLINE_UNWIND_BPF_H
#define FAULTLINE_UNWIND_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "calltarget_x86.bpf.h"
#include "faultline.h"
#include "legacy.bpf.h"
#include "regs_x86.bpf.h"
#include "unwind_learn.bpf.h"
#include "unwind_procs.bpf.h"
#include "unwind_state.bpf.h"
#include "uprobe_frames.bpf.h"

/*
 * Moves the window up to the return address at @slot when it lies past the window's end: a
 * deep stack (a Postgres backend's frames span kilobytes) would otherwise cost a read per word
 * past the first window, each about as dear as a whole window. The window starts
 * FL_SLIDE_BACK bytes below the slot, where the frame's saved registers are. Only a step by a
 * row moves it, before it reads the return address, not every read: the verifier follows
 * each place that can. The main thread's stack ends a little above mm->start_stack, and a
 * read past the end of a stack fails whole: the window stops at the end of that page. Words
 * read from a moved window make the walk uncheckable (fl_stack_cache), as single reads do.
 */
static __always_inline void fl_slide_window(struct fl_walk_state *w, __u64 slot)
{
	__u64 at = slot - FL_SLIDE_BACK, top, len = FL_WINDOW;

	if (w->s->w.no_slide || slot & 7 || slot + 8 <= w->s->w.win_base + w->s->w.win_len ||
	    at <= w->s->w.win_base)
		return;
	/* read, not loaded (maps.bpf.h) */
	top = (BPF_CORE_READ(fl_current_task(), mm, start_stack) | 4095) + 1;
	if (at < top && top - at < len)
		len = top - at;
	if (bpf_probe_read_user(w->s->win, len, (void *)at)) {
		w->s->w.have_win = 0;
		w->s->w.no_slide = 1;
		return;
	}
	w->s->w.win_base = at;
	w->s->w.win_len = len;
	w->s->w.have_win = 1;
	w->s->w.nocache = 1;
}

/* A user word at @addr, from the window when it holds it; false when it cannot be read. */
static __always_inline bool fl_read_word(struct fl_walk_state *w, __u64 addr)
{
	__u64 off = addr - w->s->w.win_base;

	if (w->s->w.have_win && addr >= w->s->w.win_base && off + 8 <= w->s->w.win_len &&
	    !(off & 7)) {
		__u32 n = w->s->w.nslots;

		w->s->word = w->s->win[(off / 8) & (FL_WINDOW / 8 - 1)];
		if (n < FL_CACHE_WORDS)
			w->s->slots[n & (FL_CACHE_WORDS - 1)] = off / 8;
		w->s->w.nslots = n + 1;
		return true;
	}
	w->s->w.nocache = 1;
	return !bpf_probe_read_user(&w->s->word, sizeof(w->s->word), (void *)addr);
}

/* Mappings a walk learns at most (see fl_tabled_map): a fault's first one alone succeeds
 * (bpf_find_vma() with interrupts off waits for its irq_work to give mmap_lock back, and the
 * next lookup fails until the fault is handled); other walks learn as many as they meet. */
#define FL_LEARNS_A_WALK 3

/*
 * A binary search that bpf_loop() halves, one round a call: on the stack of the global function
 * that runs it, its bounds in the scratch (fl_opaque), where the verifier does not follow them,
 * so that the rounds look alike and it checks the round once. Unrolled, it went through each
 * of the 10 or 24 rounds (2,400 instructions in each program that takes a stack); a call a
 * round costs a few nanoseconds, on a walk's row cache misses alone.
 */
struct fl_halving {
	struct fl_scratch *s;
	struct fl_unwind_proc *p; /* fl_map_halve() */
	void *rows;		  /* fl_row_halve(): the table */
	__u64 addr;
};

static __always_inline __u32 fl_bound(struct fl_scratch *s, int slot)
{
	return *(volatile __u32 *)&s->opaque[slot & 1];
}

/* A round of fl_map_index(): [lo, hi) halved around the mapping that starts at mid. */
static long fl_map_halve(__u32 k, struct fl_halving *h)
{
	struct fl_scratch *s = h->s;
	__u32 lo = fl_bound(s, 0), hi = fl_bound(s, 1), mid;

	if (lo >= hi)
		return 1;
	mid = (lo + hi) / 2;
	if (h->p->maps[mid & (FL_UNWIND_MAPS - 1)].start <= h->addr)
		fl_opaque(s, 0, mid + 1);
	else
		fl_opaque(s, 1, mid);
	return 0;
}

/*
 * The index + 1 of the last mapping of @p's list that starts at or before @addr; 0: none. A
 * global function, as fl_row_find(): the verifier checks it once a program, where inlined it
 * was checked again for each state a step reached it in. Its pointers may be NULL to the
 * verifier since Linux 6.8.
 */
FL_SUBPROG int fl_map_index(struct fl_unwind_proc *p, struct fl_scratch *s, __u64 addr)
{
	struct fl_halving h = { .s = s, .p = p, .addr = addr };

	if (!p || !s)
		return 0;
	fl_opaque(s, 0, 0);
	fl_opaque(s, 1, p->n < FL_UNWIND_MAPS ? p->n : FL_UNWIND_MAPS);
	_Static_assert(FL_UNWIND_MAPS <= 1 << 10, "10 halvings find any of them");
	fl_loop(10, fl_map_halve, &h);
	return (int)fl_bound(s, 0);
}

/* The mapping of @p's list that holds @addr, or NULL. */
static __always_inline struct fl_unwind_map *fl_map_of(struct fl_walk_state *w,
						       struct fl_unwind_proc *p, __u64 addr)
{
	struct fl_unwind_map *m;
	__u32 lo;

	if (!p)
		return NULL;
	lo = (__u32)fl_map_index(p, w->s, addr);
	m = lo ? &p->maps[(lo - 1) & (FL_UNWIND_MAPS - 1)] : NULL;
	return m && addr < m->end ? m : NULL;
}

/*
 * The mapping of the process's list with unwind rows that holds @addr, or NULL. With @learn,
 * an @addr no mapping of the list holds, met while every step was by a row, has its mapping
 * learned there and then (unwind_learn.bpf.h): the walk goes on by its rows, from a program's
 * first faults (in ld.so, then in libc and in the program itself) on, each new mapping on
 * the walk that meets it. A pc a frame-pointer step read may be none: it is not learned.
 */
static __always_inline struct fl_unwind_map *fl_tabled_map(struct fl_walk_state *w, __u64 addr,
							   bool learn)
{
	struct fl_unwind_map *m = fl_map_of(w, w->proc, addr);
	__u32 at;

	if (!m && learn && !w->s->w.fallback && w->s->w.learns < FL_LEARNS_A_WALK) {
		w->s->w.learns++;
		at = fl_learn(addr);
		if (at && w->proc) {
			m = &w->proc->maps[(at - 1) & (FL_UNWIND_MAPS - 1)];
			if (addr < m->start || addr >= m->end) /* another CPU changed the list */
				m = NULL;
		}
	}
	return m && m->rows ? m : NULL;
}

/*
 * The rows, [*@lo, *@hi), among which the last one at or before @addr lies: between the
 * entries of @addr's page and the next in the table's page index (user/symbols/cfi.h
 * cfi__page_index, four entries to a record after its @n rows), a handful of rows; all of
 * them where the table has no index or @addr is before its first row.
 */
static __always_inline void fl_page_bounds(void *rows, __u32 n, __u32 addr, __u32 *lo, __u32 *hi)
{
	__u32 at = 0, p, *e;
	struct fl_unwind_row *first = bpf_map_lookup_elem(rows, &at);

	*lo = 0;
	*hi = n;
	if (!first || addr < first->addr)
		return;
	p = (addr - first->addr) >> FL_UNWIND_PAGE_SHIFT;
	at = n + p / 4;
	e = bpf_map_lookup_elem(rows, &at);
	if (!e || e[p & 3] >= n)
		return;
	*lo = e[p & 3];
	p++;
	at = n + p / 4;
	e = bpf_map_lookup_elem(rows, &at);
	if (e && e[p & 3] < n && e[p & 3] >= *lo)
		*hi = e[p & 3] + 1;
}

/* A round of fl_row_find(): [lo, hi) halved around row mid; a row missing ends it, found none. */
static long fl_row_halve(__u32 k, struct fl_halving *h)
{
	struct fl_scratch *s = h->s;
	__u32 lo = fl_bound(s, 0), hi = fl_bound(s, 1), mid;
	struct fl_unwind_row *r;

	if (lo >= hi)
		return 1;
	mid = (lo + hi) / 2;
	r = bpf_map_lookup_elem(h->rows, &mid);
	if (!r) {
		fl_opaque(s, 0, 0);
		return 1;
	}
	if (r->addr <= (__u32)h->addr)
		fl_opaque(s, 0, mid + 1);
	else
		fl_opaque(s, 1, mid);
	return 0;
}

/*
 * The row of table @table (@n rows) that covers @addr, an ELF vaddr, into s->row; 1: found. A
 * global function, for the reasons of fl_map_index(): the search is checked once a program.
 */
FL_SUBPROG int fl_row_find(struct fl_scratch *s, __u32 table, __u32 n, __u32 addr)
{
	struct fl_halving h = { .s = s, .addr = addr };
	__u32 lo = 0, hi, idx;
	struct fl_unwind_row *r;
	void *rows;

	if (!s)
		return 0;
	rows = bpf_map_lookup_elem(&unwind_tables, &table);
	if (!rows)
		return 0;
	h.rows = rows;
	fl_page_bounds(rows, n, addr, &lo, &hi);
	fl_opaque(s, 0, lo);
	fl_opaque(s, 1, hi);
	fl_loop(24, fl_row_halve, &h); /* the last row at or before addr */
	lo = fl_bound(s, 0);
	if (!lo)
		return 0;
	idx = lo - 1;
	r = bpf_map_lookup_elem(rows, &idx);
	if (!r)
		return 0;
	s->row = *r;
	return 1;
}

/* The row covering the current pc into w->s->row; false when no table covers it. */
static __always_inline bool fl_find_row(struct fl_walk_state *w)
{
	struct fl_unwind_proc *p = w->proc;
	/* a return address is just past its call: the call itself is the caller's state */
	__u64 key = w->s->w.pc - (w->s->w.exact ? 0 : 1), addr;
	struct fl_row_cache_entry *e = NULL;
	struct fl_unwind_map *m;
	__u32 idx;

	if (p && w->cache) {
		idx = ((__u32)(key ^ (key >> 20)) ^ p->gen) * 2654435761u;
		e = &w->cache->e[(idx >> 22) & (FL_ROW_CACHE - 1)];
		if (e->addr == key && e->gen == p->gen) {
			w->s->row = e->row;
			w->s->w.frame = FL_FRAME_OBJ | (__u64)e->table << 32 |
					(__u32)(e->row.addr + (w->s->w.pc - key));
			return true;
		}
	}
	m = fl_tabled_map(w, w->s->w.pc, true);
	if (!m)
		return false;
	addr = key - m->bias;
	if (addr > 0xffffffffull || !fl_row_find(w->s, m->table, m->rows, (__u32)addr))
		return false;
	w->s->w.frame = w->s->w.pc + fl_frame_delta(m->table, m->bias);
	if (e) {
		e->addr = key;
		e->gen = p->gen;
		e->table = m->table;
		e->row = w->s->row;
		e->row.addr = (__u32)addr;
	}
	return true;
}

/* The saved registers of a signal frame: rt_sigframe's ucontext at the stack pointer once the
 * handler returned (pretcode popped), its uc_mcontext 40 bytes in (arch/x86 sigcontext). */
#define FL_SIG_RBP 120
#define FL_SIG_RBX 128
#define FL_SIG_RSP 160
#define FL_SIG_RIP 168

/* Appends @ret as the next frame; 1: the walk ends. */
static __always_inline long fl_push_frame(__u32 i, struct fl_walk_state *w, __u64 ret)
{
	if (!ret) { /* some entry code (musl's, hand-written) ends its chain with a zero */
		w->s->w.end = FL_END_FP;
		return 1;
	}
	if (i >= FL_MAX_STACK_DEPTH - 1) {
		w->s->w.end = FL_END_DEPTH;
		return 1;
	}
	/* the mask keeps the verifier sure of the bound when the compiler spills i as 32 bits */
	w->s->st.ips[(i + 1) & 127] = ret;
	w->s->w.n = i + 2;
	w->s->w.pc = ret;
	return 0;
}

/* The return address saved at @slot, the real one when a uretprobe replaced it. */
static __always_inline bool fl_read_ret(struct fl_walk_state *w, __u64 slot, __u64 *ret)
{
	if (!fl_read_word(w, slot))
		return false;
	*ret = w->s->word;
	if (w->s->w.ri && slot == w->s->w.ri_stack) {
		struct return_instance *ri = (void *)w->s->w.ri;

		struct return_instance *next;

		*ret = BPF_CORE_READ(ri, orig_ret_vaddr);
		next = BPF_CORE_READ(ri, next);
		w->s->w.ri = (__u64)next;
		w->s->w.ri_stack = next ? BPF_CORE_READ(next, stack) : 0;
	}
	return true;
}

/* A step by the frame pointer: the rules of the kernel's perf walker. */
static __always_inline long fl_fp_step(__u32 i, struct fl_walk_state *w, __u32 why)
{
	__u64 bp = w->s->w.bp, ret;

	if (bp < w->s->w.sp || bp & 7 || !fl_read_word(w, bp)) {
		w->s->w.end = why;
		return 1;
	}
	w->s->w.bp = w->s->word;
	if (!fl_read_ret(w, bp + 8, &ret)) {
		w->s->w.end = why;
		return 1;
	}
	w->s->w.sp = bp + 16;
	w->s->w.exact = false;
	w->s->w.bx_state = FL_BX_LOST;
	w->s->w.fallback = 1;
	return fl_push_frame(i, w, ret);
}

/*
 * A frame no row covers: a step by the frame pointer; and where that fails at a fault's own
 * frame, a step as from a function just entered (the return address at the stack pointer),
 * when that address is in code with tables and the call before it went to the fault's pc: a
 * library dlopen() maps is initialised (ld.so's call *%rax of its DT_INIT) before its table
 * comes, and its first instruction faults as its page is touched. A call whose target its
 * bytes do not say lets the step be taken as a fallback; one that went elsewhere does not.
 */
static __always_inline long fl_gap_step(__u32 i, struct fl_walk_state *w, __u32 why)
{
	__u64 bp = w->s->w.bp, ret;
	__u32 n = w->s->w.n;
	long r = fl_fp_step(i, w, why);
	enum fl_call call;

	if (!r || i || !w->s->w.exact || w->s->w.n != n)
		return r;
	if (!fl_read_ret(w, w->s->w.sp, &ret) || !fl_tabled_map(w, ret, false))
		return 1;
	call = (enum fl_call)fl_call_to(ret, w->s->w.pc);
	if (call == FL_CALL_NONE || call == FL_CALL_ELSEWHERE)
		return 1;
	if (call == FL_CALL_UNKNOWN)
		w->s->w.fallback = 1;
	/* a function just entered has not touched rbp: the failed step may have */
	w->s->w.bp = bp;
	w->s->w.sp += 8;
	w->s->w.exact = false;
	w->s->w.end = FL_END_DEPTH; /* the failed step's end is not the walk's */
	w->s->w.leaf_by_row = true; /* the leaf's caller is frame 1: no leaf_ret to add */
	w->s->w.nocache = 1;	    /* it read a register: its words alone do not make it */
	return fl_push_frame(i, w, ret);
}

/*
 * The current frame's rbx into w->s->w.bx; false when a frame-pointer step lost it. The
 * thread's own register makes the walk uncheckable by its stack words alone (fl_stack_cache):
 * such walks, through ld.so's resolver, are rare.
 */
static __always_inline bool fl_frame_bx(struct fl_walk_state *w)
{
	if (w->s->w.bx_state == FL_BX_LOST)
		return false;
	if (w->s->w.bx_state == FL_BX_REGS) {
		w->s->w.bx = BPF_CORE_READ(fl_task_regs(fl_current_task()), bx);
		w->s->w.bx_state = FL_BX_KNOWN;
		w->s->w.nocache = 1;
	}
	return true;
}

/* One frame up; bpf_loop() keeps verification to one pass over the body. */
static long fl_unwind_step(__u32 i, struct fl_walk_state *w)
{
	struct fl_unwind_row *row = &w->s->row;
	__u64 cfa, ret, base;
	__u32 why;

	if (i >= FL_MAX_STACK_DEPTH - 1) {
		w->s->w.end = FL_END_DEPTH;
		return 1;
	}
	/* where no row covers the pc (code without unwind info, a gap between functions, a
	 * rule the walk cannot follow): one frame-pointer step, the kernel's perf rules */
	if (!fl_find_row(w)) {
		why = w->s->w.tables ? FL_END_NO_TABLE : FL_END_FP;
		goto fp;
	}
	/* the frame as its object's, the same in every process that runs this code */
	w->s->st.ips[i & 127] = w->s->w.frame;
	switch (row->cfa) {
	case FL_CFA_RSP:
		cfa = w->s->w.sp + (__s64)row->cfa_off;
		break;
	case FL_CFA_RBP:
		cfa = w->s->w.bp + (__s64)row->cfa_off;
		break;
	case FL_CFA_RBX:
		if (!fl_frame_bx(w))
			return fl_fp_step(i, w, FL_END_INVALID);
		cfa = w->s->w.bx + (__s64)row->cfa_off;
		break;
	case FL_CFA_PLT:
		cfa = w->s->w.sp + 8 + ((w->s->w.pc & 15) >= (__u64)row->cfa_off ? 8 : 0);
		break;
	case FL_CFA_RSP_DEREF:
	case FL_CFA_RBP_DEREF:
		base = row->cfa == FL_CFA_RSP_DEREF ? w->s->w.sp : w->s->w.bp;
		if (!fl_read_word(w, base + (__s64)row->cfa_off)) {
			w->s->w.end = FL_END_READ;
			return 1;
		}
		cfa = w->s->word;
		break;
	case FL_CFA_STOP:
		w->s->w.end = FL_END_WHOLE;
		return 1;
	case FL_CFA_SIGNAL:
		base = w->s->w.sp;
		if (!fl_read_word(w, base + FL_SIG_RBP)) {
			w->s->w.end = FL_END_READ;
			return 1;
		}
		w->s->w.bp = w->s->word;
		if (!fl_read_word(w, base + FL_SIG_RBX)) {
			w->s->w.end = FL_END_READ;
			return 1;
		}
		w->s->w.bx = w->s->word;
		w->s->w.bx_state = FL_BX_KNOWN;
		if (!fl_read_word(w, base + FL_SIG_RSP)) {
			w->s->w.end = FL_END_READ;
			return 1;
		}
		w->s->w.sp = w->s->word;
		if (!fl_read_word(w, base + FL_SIG_RIP)) {
			w->s->w.end = FL_END_READ;
			return 1;
		}
		w->s->w.tables++;
		w->s->w.exact = true; /* the interrupted instruction, not a return address */
		return fl_push_frame(i, w, w->s->word);
	default:
		why = FL_END_INVALID;
		goto fp;
	}
	if (cfa <= w->s->w.sp) {
		w->s->w.end = FL_END_INVALID;
		return 1;
	}
	fl_slide_window(w, cfa - 8);
	if (!fl_read_ret(w, cfa - 8, &ret)) {
		w->s->w.end = FL_END_READ;
		return 1;
	}
	if (row->rbp == FL_RBP_AT_CFA) {
		if (!fl_read_word(w, cfa + (__s64)row->rbp_off)) {
			w->s->w.end = FL_END_READ;
			return 1;
		}
		w->s->w.bp = w->s->word;
	}
	if (row->rbx == FL_RBP_AT_CFA) {
		if (!fl_read_word(w, cfa + (__s64)row->rbx_off)) {
			w->s->w.end = FL_END_READ;
			return 1;
		}
		w->s->w.bx = w->s->word;
		w->s->w.bx_state = FL_BX_KNOWN;
	} else if (row->rbx == FL_RBP_LOST) {
		w->s->w.bx_state = FL_BX_LOST;
	}
	w->s->w.sp = cfa;
	w->s->w.exact = false;
	w->s->w.tables++;
	if (!i)
		w->s->w.leaf_by_row = true;
	return fl_push_frame(i, w, ret);
fp: /* one place: the verifier follows it once */
	return fl_gap_step(i, w, why);
}

/* Sets up @w for a walk of the current task from (@ip, @sp, @bp); ips[0] is the pc it starts
 * from. @ut: the task's utask (NULL: never probed). */
static __always_inline void fl_unwind_begin(struct fl_walk_state *w, struct uprobe_task *ut,
					    __u64 ip, __u64 sp, __u64 bp, bool exact)
{
	struct task_struct *task = fl_current_task();
	__u32 tgid = FL_TASK(task, tgid), zero = 0; /* a load, not another helper call */
	struct return_instance *ri = NULL;

	w->s->w.nocache = 0;
	w->s->w.bx_state = FL_BX_REGS;
	if (ut) {
		ri = BPF_CORE_READ(ut, return_instances);
		if (BPF_CORE_READ(ut, active_uprobe)) {
			w->s->w.nocache = 1;
			ip = fl_xol_fixup(ut, ip);
		} else if (ri && fl_in_trampoline(task, ip)) {
			/* returning through a uretprobe: the thread is back in the caller, whose
			 * state is right after the return (the trampoline's own pushes aside) */
			ip = BPF_CORE_READ(ri, orig_ret_vaddr);
			sp = BPF_CORE_READ(ri, stack) + 8;
			exact = false;
			ri = BPF_CORE_READ(ri, next);
			w->s->w.nocache = 1;
		} else {
			ri = fl_pending_ri(ut, sp);
		}
		if (ri)
			w->s->w.nocache = 1;
	}
	w->s->st.ips[0] = ip;
	w->s->w.pc = ip;
	w->s->w.sp = sp;
	w->s->w.bp = bp;
	w->s->w.exact = exact;
	w->s->w.win_base = sp;
	w->s->w.win_len = FL_WINDOW;
	w->s->w.no_slide = 0;
	w->s->w.end = FL_END_DEPTH; /* every other end says why */
	w->s->w.tables = 0;
	w->s->w.fallback = 0;
	w->s->w.leaf_by_row = false;
	w->s->w.nslots = 0;
	w->s->w.learns = 0;
	/* read before the lookup: a change in between leaves the walk's cache entry stale */
	w->s->w.epoch = *(volatile __u32 *)&unwind_epoch;
	barrier();
	/* a process without one (an exec'd program's first walk) learns its mappings into one */
	w->proc = fl_unwind_list(tgid);
	w->cache = w->proc ? bpf_map_lookup_elem(&row_cache, &zero) : NULL;
	w->s->w.ri = (__u64)ri;
	w->s->w.ri_stack = ri ? BPF_CORE_READ(ri, stack) : 0;
}

#endif /* FAULTLINE_UNWIND_BPF_H */
