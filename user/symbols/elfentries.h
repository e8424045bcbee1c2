/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Where the functions of an ELF object begin, as the object itself says: its entry point
 * (e_entry, the first instruction of a process when it is the executable or the dynamic
 * loader), the functions the dynamic loader calls (DT_INIT, DT_FINI, and the preinit, init and
 * fini arrays: crtstuff's frame_dummy and __do_global_dtors_aux, which carry no unwind info),
 * and its function symbols (.symtab, .dynsym). At a function's first instruction its return
 * address is at the stack pointer whatever the function: the walk needs no table there
 * (cfi__add_entries).
 */
#ifndef FAULTLINE_ELFENTRIES_H
#define FAULTLINE_ELFENTRIES_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_entries {
	uint64_t *fn; /* function entries, ELF virtual addresses (malloc'ed; may repeat) */
	size_t n, cap;
	uint64_t start; /* e_entry; 0: none */
};

/* Reads the entries of @elf into @out. 0 or -ENOMEM; what cannot be read is left out. */
int elf_entries__read(Elf *elf, struct elf_entries *out);

void elf_entries__free(struct elf_entries *e);

/* The file offset of virtual address @vaddr into *@off, through the PT_LOAD segment that maps
 * @len bytes there from the file; false when none does. */
bool elf_entries__offset(Elf *elf, uint64_t vaddr, uint64_t len, uint64_t *off);

#endif /* FAULTLINE_ELFENTRIES_H */
