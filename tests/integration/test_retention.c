/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * What the allocator holds (--alloc): the retention workload maps a 32 MiB pool of its own,
 * then mallocs 24 MiB of small blocks and frees all but 4 MiB spread over the heap. glibc
 * says from the inside (mallinfo2) how its heap grew; the heap it holds beyond the live blocks
 * is that growth less the live bytes the workload asked for. faultline must give that, not
 * the anon growth less the live heap (the pool would be blamed on malloc), and count the pool
 * as the application's, mapped by pool_fill.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/jsonread.h"
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(retention, .init = setup, .fini = h_cleanup, .timeout = 90);

#define MIB (1024LL * 1024LL)
/*
 * glibc's arena grows by what it asks of brk; the pages of its top chunk past the last block
 * (up to 128 KiB of M_TOP_PAD and a page) are reserved but never touched: resident growth can
 * be that much below the arena's. 5% for the rest.
 */
#define TOP_SLACK (256 * 1024LL)

struct mallinfo_line {
	long long arena, uordblks, fordblks, live;
};

/* The @nth "mallinfo" line the workload printed. */
static struct mallinfo_line mallinfo_of(const struct h_proc *wl, int nth)
{
	struct mallinfo_line m = { 0 };
	const char *p = wl->out;

	for (int i = 0; i <= nth; i++) {
		p = strstr(p, "mallinfo ");
		cr_assert_not_null(p, "the workload printed no mallinfo line %d", nth);
		p += strlen("mallinfo ");
	}
	cr_assert_eq(sscanf(p, "%lld %lld %lld %lld", &m.arena, &m.uordblks, &m.fordblks, &m.live),
		     4);
	return m;
}

static int64_t i64_at(const struct jv *o, const char *path)
{
	const struct jv *v = jv_path(o, path);
	int64_t x = 0;

	cr_assert(v && jv_i64(v, &x), "no %s in the report", path);
	return x;
}

Test(retention, allocator_holds_what_glibc_keeps)
{
	char dir[64], json[96];
	const char *fl_args[] = { "--alloc", "--json", json, NULL };
	struct mallinfo_line before, after;
	const struct jv *proc, *maps, *pool = NULL;
	int64_t want, holds, app;
	struct h_run r;
	struct jv doc;
	char *text;

	h_temp_dir_ok(dir);
	snprintf(json, sizeof(json), "%s/out.json", dir);
	h_attach_start_ok(&r, "retention", NULL, fl_args);
	h_attach_work_ok(&r);
	before = mallinfo_of(&r.wl, 0);
	after = mallinfo_of(&r.wl, 1);
	h_attach_stop_ok(&r, SIGINT);

	text = h_read_file(json);
	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON: %.300s", text);
	free(text);
	proc = jv_path(&doc, "processes");
	cr_assert(proc && proc->n == 1);
	proc = &proc->items[0];
	want = (after.arena - before.arena) - (after.live - before.live);
	holds = i64_at(proc, "retention.allocator_holds");
	cr_expect(holds >= want - want / 20 - TOP_SLACK && holds <= want + want / 20,
		  "the allocator holds %lld bytes by faultline, glibc's heap grew %lld beyond "
		  "the live blocks (arena %lld -> %lld, free %lld -> %lld)",
		  (long long)holds, (long long)want, before.arena, after.arena, before.fordblks,
		  after.fordblks);
	cr_expect_eq(i64_at(proc, "retention.live_growth"), after.live - before.live,
		     "the live heap's growth against the workload's own count");
	app = i64_at(proc, "retention.application_growth");
	cr_expect(app >= 32 * MIB && app <= 33 * MIB, "the application's own mappings grew %lld",
		  (long long)app);

	/* the pool is the application's, mapped by pool_fill's call */
	maps = jv_path(proc, "inventory.mappings");
	cr_assert(maps && maps->type == JV_ARR, "no inventory");
	for (size_t i = 0; i < maps->n && !pool; i++) {
		const struct jv *end = jv_path(&maps->items[i], "at_end.rss");
		uint64_t rss;

		if (end && jv_u64(end, &rss) && rss == 32 * MIB)
			pool = &maps->items[i];
	}
	cr_assert_not_null(pool, "no 32 MiB mapping in the inventory");
	cr_expect_str_eq(jv_get(pool, "owner")->text, "application");
	cr_expect(jv_get(pool, "mapped_by") && jv_get(pool, "mapped_by")->type != JV_NULL,
		  "the pool's stack is not known");
	cr_expect(jv_get(pool, "mapped_by_caller") &&
			  strstr(jv_get(pool, "mapped_by_caller")->text, "pool_fill"),
		  "the pool was not named by pool_fill's call");
	jv_free(&doc);
	h_folded_free(&r.folded);
}
