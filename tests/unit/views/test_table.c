/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"
#include "unit/model_builder.h"
#include "views/table.h"

#define MIB (1024ULL * 1024)

static void add(struct profile *p, const char *path, uint64_t anon, uint64_t faults)
{
	model_add_sep(p, path, ";", model_anon(anon, faults));
}

static struct table_opts opts(unsigned width, unsigned top, double min_share)
{
	return (struct table_opts){ .width = width,
				    .top = top,
				    .metric = FL_METRIC_RESIDENT,
				    .min_share = min_share };
}

static char *render(const struct fl_report *r, const struct profile *p, const struct table_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	table__render(f, r, p, o);
	fclose(f);
	return buf;
}

/* The line holding @needle, as a line number from 0, or -1. */
static int line_of(const char *text, const char *needle)
{
	const char *hit = strstr(text, needle), *s;
	int n = 0;

	if (!hit)
		return -1;
	for (s = text; s < hit; s++)
		n += *s == '\n';
	return n;
}

/* A copy of the line holding @needle (caller frees), or NULL. */
static char *line_with(const char *text, const char *needle)
{
	const char *hit = strstr(text, needle), *start, *end;

	if (!hit)
		return NULL;
	for (start = hit; start > text && start[-1] != '\n'; start--)
		;
	end = strchrnul(hit, '\n');
	return strndup(start, end - start);
}

/* The column where @needle starts in its line. */
static long column_of(const char *text, const char *needle)
{
	const char *hit = strstr(text, needle), *start;

	cr_assert_not_null(hit, "%s not in %s", needle, text);
	for (start = hit; start > text && start[-1] != '\n'; start--)
		;
	return hit - start;
}

static void check_width(const char *text, unsigned width)
{
	const char *s = text, *nl;
	int n = 0;

	while (*s) {
		nl = strchrnul(s, '\n');
		cr_assert_leq((size_t)(nl - s), width, "line %d is %zu wide (> %u): '%.*s'", n,
			      (size_t)(nl - s), width, (int)(nl - s), s);
		cr_assert_eq(*nl, '\n', "every line ends with a newline");
		s = nl + 1;
		n++;
	}
}

static struct profile *sample(void)
{
	struct profile *p = profile__new();

	add(p, "demo;main;alloc_big;memset", 64 * MIB, 16384);
	add(p, "demo;main;alloc_small;malloc", 16 * MIB, 700);
	add(p,
	    "demo;main;parse_config_with_a_name_long_enough_to_need_cutting_at_any_width_"
	    "(std::vector<std::string, std::allocator<std::string>> const&)",
	    8 * MIB, 500);
	add(p, "demo;worker;job", 12 * MIB, 30);
	profile__sort(p, FL_METRIC_RESIDENT);
	return p;
}

static struct fl_report report(void)
{
	return (struct fl_report){ .elapsed_s = 2.5 };
}

Test(table, width_respected_on_every_line)
{
	static const unsigned widths[] = { 20, 40, 60, 80, 100, 132, 200 };
	struct profile *p = sample();
	struct fl_proc_summary procs[1] = {
		{ .pid = 4194303, .comm = "a-very-long-nam", .alive = true },
	};
	struct fl_thread_summary th[30] = { 0 };
	struct fl_report r = report();
	struct table_opts o;
	size_t i;
	char *out;
	char deep[1024] = "demo";

	for (i = 0; i < 40; i++)
		strcat(deep, ";some_deep_function");
	add(p, deep, 1 * MIB, 1);
	for (i = 0; i < 30; i++) {
		th[i].tid = 100000 + i;
		snprintf(th[i].comm, sizeof(th[i].comm), "thread-num-%zu", i % 100);
		th[i].counts.grow[FL_ANON] = (30 - i) * 123456789ULL;
		th[i].counts.faults = 123456789;
	}
	procs[0].now.rss_anon = 5000 * MIB * 1024;
	procs[0].attributed.release[FL_FILE] = 77 * MIB;
	r.procs = procs;
	r.nprocs = 1;
	r.threads = th;
	r.nthreads = 30;
	r.note = "a note long enough to be cut at every width we try, and then some more words";
	for (i = 0; i < FL_DROP__COUNT; i++)
		r.drops[i] = 1000000 + i;
	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		o = opts(widths[i], 20, 0.01);
		o.threads = true;
		out = render(&r, p, &o);
		check_width(out, widths[i]);
		free(out);
	}
	/* 0 means unknown: 80. */
	o = opts(0, 20, 0.01);
	out = render(&r, p, &o);
	check_width(out, 80);
	cr_expect_neq(line_of(out, "parse_config_with_a_name"), -1);
	cr_expect_neq(line_of(out, "..."), -1);
	free(out);
	profile__free(p);
}

