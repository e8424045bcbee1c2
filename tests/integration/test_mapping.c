/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --by mapping: each change is charged to the class of the mapping it hit. The mappings
 * workload grows each class from its own function; filemap and memfd grow a file and shmem.
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
}

TestSuite(mapping, .init = setup, .fini = h_cleanup, .timeout = 90);

/* A field of /proc/PID/smaps_rollup in bytes, -1 when missing. */
static int64_t rollup_field(pid_t pid, const char *field)
{
	char path[64], *text, *at;
	long long kib = -1;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	text = h_read_file(path);
	at = strstr(text, field);
	if (at && sscanf(at + strlen(field), ": %lld kB", &kib) != 1)
		kib = -1;
	free(text);
	return kib < 0 ? -1 : kib * 1024;
}

Test(mapping, each_class_on_its_function)
{
	static const char *const fl[] = { "--by", "stack,mapping", NULL };
	struct h_run r;
	int64_t thp;

	h_attach_start_ok(&r, "mappings", NULL, fl);
	h_attach_work_ok(&r);
	thp = rollup_field(r.wl.pid, "AnonHugePages");
	h_attach_stop_ok(&r, SIGINT);
	h_within_ok("heap_grow in [heap]", h_folded_edge(&r.folded, "heap_grow", "[heap]"),
		    (int64_t)(4 * H_MIB), &r.folded);
	h_within_ok("stack_grow in [stack]", h_folded_edge(&r.folded, "stack_grow", "[stack]"),
		    (int64_t)(2 * H_MIB), &r.folded);
	h_within_ok("thread_stack_grow in [thread stack]",
		    h_folded_edge(&r.folded, "thread_stack_grow", "[thread stack]"),
		    (int64_t)H_MIB, &r.folded);
	if (thp >= (int64_t)(4 * H_MIB))
		h_within_ok("thp_grow in [anon THP]",
			    h_folded_edge(&r.folded, "thp_grow", "[anon THP]"),
			    (int64_t)(4 * H_MIB), &r.folded);
	else
		cr_log_warn("the kernel gave no huge pages (AnonHugePages %lld): THP not checked",
			    (long long)thp);
	cr_expect_eq(h_folded_edge(&r.folded, "heap_grow", "[anon]") +
			     h_folded_edge(&r.folded, "stack_grow", "[unclassified]"),
		     0, "no heap or stack bytes elsewhere");
	h_folded_free(&r.folded);
}

/* Grouped by mapping only, the classes still sum to the kernel's change (the 2% of issue 4). */
Test(mapping, by_mapping_reconciles_with_status)
{
	static const char *const fl[] = { "--by", "mapping", NULL };
	struct h_run r;
	int64_t delta;

	h_attach_run_ok(&r, "threads", NULL, fl);
	delta = (r.after.anon - r.before.anon) + (r.after.file - r.before.file) +
		(r.after.shmem - r.before.shmem);
	h_within_ok("all classes vs (RssAnon+RssFile+RssShmem) delta",
		    h_folded_total(&r.folded), delta, &r.folded);
	h_within_ok("[anon]", h_folded_frame(&r.folded, "[anon]"), r.after.anon - r.before.anon,
		    &r.folded);
	for (size_t i = 0; i < r.folded.n; i++)
		cr_expect_eq(r.folded.lines[i].nframes, 2, "process;mapping only, got %zu frames",
			     r.folded.lines[i].nframes);
	h_folded_free(&r.folded);
}

/* A file mapping is named by its path; memfd pages are shmem. */
Test(mapping, file_path_and_shmem)
{
	static const char *const fl[] = { "--by", "mapping", NULL };
	struct h_run r;
	uint64_t file = 0;

	h_attach_run_ok(&r, "filemap", NULL, fl);
	for (size_t i = 0; i < r.folded.n; i++) {
		const char *leaf = r.folded.lines[i].frames[r.folded.lines[i].nframes - 1];

		if (strstr(leaf, "/faultline-wl-") && strstr(leaf, " (deleted)"))
			file += r.folded.lines[i].value;
	}
	h_within_ok("the workload's file by path", file, r.after.file - r.before.file,
		    &r.folded);
	h_folded_free(&r.folded);
	h_attach_run_ok(&r, "memfd", NULL, fl);
	h_within_ok("[shmem]", h_folded_frame(&r.folded, "[shmem]"),
		    r.after.shmem - r.before.shmem, &r.folded);
	h_folded_free(&r.folded);
}

/* Hugetlb pages are not RSS: their faults are counted apart. Reserves one huge page when the
 * machine has none, and gives it back. */
Test(mapping, hugetlb_faults)
{
	static const char *const wl[] = { "hugetlb", NULL };
	static const char *const fl[] = { "--by", "mapping", "--metric", "faults", NULL };
	const char *knob = "/proc/sys/vm/nr_hugepages";
	char *old = h_read_file(knob), *report;
	bool raised = atoi(old) == 0;
	struct h_run r;
	FILE *f;

	if (raised && (f = fopen(knob, "w"))) {
		fputs("1\n", f);
		fclose(f);
	}
	h_attach_start_ok(&r, "mappings", wl, fl);
	h_attach_work_ok(&r);
	h_attach_stop_ok(&r, SIGINT);
	if (raised && (f = fopen(knob, "w"))) {
		fputs(old, f);
		fclose(f);
	}
	free(old);
	if (strstr(r.wl.out, "no hugetlb")) {
		h_folded_free(&r.folded);
		cr_skip_test("no huge page could be reserved on this machine");
	}
	cr_expect_eq(h_folded_frame(&r.folded, "[hugetlb]"), 1, "one fault in the 2 MiB page");
	report = h_read_file(r.fl.out_path);
	cr_expect(strstr(report, "hugetlb faults since attach: 1 "), "report:\n%s", report);
	free(report);
	h_folded_free(&r.folded);
}
