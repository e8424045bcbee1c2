/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * How a walk ended, and the share of growth told whole, must not overstate: a stack is whole
 * only when every step of its walk was one an unwind row gave. A frame-pointer step over code
 * whose unwind info is garbage (tests/workloads/badcfi.c) skips frames and is not whole, even
 * when the walk then reaches _start; a recursion 10,000 deep (deep.c) is cut by the depth
 * limit and says so; a short command launched is walked by its tables from its first
 * instruction, the dynamic loader's own included.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/jsonread.h"
#include "harness.h"

TestSuite(walkends, .init = h_require_root, .fini = h_cleanup, .timeout = 120);

#define MIB H_MIB

/* The bytes of growth whose walks ended as @end in the --json document at @path. */
static uint64_t ended(const char *path, const char *end)
{
	char *text = h_read_file(path), key[96];
	uint64_t v = 0;
	struct jv doc;

	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "%s is not JSON", path);
	snprintf(key, sizeof(key), "stack_walks.growth_bytes.%s", end);
	cr_assert(jv_u64(jv_path(&doc, key), &v), "no %s", key);
	jv_free(&doc);
	free(text);
	return v;
}

static void attach_run(struct h_run *r, const char *workload, const char *const *wl, char *json)
{
	const char *fl[] = { "--metric", "resident", "--json", json, NULL };
	char dir[64];

	h_temp_dir_ok(dir);
	snprintf(json, 128, "%s/walks.json", dir);
	h_attach_run_whole_ok(r, workload, wl, fl);
}

Test(walkends, frame_pointer_steps_over_garbage_tables_are_not_whole)
{
	const char *intact[] = { "intact", NULL };
	uint64_t fallback, whole, cut;
	char json[128];
	struct h_run r;

	attach_run(&r, "badcfi", NULL, json);
	fallback = ended(json, "frame_pointer_fallback");
	h_walks_ok(json, "growth_bytes", &whole, &cut);
	/* memset's faults under lib_leaf: 8 MiB, stepped over by the frame pointer */
	cr_expect(h_within((double)fallback, 8.0 * MIB),
		  "%" PRIu64 " bytes of growth on frame-pointer fallback stacks, 8 MiB expected",
		  fallback);
	cr_expect_lt(whole, 1 * MIB, "%" PRIu64 " bytes counted whole", whole);
	h_folded_free(&r.folded);

	/* the same library with its table: the same bytes, whole, through all its frames */
	attach_run(&r, "badcfi", intact, json);
	h_walks_ok(json, "growth_bytes", &whole, &cut);
	cr_expect_geq(whole, 8 * MIB, "intact: %" PRIu64 " bytes whole", whole);
	cr_expect_leq(cut, whole / 100, "intact: %" PRIu64 " bytes cut", cut);
	h_within_ok("touch_path;lib_touch;lib_mid;lib_leaf",
		    h_folded_edge(&r.folded, "lib_mid", "lib_leaf"), (int64_t)(8 * MIB), &r.folded);
	h_folded_free(&r.folded);
}

Test(walkends, deep_recursion_is_cut_by_depth)
{
	uint64_t depth, fp, whole, cut;
	char json[128];
	struct h_run r;

	attach_run(&r, "deep", NULL, json);
	depth = ended(json, "depth");
	fp = ended(json, "frame_pointers_ended");
	h_walks_ok(json, "growth_bytes", &whole, &cut);
	/* bottom()'s 4 MiB, and the stack's own pages on the way down */
	cr_expect_geq(depth, 4 * MIB, "%" PRIu64 " bytes cut by depth", depth);
	cr_expect_eq(fp, 0, "%" PRIu64 " bytes filed under frame_pointers_ended", fp);
	cr_expect_lt(whole, 1 * MIB, "%" PRIu64 " bytes counted whole", whole);
	h_folded_free(&r.folded);
}

/* At least 99% of a short command's growth whole, none of it at a rule the walk could not
 * follow, nor through a frame-pointer step: crtstuff's destructor, which ld.so calls at exit
 * and distributions build without unwind tables, has the rows its code gives
 * (symbols/coderows.c; 5.5% of /bin/true's growth went through it by the frame pointer). */
static void launched_whole(const char *const *cmd)
{
	const char *argv[16] = { "-q", "--json", NULL, "--" };
	uint64_t whole, cut, invalid, fallback;
	char json[128], what[128] = "";
	struct h_session s;
	size_t n = 4;

	h_session_init_ok(&s);
	snprintf(json, sizeof(json), "%s/cmd.json", s.dir);
	argv[2] = json;
	for (; *cmd && n < 15; cmd++, n++) {
		argv[n] = *cmd;
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s ", *cmd);
	}
	h_session_start_ok(&s, argv);
	cr_assert_eq(h_wait_exit(&s.proc, H_WORK_MS), 0, "%s: faultline did not end", what);
	cr_assert_eq(h_exit_code(&s.proc), 0, "%s: exit status %d", what, h_exit_code(&s.proc));
	h_walks_ok(json, "growth_bytes", &whole, &cut);
	invalid = ended(json, "unfollowable_rule");
	fallback = ended(json, "frame_pointer_fallback");
	cr_expect_geq(whole * 100, (whole + cut) * 99, "%s: %" PRIu64 " of %" PRIu64 " bytes whole",
		      what, whole, whole + cut);
	cr_expect_eq(invalid, 0, "%s: %" PRIu64 " bytes at an unfollowable rule", what, invalid);
	cr_expect_eq(fallback, 0, "%s: %" PRIu64 " bytes through a frame-pointer step", what,
		     fallback);
}

Test(walkends, launched_commands_whole_from_the_first_instruction)
{
	static const char *const cmds[][5] = { { "/bin/true", NULL },
					       { "sh", "-c", "true", NULL },
					       { "ls", "-R", "/usr/share/doc/libc6", NULL } };

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		launched_whole(cmds[i]);
}