Test(table, heaviest_first_and_indented)
{
	struct profile *p = profile__new();
	struct fl_report r = report();
	struct table_opts o = opts(100, 20, 0);
	char *out, *l;

	/* Added lightest first and not sorted: the table orders by itself. */
	add(p, "demo;main;small", 1 * MIB, 1);
	add(p, "demo;main;big", 10 * MIB, 1);
	add(p, "demo;main;medium", 5 * MIB, 1);
	out = render(&r, p, &o);
	cr_assert_lt(line_of(out, " demo"), line_of(out, " main"));
	cr_assert_lt(line_of(out, " main"), line_of(out, " big"));
	cr_assert_lt(line_of(out, " big"), line_of(out, " medium"));
	cr_assert_lt(line_of(out, " medium"), line_of(out, " small"));
	/* Two columns of indentation per depth. */
	cr_expect_eq(column_of(out, " main") - column_of(out, " demo"), 2);
	cr_expect_eq(column_of(out, " big") - column_of(out, " main"), 2);
	cr_expect_eq(column_of(out, " small"), column_of(out, " big"));
	l = line_with(out, " big");
	cr_expect_not_null(strstr(l, "10.0 MiB"), "'%s'", l);
	free(l);
	free(out);
	profile__free(p);
}

Test(table, percent_bytes_and_bar)
{
	struct profile *p = profile__new();
	struct fl_report r = report();
	struct table_opts o = opts(80, 20, 0);
	char *out, *l;

	add(p, "demo;main;a", 3 * MIB, 7);
	add(p, "demo;main;b", 1 * MIB, 1);
	out = render(&r, p, &o);
	l = line_with(out, " a\n");
	cr_assert_not_null(l);
	cr_expect_not_null(strstr(l, "3.0 MiB"), "'%s'", l);
	cr_expect_not_null(strstr(l, " 75.0%"), "'%s'", l);
	cr_expect_not_null(strstr(l, " 7 "), "'%s'", l);
	/* 80 columns: a 10-column bar, 75% of it. */
	cr_expect_not_null(strstr(l, " ######## "), "'%s'", l);
	cr_expect_null(strstr(l, "#########"), "'%s'", l);
	free(l);
	l = line_with(out, " demo\n");
	cr_expect_not_null(strstr(l, "4.0 MiB 100.0%"), "'%s'", l);
	cr_expect_not_null(strstr(l, "##########"), "'%s'", l);
	free(l);
	free(out);
	profile__free(p);
}

Test(table, light_branches_collapse)
{
	struct profile *p = profile__new();
	struct fl_report r = report();
	struct table_opts o = opts(100, 20, 0.05);
	char *out, *l;
	char path[64];
	int i;

	add(p, "demo;main;heavy", 100 * MIB, 1);
	for (i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "demo;main;light%d", i);
		add(p, path, 1 * MIB, 2);
	}
	out = render(&r, p, &o);
	cr_expect_eq(line_of(out, "light"), -1, "%s", out);
	l = line_with(out, "[10 more]");
	cr_assert_not_null(l, "%s", out);
	cr_expect_not_null(strstr(l, "10.0 MiB"), "'%s'", l);
	cr_expect_not_null(strstr(l, " 20 "), "'%s'", l);
	/* At the children's depth, after the heavy sibling. */
	cr_expect_not_null(strstr(l, "    [10 more]"), "'%s'", l);
	cr_expect_gt(line_of(out, "[10 more]"), line_of(out, "heavy"));
	cr_expect_eq(line_of(out, "[other stacks]"), -1, "%s", out);
	free(l);
	free(out);
	/* No collapsing with min_share 0. */
	o.min_share = 0;
	out = render(&r, p, &o);
	cr_expect_neq(line_of(out, "light9"), -1);
	cr_expect_eq(line_of(out, "more]"), -1);
	free(out);
	profile__free(p);
}

