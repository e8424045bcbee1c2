/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --json and --json-stream on the threads workload (touch_a/b/c 8/16/24 MiB), attach mode:
 * the final document's stacks hold what the folded file holds, its process block what
 * /proc/PID/status says at the end, and the stream is one parseable document per line, the
 * last one final. The documents are read with user/jsonread.c, a strict reader.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include "formats/jsonread.h"
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(json, .init = setup, .fini = h_cleanup, .timeout = 90);

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Waits up to @ms for @path to hold @n lines or more. */
static bool wait_lines(const char *path, size_t n, int ms)
{
	for (int waited = 0; waited <= ms; waited += 50) {
		char *s = h_read_file(path);
		size_t got = count_lines(s);

		free(s);
		if (got >= n)
			return true;
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	}
	return false;
}

/* Sum of growth.anon over the stacks that hold frame @fn (from frame 1 on), as
 * h_folded_frame() sums the folded lines. */
static uint64_t stacks_frame(const struct jv *doc, const char *fn)
{
	const struct jv *st = jv_get(doc, "stacks");
	uint64_t sum = 0, v = 0;

	cr_assert(st && st->type == JV_ARR, "no stacks array");
	for (size_t i = 0; i < st->n; i++) {
		const struct jv *f = jv_get(&st->items[i], "frames");

		cr_assert(f && f->type == JV_ARR && f->n > 0, "stack %zu has no frames", i);
		for (size_t k = 1; k < f->n; k++) {
			if (f->items[k].type == JV_STR && !strcmp(f->items[k].text, fn)) {
				cr_assert(jv_u64(jv_path(&st->items[i], "counts.growth.anon"), &v));
				sum += v;
				break;
			}
		}
	}
	return sum;
}

static uint64_t u64_at(const struct jv *v, const char *path)
{
	uint64_t x = 0;

	cr_assert(jv_u64(jv_path(v, path), &x), "%s is not an unsigned integer", path);
	return x;
}

static int64_t i64_at(const struct jv *v, const char *path)
{
	int64_t x = 0;

	cr_assert(jv_i64(jv_path(v, path), &x), "%s is not an integer", path);
	return x;
}

static void expect_within(const char *what, double got, double want)
{
	cr_expect(h_within(got, want), "%s: got %.0f, /proc says %.0f", what, got, want);
}

