/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A process that maps hundreds of files (tests/workloads/manylibs.c: copies of one library,
 * dlopen()ed below the C library): the allocator is still found (glibc, mapped above them all,
 * last in /proc/PID/maps), and the walk keeps the tables stacks go through. With 300 copies
 * every code mapping fits the walk's list; with 700 some are left out, and named, while the
 * executable, the loader, the C library and the copy the stacks go through keep theirs; 20
 * loaded after attach are walked whole from their _init's first instruction.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/jsonread.h"
#include "harness.h"

TestSuite(manylibs, .init = h_require_root, .fini = h_cleanup, .timeout = 120);

#define ALLOCS 64
#define ALLOC_SIZE 65536
#define TOUCH_BYTES (4 * H_MIB)

/* At most 1% of @what's bytes on cut stacks. */
static void expect_whole(const char *json, const char *what)
{
	uint64_t whole, cut;

	h_walks_ok(json, what, &whole, &cut);
	cr_expect_gt(whole, 0, "%s: nothing on whole stacks", what);
	cr_expect_leq(cut * 100, whole + cut, "%s: %" PRIu64 " of %" PRIu64 " bytes on cut stacks",
		      what, cut, whole + cut);
}

/* The unwind tables' figure @key of the --json document at @path, as text. */
static char *table_figure(const char *path, const char *key)
{
	char *text = h_read_file(path), *out, full[96];
	const struct jv *v;
	struct jv doc;

	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "not JSON");
	snprintf(full, sizeof(full), "stack_walks.unwind_tables.%s", key);
	v = jv_path(&doc, full);
	out = strdup(v && (v->type == JV_NUM || v->type == JV_STR) ? v->text : "");
	jv_free(&doc);
	free(text);
	return out;
}

static void run(struct h_run *r, const char *copies, const char *metric, bool alloc, char *json)
{
	const char *wl[] = { copies, NULL };
	const char *fl[] = { "--metric", metric, "--json", json, alloc ? "--alloc" : NULL, NULL };
	char dir[64];

	h_temp_dir_ok(dir);
	snprintf(json, 128, "%s/manylibs.json", dir);
	h_attach_run_whole_ok(r, "manylibs", wl, fl);
	h_folded_root_ok(&r->folded, "manylibs");
}

Test(manylibs, three_hundred_libraries_with_alloc)
{
	char json[128], *cut;
	struct h_run r;

	run(&r, "300", "alloc-bytes", true, json);
	/* glibc's malloc found past the 300 copies, and every allocation counted */
	cr_expect_eq(h_folded_edge(&r.folded, "main", "heap_leaf"), (uint64_t)ALLOCS * ALLOC_SIZE,
		     "main;heap_leaf: %" PRIu64 " bytes allocated, %d asked",
		     h_folded_edge(&r.folded, "main", "heap_leaf"), ALLOCS * ALLOC_SIZE);
	expect_whole(json, "growth_bytes");
	expect_whole(json, "alloc_bytes");
	cut = table_figure(json, "mappings_past_limit");
	cr_expect_str_eq(cut, "0", "%s code mappings past the limit", cut);
	free(cut);
	h_folded_free(&r.folded);
}

Test(manylibs, three_hundred_libraries)
{
	char json[128];
	struct h_run r;

	run(&r, "300", "resident", false, json);
	h_within_ok("lib_call;copy_leaf", h_folded_edge(&r.folded, "lib_call", "copy_leaf"),
		    (int64_t)TOUCH_BYTES, &r.folded);
	h_within_ok("main;lib_call", h_folded_edge(&r.folded, "main", "lib_call"),
		    (int64_t)TOUCH_BYTES, &r.folded);
	expect_whole(json, "growth_bytes");
	h_folded_free(&r.folded);
}

Test(manylibs, past_the_limit_the_relevant_kept_the_rest_named)
{
	char json[128], *cut, *files;
	struct h_run r;

	run(&r, "700", "resident", false, json);
	h_within_ok("main;lib_call", h_folded_edge(&r.folded, "main", "lib_call"),
		    (int64_t)TOUCH_BYTES, &r.folded);
	expect_whole(json, "growth_bytes");
	cut = table_figure(json, "mappings_past_limit");
	files = table_figure(json, "mappings_past_limit_files");
	cr_expect(atoi(cut) >= 700 - 512, "%s code mappings past the limit of 512", cut);
	cr_expect(strstr(files, "libcopy") && !strstr(files, "libc.so"),
		  "the files left out: %s", files);
	free(cut);
	free(files);
	h_folded_free(&r.folded);
}

/*
 * Copies loaded after attach: ld.so calls each one's _init before its table can be in, and the
 * first instruction of _init faults as its page is touched. The walk steps from there as from
 * a function just entered, the call before its return address having gone there (call
 * *%rax): the stack is whole, through dlopen and load_late.
 */
Test(manylibs, libraries_loaded_late_whole_from_their_first_instruction)
{
	const char *wl[] = { "20", "late", NULL };
	const char *fl[] = { "--metric", "resident", NULL };
	uint64_t through = 0, cut = 0;
	struct h_run r;

	h_attach_run_whole_ok(&r, "manylibs", wl, fl);
	for (size_t i = 0; i < r.folded.n; i++) {
		const struct h_fline *l = &r.folded.lines[i];

		if (strcmp(l->frames[l->nframes - 1], "_init"))
			continue;
		if (l->nframes > 2 && !strcmp(l->frames[1], "_start") &&
		    h_folded_edge(&(struct h_folded){ .lines = (struct h_fline *)l, .n = 1 },
				  "main", "load_late"))
			through += l->value;
		else
			cut += l->value;
	}
	cr_expect_gt(through, 0, "no growth at _init on a whole stack through load_late");
	cr_expect_eq(cut, 0, "%" PRIu64 " bytes at _init on cut stacks", cut);
	h_folded_free(&r.folded);
}