Test(table, stacks_beyond_top_collapse)
{
	struct profile *p = profile__new();
	struct fl_report r = report();
	struct table_opts o = opts(100, 3, 0);
	char *out, *l;
	char path[64];
	int i;

	for (i = 1; i <= 6; i++) {
		snprintf(path, sizeof(path), "demo;main;f%d", i);
		add(p, path, (uint64_t)i * MIB, (uint64_t)i);
	}
	out = render(&r, p, &o);
	cr_expect_neq(line_of(out, " f6"), -1);
	cr_expect_neq(line_of(out, " f5"), -1);
	cr_expect_neq(line_of(out, " f4"), -1);
	cr_expect_eq(line_of(out, " f3"), -1);
	cr_expect_eq(line_of(out, " f1"), -1);
	l = line_with(out, "[other stacks]");
	cr_assert_not_null(l, "%s", out);
	cr_expect_not_null(strstr(l, "6.0 MiB"), "'%s'", l); /* 1 + 2 + 3 */
	cr_expect_not_null(strstr(l, " 28.6%"), "'%s'", l);  /* 6 / 21 */
	cr_expect_not_null(strstr(l, " 6 "), "'%s'", l);
	cr_expect_gt(line_of(out, "[other stacks]"), line_of(out, " f4"));
	free(l);
	free(out);
	profile__free(p);
}

/* A node whose children are all light still shows, with its "[N more]" line as one stack. */
Test(table, collapsed_group_counts_as_a_stack)
{
	struct profile *p = profile__new();
	struct fl_report r = report();
	struct table_opts o = opts(100, 2, 0.05);
	char *out, *l;
	char path[64];
	int i;

	add(p, "demo;main;heavy", 60 * MIB, 1);
	add(p, "demo;main;second", 20 * MIB, 1);
	add(p, "demo;main;third", 10 * MIB, 1);
	for (i = 0; i < 30; i++) {
		snprintf(path, sizeof(path), "demo;worker;job%d", i);
		add(p, path, 1 * MIB, 1);
	}
	out = render(&r, p, &o);
	/* Ends: heavy 60, worker's group 30, second 20, third 10: the top 2 are shown. */
	cr_expect_neq(line_of(out, " heavy"), -1, "%s", out);
	cr_expect_neq(line_of(out, " worker"), -1, "%s", out);
	l = line_with(out, "[30 more]");
	cr_assert_not_null(l, "%s", out);
	cr_expect_not_null(strstr(l, "30.0 MiB"), "'%s'", l);
	free(l);
	cr_expect_eq(line_of(out, " second"), -1, "%s", out);
	l = line_with(out, "[other stacks]");
	cr_assert_not_null(l, "%s", out);
	cr_expect_not_null(strstr(l, "30.0 MiB  25.0%"), "'%s'", l);
	free(l);
	free(out);
	profile__free(p);
}

Test(table, empty_profile)
{
	struct profile *p = profile__new();
	struct fl_report r = report();
	struct table_opts o = opts(80, 20, 0.01);
	char *out = render(&r, p, &o);

	cr_expect_neq(line_of(out, "(no growth attributed yet)"), -1, "%s", out);
	cr_expect_neq(line_of(out, "drops: none"), -1, "%s", out);
	free(out);
	profile__free(p);
}

/* --every: a line per endpoint under the drops, the last failure's words on it. */
Test(table, endpoints_windows)
{
	struct profile *p = sample();
	struct fl_report r = report();
	struct table_opts o = opts(200, 20, 0.01);
	char *out, *l;

	r.endpoints[0] = (struct report_endpoint){ .option = "--otlp",
						   .url = "http://c:4318",
						   .sent = 12,
						   .lost = 3,
						   .waiting = 2 };
	snprintf(r.endpoints[0].last_error, sizeof(r.endpoints[0].last_error), "%s",
		 "connection refused");
	r.endpoints[1] = (struct report_endpoint){ .option = "--pyroscope",
						   .url = "http://p:4040",
						   .sent = 15 };
	r.nendpoints = 2;
	out = render(&r, p, &o);
	l = line_with(out, "--otlp");
	cr_assert_not_null(l, "%s", out);
	cr_expect_str_eq(l, "--otlp http://c:4318: windows sent 12, lost 3, waiting 2; last "
			    "failure: connection refused");
	free(l);
	l = line_with(out, "--pyroscope");
	cr_assert_not_null(l, "%s", out);
	cr_expect_str_eq(l, "--pyroscope http://p:4040: windows sent 15, lost 0, waiting 0");
	free(l);
	free(out);
	profile__free(p);
}

