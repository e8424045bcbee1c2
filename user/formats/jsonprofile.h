/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Reading a --json profile back (faultline diff): its stacks with every counter. */
#ifndef FAULTLINE_JSONPROFILE_H
#define FAULTLINE_JSONPROFILE_H

#include <stdbool.h>
#include <stdio.h>
#include "model/profile.h"

/* What the session that wrote a document measured (its "options"). */
struct jsonprofile_scope {
	bool known;	/* the document says ("options"): false, the rest means nothing */
	bool alloc;	/* --alloc: the allocator's counters */
	bool churn;	/* ... --alloc=churn: calls and bytes asked, no frees */
	bool vm;	/* --vm: the memory calls' counters */
	bool new_pages; /* --metric new: the new pages' counters */
};

/*
 * Reads the document @in holds into @p: a --json file, or a --json-stream file, of which the
 * last document (the final one) is read; either may be re-indented (jq ., python3 -m
 * json.tool). Each entry of "stacks" is added with its frames and all its counters, so any
 * metric can be compared. A counter is a whole number from 0 to 2^64-1 (at_peak: a signed
 * 64-bit one); members not known are skipped. Problems are reported on @errs as
 * "faultline: NAME:LINE: stacks[I].counts.KEY: reason" (up to FOLDED_MAX_ERRORS, then their
 * number), the whole document checked first. Returns 0, -EINVAL (not JSON, not a faultline/1
 * document, or a problem), -ENOMEM, or -errno of a read error. @scope (may be NULL) gets what
 * the session measured.
 */
int jsonprofile__read(FILE *in, const char *name, struct profile *p, FILE *errs,
		      struct jsonprofile_scope *scope);

#endif /* FAULTLINE_JSONPROFILE_H */
