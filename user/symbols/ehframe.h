/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The functions an object's .eh_frame describes: one FDE per function (or per cold part of
 * one), with its start and length, whether or not the object keeps a symbol for it. A stripped
 * object's static functions are known this way, so that every return address inside one names
 * the same frame.
 */
#ifndef FAULTLINE_EHFRAME_H
#define FAULTLINE_EHFRAME_H

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

#endif /* FAULTLINE_EHFRAME_H */
