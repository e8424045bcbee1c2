/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The unwind tables' part of the BPF contract (included by faultline.h, which both sides
 * include): the rows compiled from .eh_frame, each process's list of executable mappings, the
 * objects the walk finds a mapping's table by. Fixed-width types, sizes pinned.
 */
#ifndef FAULTLINE_UNWIND_H_CONTRACT
#define FAULTLINE_UNWIND_H_CONTRACT

/*
 * Unwind tables: user/symbols/cfi.c compiles an object's .eh_frame into rows sorted by
 * address, each one valid from its address to the next row's; bpf/unwind.bpf.h walks them.
 * The return address is always at CFA - 8 (a rule with it elsewhere is FL_CFA_INVALID).
 */
enum fl_cfa_kind {
	FL_CFA_INVALID = 0,   /* no rule the walk can follow, or a gap between functions */
	FL_CFA_RSP = 1,	      /* CFA = rsp + cfa_off */
	FL_CFA_RBP = 2,	      /* CFA = rbp + cfa_off */
	FL_CFA_PLT = 3,	      /* a PLT entry: rsp + 8, and 8 more from its byte cfa_off on */
	FL_CFA_RSP_DEREF = 4, /* CFA = *(rsp + cfa_off) */
	FL_CFA_RBP_DEREF = 5, /* CFA = *(rbp + cfa_off) */
	FL_CFA_STOP = 6,      /* the return address is undefined: the outermost frame */
	FL_CFA_SIGNAL = 7,    /* a signal trampoline: the registers are in the signal frame */
	FL_CFA_RBX = 8,	      /* CFA = rbx + cfa_off (ld.so's lazy-binding resolver) */
};

/* Where a row says the caller's rbp (or rbx) is. */
enum fl_rbp_kind {
	FL_RBP_SAME = 0,   /* the caller's is the current one */
	FL_RBP_AT_CFA = 1, /* saved at CFA + rbp_off (rbx_off) */
	FL_RBP_LOST = 2,   /* rbx alone: undefined, or a rule the walk does not follow */
};

/* One executable mapping of a process and the table that covers it (0: none). */
struct fl_unwind_map {
	__u64 start;
	__u64 end;
	__u64 bias;  /* ELF virtual address = pc - bias */
	__u32 table; /* key of unwind_tables */
	__u32 rows;
};
_Static_assert(sizeof(struct fl_unwind_map) == 32, "fl_unwind_map layout");

/* Executable mappings per process with a table (16 KiB a process); past it, the loader keeps
 * those stacks most often go through (user/trace/unwind.c unwind__pick) */
#define FL_UNWIND_MAPS 512

/* Value of unwind_procs (key: tgid): its executable mappings, sorted by start. */
struct fl_unwind_proc {
	__u32 n;
	__u32 gen;	/* changes whenever the list does: rows cached for the process are stale */
	__u32 learning; /* the BPF side is adding a mapping it found (a try-lock) */
	__u32 kept;	/* ... its count of entries while it does: in the map, where the
			 * verifier does not follow it step by step */
	struct fl_unwind_map maps[FL_UNWIND_MAPS];
};

/* fl_unwind_proc.gen of the lists the BPF side changed: apart from the loader's */
#define FL_UNWIND_GEN_BPF (1u << 31)

/*
 * Value of unwind_objects (key: fl_file_id() of an object file): its loaded table, so that
 * the walk itself adds a mapping of it that a process's list lacks (an exec'd program, a
 * library mapped since: bpf/unwind_learn.bpf.h), without waiting for the loader.
 */
struct fl_unwind_object {
	__u32 table;
	__u32 rows;
	/* file offset - ELF address of its executable segment: a mapping of it at vm_start, page
	 * offset vm_pgoff, has bias vm_start - vm_pgoff * page + off_minus_vaddr */
	__s64 off_minus_vaddr;
};
_Static_assert(sizeof(struct fl_unwind_object) == 16, "fl_unwind_object layout");

struct fl_unwind_row {
	__u32 addr; /* ELF virtual address of the first instruction the row covers */
	__s32 cfa_off;
	__s16 rbp_off;
	__u8 cfa; /* enum fl_cfa_kind */
	__u8 rbp; /* enum fl_rbp_kind */
	/* rbx, callee-saved, followed for the rows whose CFA it defines */
	__s16 rbx_off;
	__u8 rbx; /* enum fl_rbp_kind */
	__u8 _pad;
};
_Static_assert(sizeof(struct fl_unwind_row) == 16, "fl_unwind_row layout");

/* After a table's rows, its page index (user/symbols/cfi.h cfi__page_index): per page of
 * this many bits, the last row at or before the page's start, four u32 entries a record. */
#define FL_UNWIND_PAGE_SHIFT 12

#endif /* FAULTLINE_UNWIND_H_CONTRACT */
