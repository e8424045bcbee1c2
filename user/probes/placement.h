/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Where inside an allocator function to put its uprobe. On x86-64 the kernel emulates a few
 * instruction kinds at a uprobe (push of a register, jmp/call rel, jcc, nop: about 0.6 us a hit)
 * and single-steps every other one out of line (about 10.8 us a hit). An allocator called
 * millions of times a second pays that difference on every call, so we move the probe from the
 * entry to the first emulated instruction when the move cannot change what the probe sees.
 */
#ifndef FAULTLINE_PLACEMENT_H
#define FAULTLINE_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Registers a probe reads its arguments from, for placement__choose(). */
#define PLACE_RDI (1u << 0)
#define PLACE_RSI (1u << 1)
#define PLACE_RDX (1u << 2)
#define PLACE_RCX (1u << 3)
#define PLACE_R8 (1u << 4)
#define PLACE_R9 (1u << 5)
/* Not an argument: a probe that walks the stack from there (--alloc=churn) needs the caller's
 * frame pointer as it was at the entry. */
#define PLACE_RBP (1u << 6)

/* The farthest placement__choose() walks from the entry: past it we are guessing. */
#define PLACE_MAX_INSNS 16
#define PLACE_MAX_BYTES 64

struct probe_site {
	uint32_t offset; /* bytes from the function's entry where the probe goes */
	bool emulated;	 /* the kernel emulates the instruction at offset (no single-step) */
	/*
	 * Static text for -v output; it never holds the offset, print that beside it, e.g.
	 * "jcc after a straight run (emulated)" or "entry: single-stepped, ...".
	 */
	const char *reason;
};

/*
 * Chooses where to probe a function whose first @len bytes (its st_size, capped by the caller)
 * are @code, loaded at virtual address @addr; @regs: PLACE_* bits the probe reads (the
 * arguments, and PLACE_RBP for a walk of the stack).
 *
 * The probe goes at the first instruction on the straight path from the entry that the kernel
 * emulates, when no instruction before it writes a register in @regs or rsp, stores to memory,
 * or may change control flow; and when no direct branch inside the function lands in
 * (entry, site], where a probe would fire twice per call. Otherwise it stays at the entry.
 *
 * Always fills @out (offset 0 when unsure). Returns 0, or -EINVAL for empty code, -ENOMEM/-EIO
 * when capstone fails to start.
 */
int placement__choose(const uint8_t *code, size_t len, uint64_t addr, unsigned regs,
		      struct probe_site *out);

/*
 * True when a direct jump, jcc or call decoded in @code (at @addr, linear sweep) targets
 * @target: used by the caller to reject a site that another probed function branches into
 * (glibc's memalign jumps into the middle of malloc). Also true when capstone fails to start,
 * so that a caller who cannot tell keeps the probe at the entry.
 */
bool placement__branches_to(const uint8_t *code, size_t len, uint64_t addr, uint64_t target);

/*
 * Like placement__branches_to(), for any target in [@lo, @hi). A branch from elsewhere to any
 * byte in (entry, entry + site offset] runs into the site without passing the entry, so a
 * caller moving a probe past the entry should reject the whole range, not the site alone.
 */
bool placement__branches_into(const uint8_t *code, size_t len, uint64_t addr, uint64_t lo,
			      uint64_t hi);

/*
 * A cheap superset of placement__branches_to() for many targets at once, without capstone:
 * true when the bytes at any offset of @code, read as a direct call, jmp or jcc, would target
 * one of the @n @targets (sorted). Every direct branch a sweep decodes is such a read, so
 * false means none targets them; true is checked by decoding (a byte scan also reads the
 * middle of instructions). 25 ms of decoding spared on libjemalloc.
 */
bool placement__may_branch_to(const uint8_t *code, size_t len, uint64_t addr,
			      const uint64_t *targets, size_t n);

/* Orders uint64_t addresses, as placement__may_branch_to() wants its targets. */
int placement__cmp_addr(const void *a, const void *b);

/*
 * True when the function's first instruction is an unconditional jmp (a tail call such as
 * jemalloc's `operator delete: jmp free@plt`), after an endbr64 if there is one: the caller
 * does not probe such a function, the one it jumps to counts the call.
 */
bool placement__is_tail_jump(const uint8_t *code, size_t len);

#endif /* FAULTLINE_PLACEMENT_H */
