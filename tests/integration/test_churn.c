/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --alloc=churn on the allocs workload (tests/workloads/allocs.c), on glibc and, preloaded, on
 * Debian's jemalloc and tcmalloc: the calls and bytes asked of every known path are exact,
 * through the same frames as exact mode; no free and nothing live is reported; the live
 * metrics are refused; only the entry program runs (one trap per call).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "allocs_checks.h"
#include "formats/jsonread.h"
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(churn, .init = setup, .fini = h_cleanup, .timeout = 120);

/* One churn run of allocs on @lib ("-": glibc): its folded file (by @metric) in @r, its JSON
 * document in @doc. */
static void run_churn(struct h_run *r, struct jv *doc, const char *lib, const char *metric)
{
	const char *wl[] = { lib, NULL };
	char dir[64], json[128];
	const char *fl[] = { "--alloc=churn", "--metric", metric, "--json", json, NULL };
	char *text;

	if (strcmp(lib, "-") && access(lib, R_OK))
		cr_skip_test("%s is not installed (apt-get install libjemalloc2 "
			     "libtcmalloc-minimal4)",
			     lib);
	h_temp_dir_ok(dir);
	snprintf(json, sizeof(json), "%s/churn.json", dir);
	h_attach_run_ok(r, "allocs", wl, fl);
	h_folded_root_ok(&r->folded, "allocs");
	text = h_read_file(json);
	cr_assert_eq(jv_parse(text, strlen(text), doc), 0, "--json: not JSON: %.300s", text);
	free(text);
}

/* Sum of counts.@key over the JSON stacks in which frame @caller is right above @callee. */
static uint64_t json_edge(const struct jv *doc, const char *key, const char *caller,
			  const char *callee)
{
	const struct jv *st = jv_get(doc, "stacks");
	uint64_t sum = 0, v;

	cr_assert(st && st->type == JV_ARR, "no stacks array");
	for (size_t i = 0; i < st->n; i++) {
		const struct jv *f = jv_get(&st->items[i], "frames");

		for (size_t k = 1; f && k + 1 < f->n; k++) {
			if (strcmp(f->items[k].text, caller) ||
			    strcmp(f->items[k + 1].text, callee))
				continue;
			cr_assert(jv_u64(jv_path(jv_get(&st->items[i], "counts"), key), &v),
				  "stack %zu: no counts.%s", i, key);
			sum += v;
			break;
		}
	}
	return sum;
}

/* Member @key (a counts object) of each element of array @arr holds no free or live figure. */
static void expect_no_free_figures(const struct jv *arr, const char *key)
{
	static const char *const absent[] = { "frees", "free_bytes", "live_count", "live_bytes",
					      "unmatched_frees" };

	cr_assert(arr && arr->type == JV_ARR);
	for (size_t i = 0; i < arr->n; i++) {
		const struct jv *c = jv_get(&arr->items[i], key);

		cr_assert_not_null(c);
		for (size_t k = 0; k < sizeof(absent) / sizeof(absent[0]); k++)
			cr_expect_null(jv_get(c, absent[k]), "%s reported in churn mode",
				       absent[k]);
	}
}

/* Bytes asked and calls by path, exact; the frame above the allocator is its caller; a call
 * that passes through a second allocator function (realloc(NULL) jumping to malloc) is one. */
static void check_churn(const char *lib)
{
	struct h_run r;
	struct jv doc;
	const struct jv *mode;

	run_churn(&r, &doc, lib, "alloc-bytes");
	mode = jv_path(&doc, "options.alloc_mode");
	cr_expect(mode && mode->type == JV_STR && !strcmp(mode->text, "churn"),
		  "options.alloc_mode is not \"churn\"");
	allocs_bytes_by_path_ok(&r);
	cr_expect_eq(h_folded_frame(&r.folded, "operator new"), NEW_N * NEW_SIZE,
		     "operator new counted once");
	cr_expect_eq(h_folded_frame(&r.folded, "nested_path"), NESTED_N * NESTED_SIZE,
		     "nested calls counted once: %" PRIu64,
		     h_folded_frame(&r.folded, "nested_path"));
	/* the calls, from the same run */
	cr_expect_eq(json_edge(&doc, "allocs", "leak_path", "malloc"), LEAK_N);
	cr_expect_eq(json_edge(&doc, "allocs", "churn_path", "malloc"), CHURN_N);
	cr_expect_eq(json_edge(&doc, "allocs", "realloc_path", "realloc"), 2);
	cr_expect_eq(json_edge(&doc, "allocs", "thread_leak", "malloc"), THREAD_N);
	expect_no_free_figures(jv_get(&doc, "stacks"), "counts");
	expect_no_free_figures(jv_get(&doc, "threads"), "counts");
	expect_no_free_figures(jv_get(&doc, "processes"), "attributed");
	expect_no_free_figures(jv_get(&doc, "allocation_sites"), "counts");
	for (size_t i = 0; i < jv_get(&doc, "allocation_sites")->n; i++)
		cr_expect_null(jv_get(&jv_get(&doc, "allocation_sites")->items[i],
				      "latency_hist_ns"),
			       "a latency in churn mode");
	jv_free(&doc);
	h_folded_free(&r.folded);
}

Test(churn, glibc_calls_and_bytes)
{
	check_churn("-");
}

