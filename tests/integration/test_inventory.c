/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The resident inventory on the inventory workload, whose every mapping's resident bytes are
 * known from inside: a 32 MiB pool (named where the kernel can) and a 16 MiB unnamed mapping,
 * an arena made by a second thread's mallocs, 2 MiB touched on the stack of thread
 * "inv-stack", an 8 MiB memfd mapping, all made before attach; then, traced, 24 MiB more.
 * Each must show in the final JSON document's inventory, classified and named, with its
 * resident bytes at attach and at the end within H_TOLERANCE (2%) of what the workload made
 * resident, and each read's rows must sum to the VmRSS read with it within 64 KiB (the
 * workload sits still while they are read: anything more is a row missed).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "formats/jsonread.h"

#define SUM_SLACK (64 * 1024)
#define ARENA_BYTES (4096ULL * (2000 + 16)) /* the blocks and glibc's chunk headers */

static void setup(void)
{
	h_require_root();
}

TestSuite(inventory, .init = setup, .fini = h_cleanup, .timeout = 90);

/* What the workload said before "ready". */
struct told {
	int stack_tid, arena_tid, named;
};

static uint64_t u64_at(const struct jv *v, const char *path)
{
	uint64_t x = 0;

	cr_assert(jv_u64(jv_path(v, path), &x), "%s is not an unsigned integer", path);
	return x;
}

static const char *str_at(const struct jv *v, const char *path)
{
	const struct jv *s = jv_path(v, path);

	return s && s->type == JV_STR ? s->text : "";
}

static bool is_null(const struct jv *v, const char *path)
{
	const struct jv *x = jv_path(v, path);

	return x && x->type == JV_NULL;
}

/* The mapping of kind @kind whose smaps name is @name, or (@name NULL) whose size is @size. */
static const struct jv *mapping(const struct jv *maps, const char *kind, const char *name,
				uint64_t size)
{
	for (size_t i = 0; i < maps->n; i++) {
		const struct jv *m = &maps->items[i];

		if (strcmp(str_at(m, "kind"), kind))
			continue;
		if (name ? !strcmp(str_at(m, "smaps_name"), name) :
			   u64_at(m, "end") - u64_at(m, "start") == size)
			return m;
	}
	return NULL;
}

static const struct jv *thread_stack(const struct jv *maps, int tid)
{
	for (size_t i = 0; i < maps->n; i++) {
		const struct jv *m = &maps->items[i];
		int64_t t = 0;

		if (!strcmp(str_at(m, "kind"), "thread_stack") &&
		    jv_i64(jv_path(m, "thread.tid"), &t) && t == tid &&
		    !strcmp(str_at(m, "perms"), "rw-p"))
			return m;
	}
	return NULL;
}

/* The resident bytes of @m at @side ("at_attach", "at_end") are within H_TOLERANCE of @want. */
static void resident_ok(const struct jv *m, const char *what, const char *side, uint64_t want)
{
	char path[32];
	uint64_t got;

	cr_assert_not_null(m, "%s: not in the inventory", what);
	snprintf(path, sizeof(path), "%s.rss", side);
	got = u64_at(m, path);
	cr_expect(h_within((double)got, (double)want),
		  "%s %s: %" PRIu64 " bytes resident, the workload made %" PRIu64, what, side, got,
		  want);
}

/* Each read's rows sum to the VmRSS read with it. */
static void sums_ok(const struct jv *inv, const char *side)
{
	char gap_path[48], rss_path[48], vm_path[48];
	int64_t gap = 0;

	snprintf(gap_path, sizeof(gap_path), "reads.%s.gap", side);
	snprintf(rss_path, sizeof(rss_path), "reads.%s.rss", side);
	snprintf(vm_path, sizeof(vm_path), "reads.%s.vm_rss", side);
	cr_assert(jv_i64(jv_path(inv, gap_path), &gap), "%s: no gap (VmRSS not read?)", gap_path);
	cr_expect(gap <= SUM_SLACK && gap >= -SUM_SLACK,
		  "%s: the rows sum to %" PRIu64 ", VmRSS %" PRIu64 ": gap %" PRId64, side,
		  u64_at(inv, rss_path), u64_at(inv, vm_path), gap);
}

static struct told told_of(struct h_proc *wl)
{
	struct told t = { 0 };
	const char *rest;

	cr_assert_eq(h_wait_prefix(wl, "tids ", &rest, H_LINE_MS), 0, "no tids line");
	cr_assert_eq(sscanf(rest, "%d %d named %d", &t.stack_tid, &t.arena_tid, &t.named), 3);
	return t;
}

static void load_json(const char *path, struct jv *doc)
{
	char *text = h_read_file(path);

	cr_assert_eq(jv_parse(text, strlen(text), doc), 0, "--json: not JSON: %.300s", text);
	free(text);
}

