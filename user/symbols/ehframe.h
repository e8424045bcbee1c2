/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The functions an object's .eh_frame describes: one FDE per function (or per cold part of
 * one), with its start and length, whether or not the object keeps a symbol for it. A stripped
 * object's static functions are known this way, so that every return address inside one names
 * the same frame.
 */
#ifndef FAULTLINE_EHFRAME_H
#define FAULTLINE_EHFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ehframe_func {
	uint64_t start; /* ELF virtual address */
	uint64_t size;
};

/*
 * Decodes the FDEs of .eh_frame, @data (@len bytes) loaded at virtual address @vaddr, into
 * *@out (malloc'ed; NULL when none) and *@n, in section order. Entries it cannot decode (an
 * unknown pointer encoding, a CIE out of bounds) are skipped; a truncated section ends the
 * walk. Returns 0 or -ENOMEM.
 */
int ehframe__funcs(const uint8_t *data, size_t len, uint64_t vaddr, struct ehframe_func **out,
		   size_t *n);

/* What an FDE inherits from its CIE. */
struct ehframe_cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t enc;			  /* DW_EH_PE_* of the FDEs' addresses */
	bool has_z;			  /* 'z': FDEs carry augmentation data */
	bool signal;			  /* 'S': a signal trampoline (__restore_rt) */
	const uint8_t *insns, *insns_end; /* the initial instructions */
};

/* One FDE, its code range and call frame instructions. */
struct ehframe_fde {
	uint64_t start; /* ELF virtual address */
	uint64_t size;
	struct ehframe_cie cie;
	const uint8_t *insns, *insns_end;
};

/*
 * Calls @fn for every FDE of .eh_frame @data (@len bytes, at virtual address @vaddr) that
 * decodes and covers code, in section order, until @fn returns non-zero (returned).
 */
int ehframe__each_fde(const uint8_t *data, size_t len, uint64_t vaddr,
		      int (*fn)(const struct ehframe_fde *fde, void *arg), void *arg);

/* The same for .debug_frame (its addresses are absolute: no section address needed). */
int ehframe__each_debug_fde(const uint8_t *data, size_t len,
			    int (*fn)(const struct ehframe_fde *fde, void *arg), void *arg);

/* A bounded reader of DWARF data: every read checks that it stays inside [p, end). */
struct ehframe_cursor {
	const uint8_t *p, *end;
	bool bad; /* a read went past end: every later read gives 0 */
};

uint64_t ehframe__read_n(struct ehframe_cursor *c, size_t n); /* little-endian */
uint64_t ehframe__read_leb(struct ehframe_cursor *c, bool is_signed);
/* A pointer encoded as DW_EH_PE @enc; @vaddr is the address of @base, the section's data. */
uint64_t ehframe__read_encoded(struct ehframe_cursor *c, uint8_t enc, uint64_t vaddr,
			       const uint8_t *base);

#endif /* FAULTLINE_EHFRAME_H */
