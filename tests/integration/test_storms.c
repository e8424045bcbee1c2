/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * -f under a storm of short-lived children (tests/workloads/storm.c): 2,000 forked children
 * of 256 KiB each, and 300 fork+exec children 5 ms apart (a quarter of 1 MiB touched before
 * the exec, 1 MiB after, in stormchild). Every child measures its own RSS change; faultline's
 * growth of the children, net of what they gave back and but for their exit teardown, must be
 * that sum within 5%, with under 5% of all bytes on unnamed ([unknown], raw addresses) or lost
 * ([stack lost]) stacks, and the children's named functions must hold what they touched.
 * storm's run is bounded by its children, faultline's end by 10 s from storm's. A shell
 * running short distribution programs has 95% or more of its growth on whole stacks.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "formats/jsonread.h"
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(storms, .init = setup, .fini = h_cleanup, .timeout = 120);

#define STORM_TOLERANCE 0.05

/* What storm printed: the sum of its children's own measures. */
struct storm_sum {
	unsigned long children;
	int64_t anon, file, shmem;
};

static void storm_sum_ok(const char *out_path, struct storm_sum *s)
{
	char *out = h_read_file(out_path), *line = strstr(out, "children ");
	long long a, f, m;

	cr_assert(line && sscanf(line, "children %lu anon %lld file %lld shmem %lld", &s->children,
				 &a, &f, &m) == 4,
		  "storm printed no sums:\n%.2000s", out);
	s->anon = a;
	s->file = f;
	s->shmem = m;
	free(out);
}

static uint64_t u64_at(const struct jv *v, const char *path)
{
	uint64_t x = 0;

	cr_assert(jv_u64(jv_path(v, path), &x), "%s is not an unsigned integer", path);
	return x;
}

/* Resident growth (anon + file + shmem) of counts object @c, less what it released when @net. */
static int64_t resident(const struct jv *c, bool net)
{
	static const char *const kinds[] = { "anon", "file", "shmem" };
	int64_t sum = 0;
	char path[64];

	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "growth.%s", kinds[i]);
		sum += (int64_t)u64_at(c, path);
		snprintf(path, sizeof(path), "released.%s", kinds[i]);
		if (net)
			sum -= (int64_t)u64_at(c, path);
	}
	return sum;
}

/* A frame faultline could not name: no mapping held it, or the walk failed. */
static bool unnamed(const char *frame)
{
	return !strncmp(frame, "[unknown]", 9) || !strcmp(frame, "[stack lost]") ||
	       !strncmp(frame, "0x", 2);
}

/* What the final JSON document says of the storm. */
struct storm_seen {
	size_t followed;      /* processes found with -f */
	int64_t children_net; /* their growth less their releases, exit teardown aside */
	uint64_t total;	      /* resident growth of every stack */
	uint64_t lost;	      /* ... of the stacks with an unnamed frame */
	size_t folded;	      /* followed processes whose rows went to another's (stacks_in) */
	size_t reconciled;    /* followed processes with a gap (from /proc or their counters) */
	size_t off;	      /* ... of them, those with a gap of more than a page of a kind */
	long maxrss_kib;      /* faultline's peak RSS (the largest child the test reaped) */
	size_t nstacks, nthreads;
};

/* A child's gap (null: no kernel figures) into @s's reconciled and off. */
static void gap_ok(const struct jv *gap, struct storm_seen *s)
{
	static const char *const kinds[] = { "anon", "file", "shmem" };
	bool off = false;

	if (!gap || gap->type == JV_NULL)
		return;
	for (int i = 0; i < 3; i++) {
		int64_t g = 0;

		cr_assert(jv_i64(jv_get(gap, kinds[i]), &g), "gap.%s is not an integer", kinds[i]);
		off |= g > 4096 || g < -4096;
	}
	s->reconciled++;
	s->off += off;
}

static void storm_seen_ok(const char *json_path, struct storm_seen *s,
			  uint64_t (*frame_bytes)(const struct jv *, void *), void *ctx)
{
	char *text = h_read_file(json_path);
	const struct jv *procs, *stacks;
	struct jv doc;

	memset(s, 0, sizeof(*s));
	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON: %.300s", text);
	procs = jv_get(&doc, "processes");
	stacks = jv_get(&doc, "stacks");
	cr_assert(procs && procs->type == JV_ARR && stacks && stacks->type == JV_ARR);
	for (size_t i = 0; i < procs->n; i++) {
		const struct jv *p = &procs->items[i], *followed = jv_get(p, "followed");

		if (followed && followed->type == JV_BOOL && followed->b) {
			s->followed++;
			s->children_net += resident(jv_get(p, "attributed"), true);
			s->folded += jv_get(p, "stacks_in") != NULL;
			gap_ok(jv_get(p, "gap"), s);
		}
	}
	s->nstacks = stacks->n;
	s->nthreads = jv_get(&doc, "threads")->n;
	for (size_t i = 0; i < stacks->n; i++) {
		const struct jv *st = &stacks->items[i], *f = jv_get(st, "frames");
		uint64_t v = (uint64_t)resident(jv_get(st, "counts"), false);
		bool bad = false;

		for (size_t k = 1; k < f->n; k++)
			bad |= unnamed(f->items[k].text);
		s->total += v;
		s->lost += bad ? v : 0;
	}
	if (frame_bytes)
		frame_bytes(&doc, ctx);
	jv_free(&doc);
	free(text);
}

