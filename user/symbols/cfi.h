/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Unwind tables compiled from call frame information: .eh_frame's rules, interpreted the way
 * DWARF's call frame instructions define them, reduced to what the BPF walk follows (the CFA
 * from rsp or rbp, where rbp was saved, the outermost frame, signal frames; see
 * fl_unwind_row). Rows are sorted by address, and a gap between functions gets an
 * FL_CFA_INVALID row, so the row at or before a pc is the one that covers it.
 */
#ifndef FAULTLINE_CFI_H
#define FAULTLINE_CFI_H

#include <stddef.h>
#include <stdint.h>
#include "faultline.h"

struct cfi_table {
	struct fl_unwind_row *rows; /* malloc'ed */
	size_t n;
	size_t fdes; /* FDEs read */
};

/* Compiles .eh_frame @data (@len bytes at virtual address @vaddr) into @t. 0 or -ENOMEM. */
int cfi__compile(const uint8_t *data, size_t len, uint64_t vaddr, struct cfi_table *t);

/* The same from the .eh_frame and .debug_frame sections of the ELF file @path; -ENOENT when
 * it has neither. */
int cfi__compile_file(const char *path, struct cfi_table *t);
int cfi__compile_fd(int fd, struct cfi_table *t); /* @fd stays open */

/*
 * Rows that need no call frame information, for the code of @t's object that has none: at
 * each function entry of @fn (@n of them, in any order, repeats allowed) no row covers, its
 * first instruction's rule, the ABI's (the return address at the stack pointer, CFA = rsp +
 * 8); at @start, the object's entry point (0: none), the outermost frame (STOP) up to the next
 * row, when no row covers it either: the dynamic loader's _start has no unwind info. 0 or
 * -ENOMEM (@t unchanged).
 */
int cfi__add_entries(struct cfi_table *t, const uint64_t *fn, size_t n, uint64_t start);

/* The row that covers virtual address @addr, or NULL when it is before the first row. */
const struct fl_unwind_row *cfi__find(const struct cfi_table *t, uint64_t addr);

/*
 * The page index of @t, which the BPF walk finds its rows by (bpf/unwind.bpf.h fl_find_row):
 * for each page of 1 << FL_UNWIND_PAGE_SHIFT bytes (faultline.h) from the first row's address
 * on, and one past the last row's, the index of the last row at or before the page's start. A
 * row at or before an address on page p lies between entries p and p + 1, a handful of rows
 * instead of a binary search of them all. Four entries to a record the size of a row (struct
 * fl_unwind_row), put after the rows: *@out (malloc'ed) holds 4 x the records returned. 0
 * (and NULL): no index (no rows, more than CFI_PAGES_MAX pages, or out of memory); the walk
 * then searches every row.
 */
#define CFI_PAGES_MAX (1u << 22)
size_t cfi__page_index(const struct cfi_table *t, uint32_t **out);

void cfi__free(struct cfi_table *t);

#endif /* FAULTLINE_CFI_H */
