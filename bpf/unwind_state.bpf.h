/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * What the user stack walk (unwind.bpf.h) works with: the tables it reads, the rows it found
 * lately on each CPU, and its state, kept in a per-CPU scratch value the verifier does not
 * follow from step to step.
 */
#ifndef FAULTLINE_UNWIND_STATE_BPF_H
#define FAULTLINE_UNWIND_STATE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "unwind_procs.bpf.h"

/*
 * Tables by fl_unwind_map.table: an object's rows, each an array of struct fl_unwind_row
 * created by the loader at its own size (BPF_F_INNER_MAP). The loader gives the inner map's
 * template too, without BTF like the tables: kernels before 6.2 refuse an inner map whose
 * BTF differs from the template's.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 4096);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} unwind_tables SEC(".maps") __weak;

/*
 * The rows found lately on this CPU, by the address looked up: a hot stack's frames skip both
 * binary searches. An entry holds for every process whose mapping list has its generation
 * (fl_unwind_proc.gen): the loader gives each list it writes a new one, and a fork's copy of
 * its parent's list keeps it, so a new Postgres backend finds the rows its siblings found.
 */
#define FL_ROW_CACHE 1024 /* 32 KiB a CPU: the most a per-CPU value may be */

struct fl_row_cache_entry {
	__u64 addr; /* the address looked up (pc, or pc - 1 for a return address) */
	__u32 gen;
	__u32 table;		  /* the table of the mapping it lies in */
	struct fl_unwind_row row; /* row.addr: addr's ELF vaddr, not the row's (unused after) */
};
_Static_assert(sizeof(struct fl_row_cache_entry) == 32, "1024 of them in a per-CPU value");

struct fl_row_cache {
	struct fl_row_cache_entry e[FL_ROW_CACHE];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fl_row_cache);
} row_cache SEC(".maps") __weak;

/* The last user stack words a walk reads in one copy (see stack.bpf.h) */
#define FL_WINDOW 1024
#define FL_SLIDE_BACK 128 /* see fl_slide_window() */

/* The registers and progress of a walk. */
struct fl_walk {
	__u64 pc, sp, bp;
	__u64 bx;	/* with bx_state FL_BX_KNOWN */
	__u32 bx_state; /* enum fl_bx_state */
	__u64 win_base; /* where the window was read: the stack pointer, until it moves up */
	__u32 win_len;	/* its bytes */
	__u64 hash;	/* fl_stack_run(): the stack's, once the walk is done */
	__u64 sp_word;	/* fl_stack_run(): the word at the stack pointer, with have_word */
	__u64 ri;	/* the innermost pending uretprobe's return_instance (kernel address) */
	__u64 ri_stack; /* where its return address was on the user stack */
	__u32 n;	/* frames written */
	__u32 end;	/* enum fl_stack_end */
	__u32 tables;	/* frames found through a row */
	__u8 have_win;
	__u8 have_word;
	__u8 no_slide;	  /* moving the window failed: single reads from here on */
	__u8 exact;	  /* pc is where the thread is, not a return address */
	__u8 leaf_by_row; /* the first step went by a row: the leaf's caller is right */
	__u8 nocache;	  /* it read a word outside the window, or met a uprobe (fl_stack_cache) */
	__u8 fallback;	  /* it took a frame-pointer step where no row said how (FL_END_FALLBACK) */
	__u32 nslots;	  /* words it read from the window (fl_scratch.slots) */
	__u32 epoch;	  /* unwind_epoch before the tables were looked up */
	__u64 frame;	  /* the current pc as its object's frame, once fl_find_row() found it */
	__u32 learns;	  /* mappings it tried to learn (fl_tabled_map) */
};

/* What the walk knows of the current frame's rbx, which few rows need (FL_CFA_RBX). */
enum fl_bx_state {
	FL_BX_REGS = 0,	 /* the thread's own: no frame below saved it (the ABI: callee-saved) */
	FL_BX_KNOWN = 1, /* fl_walk.bx, read where a row said */
	FL_BX_LOST = 2,	 /* a frame-pointer step passed a frame that may have changed it */
};

/* Where a walk is written before it is hashed: too big for the 512-byte BPF stack. */
struct fl_scratch {
	struct fl_walk w;
	struct fl_stack st;
	struct fl_unwind_row row; /* not on the BPF stack: 6.18's verifier rejects stack slots in
				   * bpf_loop() callbacks here ("verifier bug: stack slot 1") */
	__u64 word;
	__u32 opaque[2]; /* see fl_opaque() */
	/* a walk is in progress: a program that preempts another on this CPU (a uprobe's runs
	 * preemptible) must not overwrite its state */
	__u32 busy;
	__u32 _pad;
	__u8 slots[FL_CACHE_WORDS]; /* the window's word index of each word the walk read */
	__u64 win[FL_WINDOW / 8 + 2];
};

/*
 * @v, unknown to the verifier (written to a map value and read back): the bounds of a binary
 * search, when the verifier knows them, differ on each of its paths, so it follows every path
 * apart (a state explosion past the 1M instruction limit); unknown, every iteration looks
 * alike and its states are pruned.
 */
static __always_inline __u32 fl_opaque(struct fl_scratch *s, int slot, __u32 v)
{
	volatile __u32 *at = &s->opaque[slot & 1];

	*at = v;
	return *at;
}

/* The context of the bpf_loop() callbacks of a walk: what does not change from step to step.
 * The rest is in the scratch map value, where the verifier does not follow it, so the
 * callback's states converge at once. */
struct fl_walk_state {
	struct fl_scratch *s;
	struct fl_unwind_proc *proc; /* NULL: no table for this process */
	struct fl_row_cache *cache;  /* this CPU's */
};

#endif /* FAULTLINE_UNWIND_STATE_BPF_H */