/* Anon growth of the stacks holding frame @fn. */
static uint64_t frame_anon(const struct jv *doc, const char *fn)
{
	const struct jv *st = jv_get(doc, "stacks");
	uint64_t sum = 0;

	for (size_t i = 0; i < st->n; i++) {
		const struct jv *f = jv_get(&st->items[i], "frames");

		for (size_t k = 1; k < f->n; k++)
			if (!strcmp(f->items[k].text, fn)) {
				sum += u64_at(&st->items[i], "counts.growth.anon");
				break;
			}
	}
	return sum;
}

static bool within(double got, double want, double tol)
{
	return got >= want * (1 - tol) && got <= want * (1 + tol);
}

/*
 * `faultline -q -f --json J -- storm ARGS`: the sums storm printed and what faultline saw.
 * storm has @child_ms for each of its @children (its pace is faultline's: it waits in a ptrace
 * stop at each child's SIGCHLD until faultline passes it on), faultline 10 s from its end.
 */
static void storm_run_ok(const char *const *wl_args, unsigned children, int child_ms,
			 struct storm_sum *sum, struct storm_seen *seen,
			 uint64_t (*frame_bytes)(const struct jv *, void *), void *ctx)
{
	char dir[64], json[96];
	struct rusage ru;
	struct h_run r;

	h_temp_dir_ok(dir);
	snprintf(json, sizeof(json), "%s/storm.json", dir);
	h_launch_run_for_ok(&r, "storm", wl_args,
			    (const char *const[]){ "-f", "--json", json, NULL },
			    (int)children * child_ms);
	storm_sum_ok(r.fl.out_path, sum);
	storm_seen_ok(json, seen, frame_bytes, ctx);
	seen->maxrss_kib = getrusage(RUSAGE_CHILDREN, &ru) ? 0 : ru.ru_maxrss;
	cr_log_info("%lu children: measured %" PRId64 " B (anon %" PRId64 "), faultline %" PRId64
		    " B net in %zu processes; %" PRIu64 " of %" PRIu64 " B on unnamed stacks; "
		    "faultline ended %.2f s after storm, peak RSS %ld KiB",
		    sum->children, sum->anon + sum->file + sum->shmem, sum->anon,
		    seen->children_net, seen->followed, seen->lost, seen->total, r.end_s,
		    seen->maxrss_kib);
	h_folded_free(&r.folded);
}

static void check_storm(const struct storm_sum *sum, const struct storm_seen *seen, size_t procs)
{
	int64_t measured = sum->anon + sum->file + sum->shmem;

	cr_expect_eq(seen->followed, procs, "%zu children followed, %zu forked", seen->followed,
		     procs);
	cr_expect(within((double)seen->children_net, (double)measured, STORM_TOLERANCE),
		  "children's growth %" PRId64 " B, their own measure %" PRId64 " B (%.3fx)",
		  seen->children_net, measured, (double)seen->children_net / (double)measured);
	cr_expect_lt((double)seen->lost, STORM_TOLERANCE * (double)seen->total,
		     "%" PRIu64 " of %" PRIu64 " B on unnamed or lost stacks", seen->lost,
		     seen->total);
	/* each child reconciled with the kernel's counters, those gone before /proc was read
	 * too (their counters at fork and at exit), within a page of each kind */
	cr_expect_geq(seen->reconciled, procs - procs / 100,
		      "%zu of %zu children with kernel figures", seen->reconciled, procs);
	cr_expect_leq(seen->off, procs / 100, "%zu of %zu children off by more than a page",
		      seen->off, seen->reconciled);
}

/* 2,000 children forked one after the other, 256 KiB each: their growth is theirs, not the
 * pages fork copied into each (the freed mm a fork storm reuses at once). */
