/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --alloc=churn --sample-time on allocbench (tests/workloads/allocbench.c, one thread calling
 * malloc through three sites in a fixed sequence of sizes): the breakpoint in the target's
 * malloc, read from its memory as the kernel left it, is there about the share of the time
 * asked; the JSON says how long it was; and the shares of the three sites are those of a run
 * with the probes in all the time.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "formats/jsonread.h"
#include "harness.h"

#define SITES 3
#define SHARE_TOLERANCE 0.03 /* absolute, per site */
#define PROBE_BYTES 16	     /* compared with this process's own malloc */
#define LOOKS 600	     /* reads of the target's malloc, one every LOOK_MS */
#define LOOK_MS 3
#define ASKED_PCT "20"

static const char *const sites[SITES] = { "alloc_small", "alloc_medium", "alloc_large" };

static void setup(void)
{
	h_require_root();
}

TestSuite(sampletime, .init = setup, .fini = h_cleanup, .timeout = 120);

/* Where @pid maps the code this process has at @local: same file (by inode), same offset. */
static uint64_t remote_addr(pid_t pid, const void *local)
{
	char path[64], line[512];
	unsigned long lo, off, ino;
	struct stat st;
	Dl_info info;
	uint64_t found = 0;
	FILE *f;

	cr_assert(dladdr(local, &info) && info.dli_fname, "dladdr(malloc) failed");
	cr_assert_eq(stat(info.dli_fname, &st), 0, "stat %s", info.dli_fname);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%*x %*s %lx %*s %lu", &lo, &off, &ino) == 3 &&
		    ino == st.st_ino && off == 0)
			found = lo + (uint64_t)((const char *)local - (const char *)info.dli_fbase);
	fclose(f);
	cr_assert(found, "pid %d does not map %s", pid, info.dli_fname);
	return found;
}

/* The share of LOOKS reads of @pid's malloc that found it changed (a breakpoint in place). */
static double probed_share(pid_t pid)
{
	uint8_t mine[PROBE_BYTES], theirs[PROBE_BYTES];
	uint64_t at = remote_addr(pid, (const void *)malloc);
	struct timespec step = { 0, LOOK_MS * 1000000L };
	char path[64];
	int fd, changed = 0;

	memcpy(mine, (const void *)malloc, sizeof(mine));
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0, "%s", path);
	for (int i = 0; i < LOOKS; i++) {
		cr_assert_eq(pread(fd, theirs, sizeof(theirs), (off_t)at), (ssize_t)sizeof(theirs),
			     "reading pid %d's malloc", pid);
		changed += memcmp(mine, theirs, sizeof(mine)) != 0;
		nanosleep(&step, NULL);
	}
	close(fd);
	return (double)changed / LOOKS;
}

/* Calls of each site in @f, as shares of their sum; returns the sum. */
static uint64_t site_shares(const struct h_folded *f, double share[SITES])
{
	uint64_t n[SITES], sum = 0;

	for (int i = 0; i < SITES; i++)
		sum += n[i] = h_folded_edge(f, sites[i], "malloc");
	for (int i = 0; i < SITES; i++)
		share[i] = sum ? (double)n[i] / (double)sum : 0;
	return sum;
}

/* One churn run of allocbench (one thread, 3 s) with @extra options; the share of the time
 * malloc was seen probed into *@probed, the JSON into @doc. */
static void run(struct h_run *r, const char *extra, double *probed, struct jv *doc)
{
	const char *wl[] = { "1", "3", NULL };
	char dir[64], json[128];
	const char *fl[] = { "--alloc=churn", "--metric", "alloc-count", "--json", json,
			     extra,	      extra ? ASKED_PCT : NULL, NULL };
	char *text;
	int err;

	h_temp_dir_ok(dir);
	snprintf(json, sizeof(json), "%s/run.json", dir);
	h_attach_start_ok(r, "allocbench", wl, fl);
	h_kill_ok(r->wl.pid, SIGUSR1);
	*probed = probed_share(r->wl.pid);
	err = h_wait_line(&r->wl, "done", H_WORK_MS);
	cr_assert_eq(err, 0, "allocbench never printed \"done\": %s", strerror(-err));
	h_attach_stop_ok(r, SIGINT);
	text = h_read_file(json);
	cr_assert_eq(jv_parse(text, strlen(text), doc), 0, "--json: not JSON: %.300s", text);
	free(text);
}

static double json_num(const struct jv *doc, const char *obj, const char *key)
{
	const struct jv *o = obj ? jv_get(doc, obj) : doc, *v = o ? jv_get(o, key) : NULL;

	cr_assert(v && v->type == JV_NUM, "no number %s.%s in the JSON", obj ? obj : "", key);
	return strtod(v->text, NULL);
}

Test(sampletime, probes_out_most_of_the_time_shares_kept)
{
	double all[SITES], part[SITES], probed_all, probed_part, elapsed, in_s;
	struct h_run r_all, r_part;
	struct jv doc_all, doc_part;
	uint64_t n_all, n_part;

	run(&r_all, NULL, &probed_all, &doc_all);
	run(&r_part, "--sample-time", &probed_part, &doc_part);
	/* the control: the same reads see the breakpoint all the time without windows */
	cr_expect_geq(probed_all, 0.95, "probes in place %.2f of the time without --sample-time",
		      probed_all);
	/* a busy machine delays taking the probes out (0.31 seen at load 2.5 on 2 cores) */
	cr_expect(probed_part >= 0.12 && probed_part <= 0.40,
		  "--sample-time " ASKED_PCT ": malloc was probed %.2f of the time", probed_part);
	cr_expect_null(jv_get(jv_get(&doc_all, "options"), "sample_time"),
		       "sample_time in the JSON without --sample-time");
	cr_expect_float_eq(json_num(&doc_part, "options", "sample_time"), 0.2, 1e-9);
	elapsed = json_num(&doc_part, NULL, "elapsed_s");
	in_s = json_num(&doc_part, "options", "probed_s");
	cr_expect(in_s >= 0.15 * elapsed && in_s <= 0.25 * elapsed,
		  "probed_s %.3f of elapsed_s %.3f", in_s, elapsed);
	n_all = site_shares(&r_all.folded, all);
	n_part = site_shares(&r_part.folded, part);
	cr_assert_gt(n_part, 1000, "%" PRIu64 " calls seen in the windows", n_part);
	cr_expect_lt(n_part, n_all, "windows saw %" PRIu64 " calls, all the time %" PRIu64, n_part,
		     n_all);
	for (int i = 0; i < SITES; i++)
		cr_expect(part[i] > all[i] - SHARE_TOLERANCE && part[i] < all[i] + SHARE_TOLERANCE,
			  "%s: share %.3f with --sample-time, %.3f without", sites[i], part[i],
			  all[i]);
	jv_free(&doc_all);
	jv_free(&doc_part);
	h_folded_free(&r_all.folded);
	h_folded_free(&r_part.folded);
}

/* Exact tracking needs every call and every free: refused, with the reason. */
Test(sampletime, exact_mode_refused)
{
	char self[16];
	struct h_session s;
	char *err;

	snprintf(self, sizeof(self), "%d", getpid());
	h_session_init_ok(&s);
	h_session_start_ok(&s, (const char *const[]){ "-q", "--alloc", "--sample-time", "10",
						      "-p", self, NULL });
	cr_assert_eq(h_wait_exit(&s.proc, H_EXIT_MS), 0);
	cr_expect_eq(h_exit_code(&s.proc), 2);
	err = h_read_file(s.err_path);
	cr_expect(strstr(err, "--sample-time needs --alloc=churn"), "%s", err);
	free(err);
}
