/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Source lines and inlined calls of code addresses, from the DWARF of an ELF file (the binary
 * itself or its separate debug file), read with elfutils' libdw, as `addr2line -i` shows them.
 */
#ifndef FAULTLINE_DWARF_H
#define FAULTLINE_DWARF_H

#include <stddef.h>
#include <stdint.h>

/* One frame of an address: the innermost inlined call first, the function holding it last. */
struct dwarf_frame {
	const char *func; /* DW_AT_linkage_name (maybe mangled), else DW_AT_name; NULL: unknown */
	const char *file; /* the source file, as the line table names it; NULL: unknown */
	unsigned line;	  /* 0: unknown */
};

struct dwarfinfo;

/* Opens the DWARF of the ELF file open at @fd (which stays the caller's; what libdw needs is
 * mapped). Returns 0, -ENOENT when the file has no DWARF, or -ENOMEM. */
int dwarfinfo__open(int fd, struct dwarfinfo **out);
void dwarfinfo__free(struct dwarfinfo *d); /* accepts NULL */

/*
 * The frames of ELF virtual address @vaddr, innermost first, at most @max: the line of @vaddr
 * in the innermost inlined function, then each caller it was inlined into at the line of the
 * call, down to the function itself. Returns how many (0: no DWARF covers @vaddr). Strings
 * live as long as @d. An address is looked up once: @d keeps what it found.
 */
size_t dwarfinfo__frames(struct dwarfinfo *d, uint64_t vaddr, struct dwarf_frame *out, size_t max);

#endif /* FAULTLINE_DWARF_H */