Test(storms, fork_storm)
{
	struct storm_sum sum;
	struct storm_seen seen;

	/* 20 ms a child: 2-8 ms at load 10 on 2 cores */
	storm_run_ok((const char *const[]){ "2000", "256", "0", NULL }, 2000, 20, &sum, &seen, NULL,
		     NULL);
	cr_assert_eq(sum.children, 2000, "storm had %lu reports", sum.children);
	cr_expect(within((double)sum.anon, 2000.0 * 256 * 1024, 0.001),
		  "children's RssAnon %" PRId64, sum.anon);
	check_storm(&sum, &seen, 2000);
	/* forks that never exec'd share rows: memory by stacks, not by children */
	cr_log_info("%zu folded, %zu stacks, %zu threads", seen.folded, seen.nstacks,
		    seen.nthreads);
	cr_expect_geq(seen.folded, 1990, "%zu of 2000 children folded", seen.folded);
	cr_expect_lt(seen.nstacks, 200, "%zu stacks for 2000 children alike", seen.nstacks);
	cr_expect_lt(seen.nthreads, 100, "%zu threads for 2000 children alike", seen.nthreads);
}

struct exec_frames {
	uint64_t before_exec, exec_touch;
	uint64_t whole, walked; /* growth on whole stacks, on every stack */
};

static uint64_t exec_frames(const struct jv *doc, void *ctx)
{
	const struct jv *g = jv_path(doc, "stack_walks.growth_bytes");
	struct exec_frames *f = ctx;
	uint64_t v;

	f->before_exec = frame_anon(doc, "before_exec");
	f->exec_touch = frame_anon(doc, "exec_touch");
	f->whole = u64_at(doc, "stack_walks.growth_bytes.whole");
	for (size_t i = 0; g && i < g->n; i++)
		f->walked += jv_u64(&g->items[i], &v) ? v : 0;
	return 0;
}

/*
 * 300 children 5 ms apart, each gone within milliseconds: each touches 256 KiB from
 * before_exec() in storm's image, then execs stormchild, which touches 1 MiB from
 * exec_touch(). Both functions must be named, each from its own image.
 */
Test(storms, fork_exec_storm)
{
	char child[512];
	const char *args[] = { "300", "1024", "5", child, NULL };
	struct exec_frames f = { 0 };
	struct storm_sum sum;
	struct storm_seen seen;

	snprintf(child, sizeof(child), "%s/stormchild", getenv("WORKLOADS"));
	/* 100 ms a child: 20-40 ms at load 10 on 2 cores */
	storm_run_ok(args, 300, 100, &sum, &seen, exec_frames, &f);
	cr_assert_eq(sum.children, 600, "storm had %lu reports (2 per child)", sum.children);
	check_storm(&sum, &seen, 300);
	cr_expect(within((double)f.exec_touch, 300.0 * H_MIB, STORM_TOLERANCE),
		  "exec_touch %" PRIu64 " B, 300 MiB touched", f.exec_touch);
	cr_expect(within((double)f.before_exec, 300.0 * 256 * 1024, STORM_TOLERANCE),
		  "before_exec %" PRIu64 " B, 75 MiB touched", f.before_exec);
	/* each exec'd child walked by its tables from its first fault, which the walk learns
	 * itself where it meets a mapping (bpf/unwind_learn.bpf.h), not frame pointers until the
	 * loader reads its maps: 99.7-99.9% with 16 busy loops beside it (95.3% when the walk
	 * learned one mapping a walk, once it was done); the first children may come before
	 * stormchild's table (3 points: 9 of them) */
	cr_log_info("%.1f%% of the growth on whole stacks", 100.0 * f.whole / f.walked);
	cr_expect_geq(f.whole, 0.97 * f.walked, "%" PRIu64 " of %" PRIu64 " B on whole stacks",
		      f.whole, f.walked);
	/* exec'd children of one program share the rows of stacks named alike in each (frames
	 * of objects, ASLR or not): memory by code paths, not by children */
	cr_log_info("%zu of 300 children folded", seen.folded);
	cr_expect_geq(seen.folded, 270, "%zu of 300 exec'd children share rows", seen.folded);
	/* 65 MiB when each child kept its rows and names; 34 MiB shared */
	cr_expect_lt(seen.maxrss_kib, 48 * 1024, "faultline's peak RSS %ld KiB", seen.maxrss_kib);
}

/*
 * A shell running short distribution programs one after the other (uname, cat, head, 200
 * times each), each gone a millisecond or two after its exec, before faultline's loop could
 * read its maps: a program's tables are loaded once its first run exits, from its mappings at
 * exit, and every run after is walked by them from its first fault, its own frames (main,
 * _start) and crtstuff's destructor at exit included. 99.6% whole; 64-91% before (uname's
 * table never loaded, the destructor stepped by its frame pointer).
 */
