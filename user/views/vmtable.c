// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "views/vmtable.h"
#include <inttypes.h>
#include "base/units.h"
#include "model/profile.h"

#define MAX_CALL_ROWS 15

void vmtable__render_summary(FILE *out, unsigned width, pid_t pid, const struct fl_report *r)
{
	struct fl_counts sum = {};
	char b[5][UNITS_BUF];

	for (size_t i = 0; i < r->nvm_sites; i++)
		if (r->vm_sites[i].pid == pid)
			counts__add(&sum, &r->vm_sites[i].counts);
	units__bytes(b[0], UNITS_BUF, sum.reserved);
	units__bytes(b[1], UNITS_BUF, sum.unmapped);
	units__bytes(b[2], UNITS_BUF, sum.advised);
	units__bytes(b[3], UNITS_BUF, metric__value(&sum, FL_METRIC_RESIDENT));
	units__bytes(b[4], UNITS_BUF, metric__value(&sum, FL_METRIC_RELEASED));
	units__emit(out, width,
		    "  memory calls since attach: %" PRIu64 " (%" PRIu64 " failed), "
		    "reserved %s, unmapped %s, advised %s; inside them RSS grew %s, "
		    "was given back %s",
		    (uint64_t)sum.vm_calls, (uint64_t)sum.vm_failed, b[0], b[1], b[2], b[3], b[4]);
}

/* @v as bytes, or "-" for none: most cells of this table are empty. */
static const char *cell(char buf[UNITS_BUF], uint64_t v)
{
	if (!v)
		return "-";
	units__bytes(buf, UNITS_BUF, v);
	return buf;
}

void vmtable__render_calls(FILE *out, unsigned width, const struct fl_report *r)
{
	char b[5][UNITS_BUF];

	units__emit(out, width,
		    "memory calls (RSS+/RSS-: resident bytes grown/given back inside "
		    "them):");
	units__emit(out, width, "%6s %6s %9s %9s %9s %9s %9s  %-18s  %s", "CALLS", "FAILED",
		    "RESERVED", "UNMAPPED", "ADVISED", "RSS+", "RSS-", "CALL", "CALLERS");
	for (size_t i = 0; i < r->nvm_sites && i < MAX_CALL_ROWS; i++) {
		const struct fl_call_site *s = &r->vm_sites[i];
		const struct fl_counts *c = &s->counts;

		units__emit(out, width, "%6" PRIu64 " %6" PRIu64 " %9s %9s %9s %9s %9s  %-18s  %s",
			    (uint64_t)c->vm_calls, (uint64_t)c->vm_failed, cell(b[0], c->reserved),
			    cell(b[1], c->unmapped), cell(b[2], c->advised),
			    cell(b[3], metric__value(c, FL_METRIC_RESIDENT)),
			    cell(b[4], metric__value(c, FL_METRIC_RELEASED)), s->fn, s->caller);
	}
	if (r->nvm_sites > MAX_CALL_ROWS)
		units__emit(out, width, "[%zu more call sites]", r->nvm_sites - MAX_CALL_ROWS);
	if (!r->nvm_sites)
		units__emit(out, width, "(no memory calls seen yet)");
}