Test(table, drops_note_and_final)
{
	struct profile *p = sample();
	struct fl_report r = report();
	struct table_opts o = opts(120, 20, 0.01);
	char *out, *l;

	r.drops[FL_DROP_STACKS_FULL] = 3;
	r.drops[FL_DROP_TASK_STORAGE] = 9;
	r.note = "kernel batches rss counters";
	r.final = true;
	out = render(&r, p, &o);
	l = line_with(out, "drops:");
	cr_assert_not_null(l);
	cr_expect_str_eq(l, "drops: stacks map full 3, task storage 9");
	cr_expect_eq(line_of(out, "drops: none"), -1);
	cr_expect_neq(line_of(out, "note: kernel batches rss counters"), -1);
	cr_expect_eq(line_of(out, "final report"), 0, "%s", out);
	free(l);
	free(out);
	r.final = false;
	out = render(&r, p, &o);
	cr_expect_eq(line_of(out, "final"), -1, "%s", out);
	free(out);
	profile__free(p);
}

Test(table, process_figures)
{
	struct profile *p = sample();
	struct fl_proc_summary s = { .pid = 42, .comm = "demo", .alive = true };
	struct fl_report r = report();
	struct table_opts o = opts(100, 20, 0.01);
	char *out, *l;

	s.at_attach.rss_anon = 10 * MIB;
	s.at_attach.rss_file = 20 * MIB;
	s.now.rss_anon = 100 * MIB;
	s.now.rss_file = 15 * MIB;
	s.now.rss_shmem = 1 * MIB;
	s.attributed.grow[FL_ANON] = 95 * MIB;
	s.attributed.release[FL_ANON] = 8 * MIB;
	s.attributed.release[FL_FILE] = 5 * MIB;
	r.procs = &s;
	r.nprocs = 1;
	out = render(&r, p, &o);
	cr_expect_neq(line_of(out, "pid 42 demo (alive)"), -1, "%s", out);
	l = line_with(out, "rss now");
	cr_expect_not_null(strstr(l, "100.0 MiB   15.0 MiB    1.0 MiB  116.0 MiB"), "'%s'", l);
	free(l);
	l = line_with(out, "kernel change");
	cr_expect_not_null(strstr(l, "+90.0 MiB   -5.0 MiB   +1.0 MiB  +86.0 MiB"), "'%s'", l);
	free(l);
	l = line_with(out, "faultline growth");
	cr_expect_not_null(strstr(l, "95.0 MiB        0 B        0 B   95.0 MiB"), "'%s'", l);
	free(l);
	l = line_with(out, "faultline released");
	cr_expect_not_null(strstr(l, "8.0 MiB    5.0 MiB        0 B   13.0 MiB"), "'%s'", l);
	free(l);
	l = line_with(out, "gap");
	/* anon 90 - (95 - 8) = 3; file -5 - (0 - 5) = 0; shmem 1. */
	cr_expect_not_null(strstr(l, "+3.0 MiB       +0 B   +1.0 MiB   +4.0 MiB"), "'%s'", l);
	free(l);
	l = line_with(out, "rss at attach");
	cr_expect_not_null(strstr(l, "10.0 MiB   20.0 MiB        0 B   30.0 MiB"), "'%s'", l);
	free(l);
	free(out);
	/* swap: the kernel's VmSwap change against the swap entries faultline saw */
	s.at_attach.vm_swap = 2 * MIB;
	s.now.vm_swap = 6 * MIB;
	s.attributed.grow[FL_SWAP] = 5 * MIB;
	s.attributed.release[FL_SWAP] = 2 * MIB;
	out = render(&r, p, &o);
	l = line_with(out, "swap:");
	cr_expect_str_eq(l, "  swap: VmSwap change +4.0 MiB, faultline +3.0 MiB, gap +1.0 MiB");
	free(l);
	l = line_with(out, "status at attach");
	cr_expect_not_null(strstr(l, "        0 B    2.0 MiB        0 B        0 B"), "'%s'", l);
	free(l);
	free(out);
	/* smaps_rollup is read at a pace: its row says how old it is, once it is a second old */
	s.at_attach.have_pss = s.now.have_pss = true;
	s.now.pss = 3 * MIB;
	s.rollup_age_ns = 400000000;
	out = render(&r, p, &o);
	cr_expect_neq(line_of(out, "  smaps_rollup now              3.0 MiB        0 B        0 B "
				   "       0 B"),
		      -1, "%s", out);
	free(out);
	s.rollup_age_ns = 12400000000;
	out = render(&r, p, &o);
	cr_expect_neq(line_of(out, "  smaps_rollup 12s ago          3.0 MiB        0 B        0 B "
				   "       0 B"),
		      -1, "%s", out);
	free(out);
	s.alive = false;
	out = render(&r, p, &o);
	cr_expect_neq(line_of(out, "pid 42 demo (exited)"), -1, "%s", out);
	free(out);
	/* a launched command: how it ended, on a line of its own when the label is too long */
	s.have_exit = true;
	s.exit_signal = SIGKILL;
	out = render(&r, p, &o);
	cr_expect_neq(line_of(out, "pid 42 demo (killed by SIGKILL)"), -1, "%s", out);
	free(out);
	s.exit_signal = 0;
	s.exit_code = 3;
	out = render(&r, p, &o);
	cr_expect_neq(line_of(out, "pid 42 demo (exited with status 3)"), -1, "%s", out);
	free(out);
	profile__free(p);
}

