/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Unwind rows read from a function's own instructions, for the functions the ELF file names
 * that no call frame information covers (cfi__add_entries gives them their first instruction
 * alone): crtstuff's __do_global_dtors_aux, which distributions build without unwind tables
 * and ld.so calls at every exit, keeps a frame pointer around its call of __cxa_finalize, so a
 * walk through it took a frame-pointer step, which may skip a frame unseen. Its instructions
 * say where its return address is at each of them: a function made only of instructions
 * whose effect on the stack pointer and on rbp is known (a short list of x86-64 forms: push and
 * pop of rbp, mov %rsp,%rbp, leave, sub and add of a constant to rsp, calls, compares,
 * branches within it, ret) has a row for each, decoded along every path from its entry.
 */
#ifndef FAULTLINE_CODEROWS_H
#define FAULTLINE_CODEROWS_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include "faultline.h"
#include "symbols/cfi.h"

/* The bytes of a function decoded at most */
#define CODEROWS_MAX_LEN 256

/*
 * The rows of the function whose first instruction is at ELF address @vaddr, its code @code
 * (@len bytes: up to where another function's rows begin): one at each instruction where the
 * rule changes, the CFA from rsp and rbp's save slot, then an FL_CFA_INVALID row just past
 * its last instruction. Into @out (room for @max); returns how many, 0 when a path from the
 * entry meets another instruction, leaves @code, joins another with another stack depth, or
 * returns with a frame still on the stack.
 */
size_t coderows__decode(const uint8_t *code, size_t len, uint64_t vaddr, struct fl_unwind_row *out,
			size_t max);

/*
 * Puts in @t, compiled from @elf's call frame information and given its entries' rows
 * (cfi__add_entries), the decoded rows of each function of @fn (@n entries, any order) that
 * only its entry row covers. 0 or -ENOMEM (@t unchanged).
 */
int coderows__add(struct cfi_table *t, Elf *elf, const uint64_t *fn, size_t n);

#endif /* FAULTLINE_CODEROWS_H */