Test(churn, jemalloc_calls_and_bytes)
{
	check_churn(JEMALLOC);
}

Test(churn, tcmalloc_calls_and_bytes)
{
	check_churn(TCMALLOC);
}

/* glibc passes each of nested_path's calls on to malloc or realloc: each one is counted once,
 * under the function the program called. */
Test(churn, glibc_nested_calls_under_the_called_function)
{
	struct h_run r;
	struct jv doc;

	run_churn(&r, &doc, "-", "alloc-count");
	allocs_expect_edge(&r, "nested_path", "realloc", 1);
	allocs_expect_edge(&r, "nested_path", "aligned_alloc", 1);
	allocs_expect_edge(&r, "nested_path", "reallocarray", 1);
	allocs_expect_edge(&r, "nested_path", "posix_memalign", 1);
	allocs_expect_edge(&r, "nested_path", "malloc", 0);
	jv_free(&doc);
	h_folded_free(&r.folded);
}

/* The table says what churn mode does not trace, and shows no free or live figure. */
Test(churn, report_says_what_is_not_traced)
{
	struct h_run r;
	struct jv doc;
	char *out;

	run_churn(&r, &doc, "-", "alloc-count");
	out = h_read_file(r.fl.out_path);
	cr_expect(strstr(out, "allocator churn since attach: allocs "), "report:\n%s", out);
	cr_expect(strstr(out, "; frees not traced"), "report:\n%s", out);
	cr_expect(strstr(out, "allocator churn by site (frees and live bytes not traced; --alloc "
			      "for exact live tracking):"),
		  "report:\n%s", out);
	cr_expect_null(strstr(out, "unmatched frees"), "report:\n%s", out);
	cr_expect_null(strstr(out, "retention:"), "report:\n%s", out);
	cr_expect_null(strstr(out, "LIVE"), "report:\n%s", out);
	free(out);
	jv_free(&doc);
	h_folded_free(&r.folded);
}

/* live-bytes and live-count need the frees: refused as a usage error, saying why and what to
 * use instead, before anything is loaded. */
Test(churn, live_metrics_refused)
{
	static const char *const metrics[] = { "live-bytes", "live-count" };
	char self[16];

	snprintf(self, sizeof(self), "%d", getpid());
	for (size_t i = 0; i < 2; i++) {
		const char *args[] = { "-q", "--alloc=churn", "--metric", metrics[i], "-p", self,
				       NULL };
		struct h_session s;
		char *err;

		h_session_init_ok(&s);
		h_session_start_ok(&s, args);
		cr_assert_eq(h_wait_exit(&s.proc, H_EXIT_MS), 0, "faultline did not exit");
		err = h_read_file(s.err_path);
		cr_expect_eq(h_exit_code(&s.proc), 2, "--metric %s: status %d: %s", metrics[i],
			     h_exit_code(&s.proc), err);
		cr_expect(strstr(err, "needs the frees, which --alloc=churn does not trace"), "%s",
			  err);
		cr_expect(strstr(err, "use --alloc for exact live tracking"), "%s", err);
		free(err);
	}
}

/* The names of the BPF programs faultline @owner holds (bpftool by id, from its fdinfo). */
static bool holds_prog(pid_t owner, const char *name)
{
	uint32_t ids[256];
	int n = h_fdinfo_ids(owner, "prog_id", ids, 256);
	bool found = false;

	for (int i = 0; i < n && !found; i++) {
		char cmd[256], line[512];
		FILE *p;

		snprintf(cmd, sizeof(cmd), "%s prog show id %u 2>/dev/null",
			 getenv("BPFTOOL") ?: "bpftool", ids[i]);
		p = popen(cmd, "r");
		cr_assert_not_null(p);
		while (fgets(line, sizeof(line), p))
			found |= strstr(line, name) != NULL;
		pclose(p);
	}
	return found;
}

/* One trap per call: the entry program is there, no return or free program is. */
Test(churn, entry_probes_only)
{
	struct h_run r;

	h_attach_start_ok(&r, "allocs", NULL,
			  (const char *const[]){ "--alloc=churn", "--metric", "alloc-count",
						 NULL });
	cr_expect(holds_prog(r.fl.proc.pid, "fl_alloc_churn"), "no fl_alloc_churn program");
	cr_expect_not(holds_prog(r.fl.proc.pid, "fl_alloc_exit"), "a return probe program");
	cr_expect_not(holds_prog(r.fl.proc.pid, "fl_free_enter"), "a free probe program");
	cr_expect_not(holds_prog(r.fl.proc.pid, "fl_alloc_enter"), "exact mode's entry program");
	cr_expect_not(holds_prog(r.fl.proc.pid, "fl_alloc_call"), "exact mode's session program");
	h_attach_work_ok(&r);
	h_attach_stop_ok(&r, SIGINT);
	allocs_expect_edge(&r, "churn_path", "malloc", CHURN_N);
	h_folded_free(&r.folded);
}

/* --sample-bytes composes: estimates of a large run within 10% of the truth. */
Test(churn, sampled_estimates)
{
	allocs_sampled_ok("--alloc=churn");
}

/* A launched command: the probes placed before its exec count its calls from the start. */
Test(churn, launched_command)
{
	allocs_launched_ok("--alloc=churn");
}
