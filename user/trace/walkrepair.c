// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/walkrepair.h"
#include <errno.h>
#include <string.h>
#include "trace/x86.h"

/*
 * True when @leaf_ret is the caller of a frameless leaf that the frame-pointer walk skipped:
 * the leaf function has no frame-pointer prologue (or has not run it yet) and the bytes before
 * @leaf_ret are a call.
 */
static bool leaf_caller_missing(struct symbolizer *sym, const uint64_t *ips, size_t n,
				uint64_t leaf_ret)
{
	uint8_t code[X86_PROLOGUE_MAX], before[7];
	uint64_t start;

	if (!sym || !leaf_ret || (n > 1 && ips[1] == leaf_ret))
		return false;
	if (symbolizer__func_start(sym, ips[0], &start) ||
	    symbolizer__read_code(sym, start, code, sizeof(code)) ||
	    symbolizer__read_code(sym, leaf_ret - sizeof(before), before, sizeof(before)))
		return false;
	if (x86__frame_setup_len(code, sizeof(code)) && ips[0] != start)
		return false;
	return x86__ends_with_call(before, sizeof(before));
}

int walk__place(const struct unwinder *u, const struct symbolizer *sym, uint64_t frame,
		uint64_t *addr)
{
	const struct elfsyms *elf = unwinder__object(u, fl_frame_table(frame), NULL);

	return elf && sym ? symbolizer__addr_of(sym, elf, fl_frame_vaddr(frame), addr) : -ENOENT;
}

/* @ips's first two frames as addresses in @sym's process (an object's unplaced stays as it is,
 * no code), for the leaf's repair. */
static bool leaf_caller_missing_in(const struct unwinder *u, struct symbolizer *sym,
				   const uint64_t *ips, size_t n, uint64_t leaf_ret)
{
	uint64_t at[2];

	for (size_t i = 0; i < n && i < 2; i++)
		if (!(ips[i] & FL_FRAME_OBJ) || walk__place(u, sym, ips[i], &at[i]))
			at[i] = ips[i];
	return leaf_caller_missing(sym, at, n, leaf_ret);
}

size_t walk__repair(const struct unwinder *u, struct symbolizer *sym, const struct fl_key *key,
		    uint64_t ips[FL_MAX_STACK_DEPTH], size_t n)
{
	size_t out = n ? 1 : 0;

	if (n && n < FL_MAX_STACK_DEPTH && leaf_caller_missing_in(u, sym, ips, n, key->leaf_ret)) {
		memmove(&ips[2], &ips[1], (n - 1) * sizeof(ips[0]));
		ips[1] = key->leaf_ret;
		n++;
	}
	for (size_t i = 1; i < n; i++)
		if (ips[i] != ips[out - 1])
			ips[out++] = ips[i];
	return out;
}

size_t walk__portable(const struct unwinder *u, struct symbolizer *sym, const struct fl_key *key,
		      const uint64_t *ips, size_t n, uint64_t out[FL_MAX_STACK_DEPTH])
{
	bool returns = fl_call_is_alloc(key->call);

	if (!sym || !n || n > FL_MAX_STACK_DEPTH)
		return 0;
	memcpy(out, ips, n * sizeof(*out));
	n = walk__repair(u, sym, key, out, n);
	for (size_t i = 0; i < n; i++) {
		/* a return address points after the call: its object is the call's */
		uint64_t at = i > 0 || returns ? out[i] - 1 : out[i], vaddr;
		const struct elfsyms *elf;
		uint32_t table;

		if (out[i] & FL_FRAME_OBJ)
			continue;
		if (!symbolizer__is_code(sym, at)) {
			if (!i)
				return 0;
			n = i; /* a walk gone astray: cut there, as it is named */
			break;
		}
		if (symbolizer__object_at(sym, at, &elf, &vaddr) ||
		    unwinder__table_of(u, elf, &table) || vaddr + (out[i] - at) > UINT32_MAX)
			return 0;
		out[i] = FL_FRAME_OBJ | (uint64_t)table << 32 | (vaddr + (out[i] - at));
	}
	return n;
}

bool walk__all_objects(const uint64_t *ips, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(ips[i] & FL_FRAME_OBJ))
			return false;
	return true;
}