Test(storms, short_programs_whole_from_their_second_run)
{
	static const char loop[] =
		"i=0; while [ $i -lt 200 ]; do uname >/dev/null; "
		"cat /etc/hostname >/dev/null; head -c1 /etc/hostname >/dev/null; "
		"i=$((i + 1)); done";
	const char *argv[] = { "-f", "-q", "--json", NULL, "--", "sh", "-c", loop, NULL };
	uint64_t whole, cut;
	struct h_session s;
	char json[128];

	h_session_init_ok(&s);
	snprintf(json, sizeof(json), "%s/programs.json", s.dir);
	argv[3] = json;
	h_session_start_ok(&s, argv);
	cr_assert_eq(h_wait_exit(&s.proc, H_WORK_MS), 0, "faultline did not end");
	cr_assert_eq(h_exit_code(&s.proc), 0, "exit status %d", h_exit_code(&s.proc));
	h_walks_ok(json, "growth_bytes", &whole, &cut);
	cr_log_info("%.1f%% of the growth on whole stacks", 100.0 * whole / (whole + cut));
	/* the first run of each program (0.4%), and those that ran before a busy faultline's loop
	 * came to retire it (beside 16 busy loops on 2 cores: 98.3-99.8%) */
	cr_expect_geq(whole * 100, (whole + cut) * 95, "%" PRIu64 " of %" PRIu64 " B whole", whole,
		      whole + cut);
}

/*
 * --keep-exited: a shell running 300 short programs, then a second's sleep for faultline to
 * catch up on a busy machine, with room for 16 exited processes. The
 * oldest leave the list as their rows are another's, and nothing of them is lost: every
 * process is counted in its group, and the growth of those listed and of those forgotten adds
 * up to the folded file's, to the byte.
 */
Test(storms, exited_past_the_bound_are_summed_not_lost)
{
	static const char loop[] =
		"i=0; while [ $i -lt 300 ]; do head -c1 /etc/hostname >/dev/null; "
		"i=$((i + 1)); done; sleep 1";
	const char *argv[] = { "-f",	   "-q",     "--keep-exited",
			       "16",	   "--json", NULL,
			       "--folded", NULL,     "--",
			       "sh",	   "-c",     loop,
			       NULL };
	const struct jv *procs, *groups;
	uint64_t listed = 0, forgotten, heads = 0, grouped = 0;
	struct h_session s;
	struct h_folded f;
	struct jv doc;
	char json[128], *text;

	h_session_init_ok(&s);
	snprintf(json, sizeof(json), "%s/kept.json", s.dir);
	argv[5] = json;
	argv[7] = s.folded_path;
	h_session_start_ok(&s, argv);
	cr_assert_eq(h_wait_exit(&s.proc, H_WORK_MS), 0, "faultline did not end");
	cr_assert_eq(h_exit_code(&s.proc), 0, "exit status %d", h_exit_code(&s.proc));
	text = h_read_file(json);
	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON: %.300s", text);
	procs = jv_get(&doc, "processes");
	groups = jv_get(&doc, "process_groups");
	cr_assert(procs && groups);
	forgotten = u64_at(&doc, "forgotten.processes");
	for (size_t i = 0; i < procs->n; i++)
		listed += (uint64_t)resident(jv_get(&procs->items[i], "attributed"), false);
	for (size_t i = 0; i < groups->n; i++) {
		const struct jv *g = &groups->items[i];

		cr_expect_eq(jv_get(g, "pids")->n + u64_at(g, "forgotten"), u64_at(g, "processes"));
		grouped += u64_at(g, "processes");
		if (!strcmp(jv_get(g, "name")->text, "head"))
			heads = u64_at(g, "processes");
	}
	cr_expect_eq(grouped, 300 + 2, "every process counted in a group: %" PRIu64, grouped);
	/* a child gone before faultline saw its exec keeps the shell's name */
	cr_expect_geq(heads, 290, "runs of head counted: %" PRIu64, heads);
	cr_expect_geq(forgotten, 150, "%" PRIu64 " forgotten, %zu listed", forgotten, procs->n);
	cr_expect_eq(procs->n + forgotten, 300 + 2, "the heads, sh and sleep: %zu listed",
		     procs->n);
	h_folded_load_ok(s.folded_path, &f);
	cr_expect_eq(listed + (uint64_t)resident(jv_path(&doc, "forgotten.attributed"), false),
		     h_folded_total(&f),
		     "listed %" PRIu64 " + forgotten is not the folded %" PRIu64, listed,
		     h_folded_total(&f));
	h_folded_free(&f);
	jv_free(&doc);
	free(text);
}