/* A child -f followed was not there at attach: every row says where its figures start. */
Test(table, followed_child_first_seen)
{
	struct profile *p = sample();
	struct fl_proc_summary s = { .pid = 43,
				     .comm = "demo",
				     .alive = true,
				     .followed = true,
				     .since = SINCE_FORK };
	struct fl_report r = report();
	struct table_opts o = opts(100, 20, 0.01);
	char *out;

	s.at_attach.have_pss = s.now.have_pss = true;
	s.now.pss_anon = 2 * MIB;
	s.peak = 3 * MIB;
	r.procs = &s;
	r.nprocs = 1;
	out = render(&r, p, &o);
	cr_expect_null(strstr(out, "attach"), "%s", out);
	cr_expect_neq(line_of(out, "  rss first seen (fork) "), -1, "%s", out);
	cr_expect_neq(line_of(out, "  kernel change since fork "), -1, "%s", out);
	cr_expect_neq(line_of(out, "  peak rss since fork "), -1, "%s", out);
	cr_expect_neq(line_of(out, "  status first seen "), -1, "%s", out);
	cr_expect_neq(line_of(out, "  smaps_rollup first seen "), -1, "%s", out);
	cr_expect_neq(line_of(out, "private cost (Pss_Anon + VmPTE) 2.0 MiB, +2.0 MiB since first "
				   "seen"),
		      -1, "%s", out);
	free(out);
	/* --cgroup found it as it moved in: its figures start there, not at a fork */
	s.since = SINCE_JOINED;
	out = render(&r, p, &o);
	cr_expect_null(strstr(out, "fork"), "%s", out);
	cr_expect_neq(line_of(out, "  rss first seen (joined) "), -1, "%s", out);
	cr_expect_neq(line_of(out, "  kernel change since joined "), -1, "%s", out);
	cr_expect_neq(line_of(out, "  peak rss since joined "), -1, "%s", out);
	free(out);
	profile__free(p);
}