Test(json, final_document_and_stream)
{
	char dir[64];
	char json_path[128], stream_path[128];
	const char *fl[] = { "--metric", "anon",	  "-i",	       "0.2", "--json",
			     json_path,	 "--json-stream", stream_path, NULL };
	struct h_run r;
	struct jv doc, line;
	const struct jv *p, *fin;
	char *text, *stream, *save = NULL, *last = NULL;
	uint64_t rss;
	size_t nlines = 0;

	h_temp_dir_ok(dir);
	snprintf(json_path, sizeof(json_path), "%s/final.json", dir);
	snprintf(stream_path, sizeof(stream_path), "%s/stream.jsonl", dir);
	h_attach_start_ok(&r, "threads", NULL, fl);
	h_attach_work_ok(&r);
	/* VmRSS is RssAnon + RssFile + RssShmem (the kernel's task_mem()) */
	rss = (uint64_t)(r.after.anon + r.after.file + r.after.shmem);
	/* a refresh after the work, so the stream has a live line and the final one */
	cr_assert(wait_lines(stream_path, 2, 5000), "no JSON line within 5 s of the work");
	h_attach_stop_ok(&r, SIGINT);

	text = h_read_file(json_path);
	cr_assert_eq(count_lines(text), 1, "--json: not one line");
	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON: %.500s", text);
	cr_expect_str_eq(jv_get(&doc, "schema")->text, "faultline/1");
	fin = jv_get(&doc, "final");
	cr_expect(fin && fin->type == JV_BOOL && fin->b, "the --json document is not final");
	/* the kernel as probed at start: this host's has every feature, its counters exact */
	{
		const struct jv *rel = jv_path(&doc, "kernel.release"),
				*ctr = jv_path(&doc, "kernel.rss_counters"),
				*miss = jv_path(&doc, "kernel.missing");
		struct utsname u;

		cr_expect(!uname(&u) && rel && rel->type == JV_STR && !strcmp(rel->text, u.release),
			  "kernel.release is not uname -r");
		cr_expect(ctr && ctr->type == JV_STR &&
				  (!strcmp(ctr->text, "exact") || !strcmp(ctr->text, "batched")),
			  "kernel.rss_counters is neither exact nor batched");
		cr_expect(miss && miss->type == JV_ARR && miss->n == 0,
			  "kernel.missing is not an empty array on this host");
	}
	for (size_t i = 0; i < H_NTOUCHERS; i++) {
		uint64_t got = stacks_frame(&doc, h_touchers[i].fn);

		cr_expect_eq(got, h_folded_frame(&r.folded, h_touchers[i].fn),
			     "%s: JSON %" PRIu64 ", folded %" PRIu64, h_touchers[i].fn, got,
			     h_folded_frame(&r.folded, h_touchers[i].fn));
		h_within_ok(h_touchers[i].fn, got, (int64_t)h_touchers[i].bytes, &r.folded);
		cr_log_info("%s: JSON %" PRIu64 " B, folded %" PRIu64 " B", h_touchers[i].fn, got,
			    h_folded_frame(&r.folded, h_touchers[i].fn));
	}

	/* the process block: the kernel's figures at the end, and the reconciliation */
	cr_assert_eq(jv_get(&doc, "processes")->n, 1);
	p = &jv_get(&doc, "processes")->items[0];
	cr_expect_eq(i64_at(p, "pid"), r.wl.pid);
	expect_within("status_now.rss_anon", (double)u64_at(p, "status_now.rss_anon"),
		      (double)r.after.anon);
	expect_within("status_now.rss_file", (double)u64_at(p, "status_now.rss_file"),
		      (double)r.after.file);
	expect_within("status_now.rss_shmem", (double)u64_at(p, "status_now.rss_shmem"),
		      (double)r.after.shmem);
	expect_within("status_now.vm_rss", (double)u64_at(p, "status_now.vm_rss"), (double)rss);
	expect_within("kernel_change.anon", (double)i64_at(p, "kernel_change.anon"),
		      (double)(r.after.anon - r.before.anon));
	expect_within("attributed.growth.anon", (double)u64_at(p, "attributed.growth.anon"),
		      (double)(r.after.anon - r.before.anon));
	cr_expect(jv_path(p, "smaps_rollup_now.pss_anon"), "no smaps_rollup figures");
	cr_log_info("rss_anon JSON %" PRIu64 " /proc %" PRId64 "; vm_rss JSON %" PRIu64
		    " /proc %" PRIu64 "; kernel_change.anon %" PRId64 ", gap.anon %" PRId64,
		    u64_at(p, "status_now.rss_anon"), r.after.anon, u64_at(p, "status_now.vm_rss"),
		    rss, i64_at(p, "kernel_change.anon"), i64_at(p, "gap.anon"));

	/* the stream: every line a document of its own, only the last one final */
	stream = h_read_file(stream_path);
	for (char *l = strtok_r(stream, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		cr_assert_eq(jv_parse(l, strlen(l), &line), 0, "stream line %zu: not JSON: %.300s",
			     nlines + 1, l);
		fin = jv_get(&line, "final");
		cr_assert(fin && fin->type == JV_BOOL, "stream line %zu: no final flag",
			  nlines + 1);
		cr_expect_str_eq(jv_get(&line, "schema")->text, "faultline/1");
		if (last)
			cr_expect_not(strstr(last, "\"final\":true"),
				      "a final line before the last");
		last = l;
		nlines++;
		jv_free(&line);
	}
	cr_expect_geq(nlines, 2, "the stream has %zu lines", nlines);
	cr_log_info("stream: %zu lines", nlines);
	cr_assert_not_null(last);
	cr_assert_eq(jv_parse(last, strlen(last), &line), 0);
	fin = jv_get(&line, "final");
	cr_expect(fin->b, "the last stream line is not final");
	/* the final line and --json come from the same snapshot */
	cr_expect(!strncmp(last, text, strlen(last)) && text[strlen(last)] == '\n',
		  "the final stream line differs from the --json document");
	jv_free(&line);
	free(stream);
	jv_free(&doc);
	free(text);
	h_folded_free(&r.folded);
}

/* True when every number in @v (an object of counts, nested) is 0. */
static bool all_zero(const struct jv *v)
{
	if (v->type == JV_NUM)
		return !strcmp(v->text, "0");
	for (size_t i = 0; (v->type == JV_OBJ || v->type == JV_ARR) && i < v->n; i++)
		if (!all_zero(&v->items[i]))
			return false;
	return true;
}

/*
 * The loader makes each target's overflow row ([counts map full]) at attach, all zeros until
 * the counts map fills: no stack of zeros may be listed, with -T (rows one by one) or without
 * (rows of the same stack summed over threads), and no thread charged nothing.
 */
Test(json, no_stack_or_thread_of_zeros)
{
	char dir[64], path[128];
	const char *fl[] = { "--json", path, NULL, NULL };

	h_temp_dir_ok(dir);
	snprintf(path, sizeof(path), "%s/out.json", dir);
	for (int threads = 0; threads < 2; threads++) {
		const struct jv *st, *th;
		struct h_run r;
		struct jv doc;
		char *text;

		fl[2] = threads ? "-T" : NULL;
		h_attach_run_ok(&r, "threads", NULL, fl);
		text = h_read_file(path);
		cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "not JSON: %.500s", text);
		cr_expect_eq(u64_at(&doc, "drops.counts_map_full"), 0);
		st = jv_get(&doc, "stacks");
		cr_assert(st && st->type == JV_ARR && st->n > 0, "no stacks");
		for (size_t i = 0; i < st->n; i++) {
			const struct jv *f = jv_get(&st->items[i], "frames");

			cr_expect_not(all_zero(jv_get(&st->items[i], "counts")),
				      "-T %d: a stack of zeros: %s ... %s", threads,
				      f->items[0].text, f->items[f->n - 1].text);
		}
		th = jv_get(&doc, "threads");
		for (size_t i = 0; th && i < th->n; i++)
			cr_expect_not(all_zero(jv_get(&th->items[i], "counts")),
				      "-T %d: thread %" PRIu64 " was charged nothing", threads,
				      u64_at(&th->items[i], "tid"));
		jv_free(&doc);
		free(text);
		h_folded_free(&r.folded);
	}
}

/* --json -: stdout holds the document and nothing else (the report goes to stderr). */
Test(json, stdout_holds_only_json)
{
	static const char *const fl[] = { "--json", "-", NULL };
	static const char *const wl[] = { "4", NULL };
	struct h_run r;
	struct jv doc;
	char *out, *err;

	h_attach_run_ok(&r, "threads", wl, fl);
	out = h_read_file(r.fl.out_path);
	cr_assert_eq(jv_parse(out, strlen(out), &doc), 0,
		     "stdout is not one JSON document:\n%.500s", out);
	h_within_ok("touch_a", stacks_frame(&doc, "touch_a"), (int64_t)(4 * H_MIB), &r.folded);
	err = h_read_file(r.fl.err_path);
	cr_expect(strstr(err, "faultline final report"), "the report is not on stderr:\n%.500s",
		  err);
	free(err);
	jv_free(&doc);
	free(out);
	h_folded_free(&r.folded);
}