Test(inventory, attach_mode)
{
	char dir[64], json[96];
	const char *fl_args[] = { "--json", json, NULL };
	const struct jv *inv, *maps, *m;
	struct h_run r;
	struct told t;
	struct jv doc;
	char *out;

	h_temp_dir_ok(dir);
	snprintf(json, sizeof(json), "%s/out.json", dir);
	h_attach_start_ok(&r, "inventory", NULL, fl_args);
	t = told_of(&r.wl);
	h_attach_work_ok(&r);
	h_attach_stop_ok(&r, SIGINT);
	load_json(json, &doc);
	inv = jv_path(&doc, "processes");
	cr_assert(inv && inv->n == 1);
	inv = jv_get(&inv->items[0], "inventory");
	cr_assert(inv && inv->type == JV_OBJ, "no inventory");
	maps = jv_get(inv, "mappings");
	cr_assert(maps && maps->type == JV_ARR);

	/* made before attach: at attach and at the end alike */
	m = t.named ? mapping(maps, "anon", "[anon:faultline-pool]", 0) :
		      mapping(maps, "anon", NULL, 32 * H_MIB);
	resident_ok(m, "the pool", "at_attach", 32 * H_MIB);
	resident_ok(m, "the pool", "at_end", 32 * H_MIB);
	m = mapping(maps, "anon", NULL, 16 * H_MIB);
	resident_ok(m, "the unnamed mapping", "at_attach", 16 * H_MIB);
	resident_ok(m, "the unnamed mapping", "at_end", 16 * H_MIB);
	m = mapping(maps, "shmem", "/memfd:faultline-inv (deleted)", 0);
	resident_ok(m, "the memfd", "at_attach", 8 * H_MIB);
	resident_ok(m, "the memfd", "at_end", 8 * H_MIB);
	m = thread_stack(maps, t.stack_tid);
	resident_ok(m, "inv-stack's stack", "at_attach", 2 * H_MIB);
	resident_ok(m, "inv-stack's stack", "at_end", 2 * H_MIB);
	cr_expect_str_eq(str_at(m, "thread.name"), "inv-stack");
	cr_expect_not_null(thread_stack(maps, t.arena_tid), "inv-arena's stack, by its pointer");
	m = NULL;
	for (size_t i = 0; i < maps->n && !m; i++)
		if (!strcmp(str_at(&maps->items[i], "kind"), "arena") &&
		    !strcmp(str_at(&maps->items[i], "perms"), "rw-p"))
			m = &maps->items[i];
	resident_ok(m, "inv-arena's arena", "at_attach", ARENA_BYTES);
	cr_expect_str_eq(str_at(m, "owner"), "allocator");
	cr_expect_eq(u64_at(m, "start") % (64 * H_MIB), 0);
	m = mapping(maps, "heap", "[heap]", 0);
	cr_expect_not_null(m, "no [heap]");
	if (m)
		cr_expect_str_eq(str_at(m, "owner"), "allocator");
	/* made while traced: at the end only */
	m = t.named ? mapping(maps, "anon", "[anon:faultline-grown]", 0) :
		      mapping(maps, "anon", NULL, 24 * H_MIB);
	cr_assert_not_null(m, "the mapping grown while traced");
	cr_expect(is_null(m, "at_attach"), "the grown mapping was there at attach");
	resident_ok(m, "the grown mapping", "at_end", 24 * H_MIB);
	cr_expect(is_null(m, "mapped_by"), "mapped_by is the lead's to fill");

	sums_ok(inv, "at_attach");
	sums_ok(inv, "at_end");
	cr_expect_geq(u64_at(inv, "reads.at_end.rss") - u64_at(inv, "reads.at_attach.rss"),
		      24 * H_MIB - SUM_SLACK);

	/* and the section of the final report */
	out = h_read_file(r.fl.out_path);
	cr_expect_not_null(strstr(out, "inventory of pid "), "no inventory in the report:\n%s", out);
	cr_expect_not_null(strstr(out, "thread inv-stack ("), "%s", out);
	cr_expect_not_null(strstr(out, "/memfd:faultline-inv (deleted)"), "%s", out);
	free(out);
	jv_free(&doc);
}

/* A launched command: at its exec (its image, nothing of its own yet), and at its exit, read
 * while it is stopped there with its memory whole. */
Test(inventory, launch_mode)
{
	char dir[64], json[96];
	const char *fl_args[] = { "--json", json, NULL };
	const struct jv *inv, *maps, *m;
	struct h_run r;
	struct jv doc;

	h_temp_dir_ok(dir);
	snprintf(json, sizeof(json), "%s/out.json", dir);
	h_launch_run_ok(&r, "inventory", NULL, fl_args);
	load_json(json, &doc);
	inv = jv_path(&doc, "processes");
	cr_assert(inv && inv->n >= 1);
	inv = jv_get(&inv->items[0], "inventory");
	cr_assert(inv && inv->type == JV_OBJ, "no inventory");
	cr_expect_lt(u64_at(inv, "reads.at_attach.rss"), 16 * H_MIB, "at its exec: its image");
	cr_assert(!is_null(inv, "reads.at_end"), "not read at its exit");
	maps = jv_get(inv, "mappings");
	m = mapping(maps, "shmem", "/memfd:faultline-inv (deleted)", 0);
	cr_assert_not_null(m);
	cr_expect(is_null(m, "at_attach"));
	resident_ok(m, "the memfd", "at_end", 8 * H_MIB);
	sums_ok(inv, "at_end");
	jv_free(&doc);
}
