/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --vm on the vmcalls workload (tests/workloads/vmcalls.c), whose calls have known sizes:
 * virtual bytes are exact (whole pages), resident bytes inside the calls within 2%, and each
 * call kind, count and failure lands on the function that made it.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static void setup(void)
{
	h_require_root();
	/* the calls table names callers at the end of its lines: room for them in the file */
	setenv("COLUMNS", "200", 1);
}

TestSuite(vm, .init = setup, .fini = h_cleanup, .timeout = 90);

/* Sum of the lines that hold frame @fn and end in frame @leaf. */
static uint64_t under(const struct h_folded *f, const char *fn, const char *leaf)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct h_fline *l = &f->lines[i];

		if (strcmp(l->frames[l->nframes - 1], leaf))
			continue;
		for (size_t j = 1; j + 1 < l->nframes; j++) {
			if (!strcmp(l->frames[j], fn)) {
				sum += l->value;
				break;
			}
		}
	}
	return sum;
}

static void expect_bytes(const struct h_folded *f, const char *fn, const char *leaf,
			 uint64_t mib)
{
	uint64_t got = under(f, fn, leaf);

	cr_expect_eq(got, mib * H_MIB, "%s ... %s: %llu bytes, expected %llu MiB", fn, leaf,
		     (unsigned long long)got, (unsigned long long)mib);
}

static void run(struct h_run *r, const char *metric)
{
	const char *const fl[] = { "--vm", "--metric", metric, NULL };

	h_attach_run_ok(r, "vmcalls", NULL, fl);
}

Test(vm, reserved_by_call_kind)
{
	struct h_run r;

	run(&r, "reserved");
	expect_bytes(&r.folded, "vm_reserve", "[mmap anon]", 16);
	expect_bytes(&r.folded, "vm_populate", "[mmap anon]", 4);
	expect_bytes(&r.folded, "vm_shared", "[mmap shared]", 2);
	expect_bytes(&r.folded, "vm_file", "[mmap file]", 3);
	expect_bytes(&r.folded, "vm_remap", "[mremap]", 8);
	expect_bytes(&r.folded, "vm_brk", "[brk grow]", 2);
	cr_expect_eq(h_folded_frame(&r.folded, "vm_fail"), 0, "failed calls reserve nothing");
	cr_expect_eq(h_folded_total(&r.folded), 35 * H_MIB, "total reserved: %llu",
		     (unsigned long long)h_folded_total(&r.folded));
	h_folded_free(&r.folded);
}

Test(vm, unmapped_by_call_kind)
{
	struct h_run r;

	run(&r, "unmapped");
	expect_bytes(&r.folded, "vm_remap", "[mremap]", 4);
	expect_bytes(&r.folded, "vm_unmap", "[munmap]", 20);
	expect_bytes(&r.folded, "vm_brk", "[brk shrink]", 2);
	cr_expect_eq(h_folded_total(&r.folded), 26 * H_MIB, "total unmapped: %llu",
		     (unsigned long long)h_folded_total(&r.folded));
	h_folded_free(&r.folded);
}

/* Who gave memory back: the resident bytes dropped inside each call are charged to it. */
Test(vm, released_inside_the_calls)
{
	struct h_run r;

	run(&r, "released");
	h_within_ok("released inside madvise(DONTNEED)",
		    under(&r.folded, "vm_dontneed", "[madvise DONTNEED]"), (int64_t)(4 * H_MIB),
		    &r.folded);
	h_within_ok("released inside munmap", under(&r.folded, "vm_unmap", "[munmap]"),
		    (int64_t)(4 * H_MIB), &r.folded);
	h_within_ok("released inside brk", under(&r.folded, "vm_brk", "[brk shrink]"),
		    (int64_t)(2 * H_MIB), &r.folded);
	h_within_ok("all released", h_folded_total(&r.folded), (int64_t)(10 * H_MIB), &r.folded);
	h_folded_free(&r.folded);
}

/* The line of the calls table for @call made under @fn; NULL when there is none. */
static char *call_line(char *report, const char *call, const char *fn)
{
	for (char *l = strtok(report, "\n"); l; l = strtok(NULL, "\n"))
		if (strstr(l, call) && strstr(l, fn))
			return l;
	return NULL;
}

static void expect_calls(const char *report_path, const char *call, const char *fn,
			 unsigned calls, unsigned failed)
{
	char *report = h_read_file(report_path), *l = call_line(report, call, fn);
	unsigned c = 0, f = 0;

	cr_expect(l && sscanf(l, "%u %u", &c, &f) == 2, "no calls line for %s under %s in:\n%s",
		  call, fn, h_read_file(report_path));
	cr_expect_eq(c, calls, "%s under %s: %u calls, expected %u", call, fn, c, calls);
	cr_expect_eq(f, failed, "%s under %s: %u failed, expected %u", call, fn, f, failed);
	free(report);
}

/* Growth inside a call (MAP_POPULATE) is the call's; counts and failures are per site. */
Test(vm, populate_counts_and_failures)
{
	struct h_run r;

	run(&r, "resident");
	h_within_ok("grown inside mmap(MAP_POPULATE)",
		    under(&r.folded, "vm_populate", "[mmap anon]"), (int64_t)(4 * H_MIB),
		    &r.folded);
	h_within_ok("grown by faults in vm_touch", h_folded_frame(&r.folded, "vm_touch"),
		    (int64_t)(8 * H_MIB), &r.folded);
	expect_calls(r.fl.out_path, "[munmap]", "vm_fail", 1, 1);
	expect_calls(r.fl.out_path, "[mmap anon]", "vm_fail", 1, 1);
	expect_calls(r.fl.out_path, "[mremap]", "vm_remap", 2, 0);
	expect_calls(r.fl.out_path, "[munmap]", "vm_unmap", 1, 0);
	h_folded_free(&r.folded);
}