Test(table, threads_table)
{
	struct profile *p = sample();
	struct fl_thread_summary th[25] = { 0 };
	struct fl_report r = report();
	struct table_opts o = opts(100, 20, 0.01);
	char *out, *l;
	int i;

	for (i = 0; i < 25; i++) {
		th[i].tid = 1000 + i;
		snprintf(th[i].comm, sizeof(th[i].comm), "w%d", i);
		th[i].counts.grow[FL_ANON] = (uint64_t)(25 - i) * MIB;
		th[i].counts.grow[FL_FILE] = MIB / 2;
		th[i].counts.release[FL_ANON] = 2048;
		th[i].counts.faults = 10 + i;
	}
	snprintf(th[3].comm, sizeof(th[3].comm), "bad\nname");
	r.threads = th;
	r.nthreads = 25;
	out = render(&r, p, &o);
	cr_expect_eq(line_of(out, "TID"), -1, "no thread table without -T");
	free(out);
	o.threads = true;
	out = render(&r, p, &o);
	cr_expect_lt(line_of(out, "TID"), line_of(out, "STACK"));
	l = line_with(out, " w0 ");
	cr_assert_not_null(l, "%s", out);
	cr_expect_not_null(strstr(l, "1000 w0"), "'%s'", l);
	cr_expect_not_null(strstr(l, "25.5 MiB  25.0 MiB 512.0 KiB       0 B   2.0 KiB        10"),
			   "'%s'", l);
	free(l);
	cr_expect_neq(line_of(out, " w19 "), -1);
	cr_expect_eq(line_of(out, " w20 "), -1);
	cr_expect_neq(line_of(out, "[5 more threads]"), -1, "%s", out);
	cr_expect_neq(line_of(out, "bad?name"), -1, "%s", out);
	free(out);
	/* --vm: the last three columns are the memory calls' */
	th[0].counts.reserved = 3 * MIB;
	th[0].counts.unmapped = MIB;
	th[0].counts.vm_calls = 7;
	r.vm = true;
	out = render(&r, p, &o);
	cr_expect_neq(line_of(out, "RESERVED  UNMAPPED     CALLS"), -1, "%s", out);
	l = line_with(out, " w0 ");
	cr_expect_not_null(strstr(l, "25.5 MiB  25.0 MiB 512.0 KiB   3.0 MiB   1.0 MiB         7"),
			   "'%s'", l);
	free(l);
	free(out);
	profile__free(p);
}

Test(table, faults_metric_plain_counts)
{
	struct profile *p = sample();
	struct fl_report r = report();
	struct table_opts o = opts(100, 20, 0.01);
	char *out, *l;

	o.metric = FL_METRIC_FAULTS;
	out = render(&r, p, &o);
	cr_expect_neq(line_of(out, "FAULTS"), -1);
	l = line_with(out, " memset");
	cr_expect_not_null(strstr(l, "     16384  93.0%     16384"), "'%s'", l);
	free(l);
	free(out);
	profile__free(p);
}

Test(units, bytes)
{
	char b[UNITS_BUF];

	cr_expect_str_eq(units__bytes(b, sizeof(b), 0), "0 B");
	cr_expect_str_eq(units__bytes(b, sizeof(b), 999), "999 B");
	cr_expect_str_eq(units__bytes(b, sizeof(b), 1000), "1.0 KiB");
	cr_expect_str_eq(units__bytes(b, sizeof(b), 1536), "1.5 KiB");
	cr_expect_str_eq(units__bytes(b, sizeof(b), 1023 * 1024), "1.0 MiB");
	cr_expect_str_eq(units__bytes(b, sizeof(b), 999 * 1024), "999.0 KiB");
	cr_expect_str_eq(units__bytes(b, sizeof(b), 64 * MIB), "64.0 MiB");
	cr_expect_str_eq(units__bytes(b, sizeof(b), 3 * 1024 * MIB), "3.0 GiB");
	cr_expect_str_eq(units__bytes(b, sizeof(b), UINT64_MAX), "17179869184.0 GiB");
	cr_expect_str_eq(units__sbytes(b, sizeof(b), 0), "+0 B");
	cr_expect_str_eq(units__sbytes(b, sizeof(b), -1536), "-1.5 KiB");
	cr_expect_str_eq(units__sbytes(b, sizeof(b), 2 * (int64_t)MIB), "+2.0 MiB");
	cr_expect_str_eq(units__sbytes(b, sizeof(b), INT64_MIN), "-8589934592.0 GiB");
	cr_expect_str_eq(units__value(b, sizeof(b), 123456, false), "123456");
	cr_expect_str_eq(units__value(b, sizeof(b), 2048, true), "2.0 KiB");
}

Test(units, fit)
{
	char s[64];

	snprintf(s, sizeof(s), "abcdef");
	units__fit(s, 6);
	cr_expect_str_eq(s, "abcdef");
	units__fit(s, 5);
	cr_expect_str_eq(s, "ab...");
	snprintf(s, sizeof(s), "ab\xc3\xa9\xc3\xa9xyz"); /* "abééxyz": no half character */
	units__fit(s, 7);
	cr_expect_str_eq(s, "ab\xc3\xa9...");
	units__fit(s, 2);
	cr_expect_str_eq(s, "ab");
}
