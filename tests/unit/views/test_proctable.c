/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The per-process table: order by metric, the cut with its "... N more" line, the figures. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "views/proctable.h"
#include "views/table.h"

#define MIB (1024ULL * 1024)

static struct fl_proc_summary proc(pid_t pid, const char *comm, bool alive, uint64_t anon,
				   uint64_t faults)
{
	struct fl_proc_summary s = { .pid = pid, .alive = alive };

	snprintf(s.comm, sizeof(s.comm), "%s", comm);
	s.attributed.grow[FL_ANON] = anon;
	s.attributed.faults = faults;
	/* the kernel moved as faultline saw it, from 10 MiB */
	s.at_attach.rss_anon = 10 * MIB;
	s.now.rss_anon = 10 * MIB + anon;
	s.now.have_pss = true;
	s.now.pss_anon = anon;
	s.now.vm_pte = 64 * 1024;
	return s;
}

static char *render(const struct fl_proc_summary *p, size_t n, enum fl_metric m, size_t max)
{
	size_t order[16];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(proctable__order(p, n, m, order), 0);
	proctable__render(f, 100, p, order, n, m, max);
	fclose(f);
	return buf;
}

Test(proctable, order_by_metric_heaviest_first)
{
	struct fl_proc_summary p[4] = {
		proc(10, "small", true, 1 * MIB, 900),
		proc(11, "big", true, 32 * MIB, 10),
		proc(12, "mid", true, 8 * MIB, 50),
		proc(13, "gone", false, 8 * MIB, 50),
	};
	size_t order[4];

	cr_assert_eq(proctable__order(p, 4, FL_METRIC_ANON, order), 0);
	cr_expect_eq(order[0], 1);
	cr_expect_eq(order[1], 2, "equal weights: the live one first");
	cr_expect_eq(order[2], 3);
	cr_expect_eq(order[3], 0);
	cr_assert_eq(proctable__order(p, 4, FL_METRIC_FAULTS, order), 0);
	cr_expect_eq(order[0], 0, "by faults, the small one leads");
	cr_expect_eq(order[3], 1);
}

Test(proctable, ties_by_pid)
{
	struct fl_proc_summary p[3] = {
		proc(30, "c", true, MIB, 0),
		proc(10, "a", true, MIB, 0),
		proc(20, "b", true, MIB, 0),
	};
	size_t order[3];

	cr_assert_eq(proctable__order(p, 3, FL_METRIC_RESIDENT, order), 0);
	cr_expect_eq(p[order[0]].pid, 10);
	cr_expect_eq(p[order[1]].pid, 20);
	cr_expect_eq(p[order[2]].pid, 30);
}

Test(proctable, peak_uses_the_process_peak)
{
	struct fl_proc_summary p[2] = { proc(1, "a", true, 8 * MIB, 0),
					proc(2, "b", true, 1 * MIB, 0) };

	p[1].peak = 64 * MIB;
	cr_expect_eq(proctable__weight(&p[1], FL_METRIC_PEAK), 64 * MIB);
	cr_expect_eq(proctable__weight(&p[0], FL_METRIC_RESIDENT), 8 * MIB);
}

Test(proctable, lines_and_figures)
{
	struct fl_proc_summary p[2] = { proc(4242, "postgres", true, 32 * MIB, 0),
					proc(4243, "postgres", false, 8 * MIB, 0) };
	char *out, *line;

	p[1].attributed.release[FL_ANON] = 2 * MIB;
	p[1].now.rss_anon -= 2 * MIB; /* the kernel saw the release too: no gap */
	out = render(p, 2, FL_METRIC_RESIDENT, 0);
	cr_expect(strstr(out, "processes by resident: 2, 1 alive"), "%s", out);
	cr_expect(strstr(out, "    PID NAME          STATE       ANON"), "%s", out);
	line = strstr(out, "   4242 postgres      alive   32.0 MiB");
	cr_assert(line, "%s", out);
	cr_expect(!strncmp(line + 38,
			   "       0 B       0 B       0 B  +32.0 MiB       +0 B  32.1 MiB\n", 63),
		  "%s", line);
	line = strstr(out, "   4243 postgres      exited   8.0 MiB       0 B       0 B   2.0 MiB");
	cr_assert(line, "%s", out);
	cr_expect(strstr(line, "+6.0 MiB       +0 B"), "%s", line);
	cr_expect(strstr(out, "4242") < strstr(out, "4243"), "heaviest first");
	cr_expect_null(strstr(out, "more processes"));
	for (char *s = out, *nl; (nl = strchr(s, '\n')); s = nl + 1)
		cr_expect_leq(nl - s, 100, "line wider than 100: %.*s", (int)(nl - s), s);
	free(out);
}

Test(proctable, gap_and_unknown_figures)
{
	struct fl_proc_summary p[2] = { proc(1, "a", true, 4 * MIB, 0),
					proc(2, "quick", false, 2 * MIB, 0) };
	char *out, *line;

	p[0].now.rss_anon += MIB; /* the kernel grew 1 MiB more than faultline saw */
	p[0].now.have_pss = false;
	p[1].no_status = true;
	out = render(p, 2, FL_METRIC_RESIDENT, 0);
	line = strstr(out, "      1 a ");
	cr_assert(line, "%s", out);
	cr_expect(strstr(line, "+5.0 MiB   +1.0 MiB         -\n"), "%s", line);
	line = strstr(out, "      2 quick ");
	cr_assert(line, "%s", out);
	cr_expect(strstr(line, "0 B          -          -         -\n"), "%s", line);
	free(out);
}

Test(proctable, cut_with_more_line)
{
	struct fl_proc_summary p[12];
	char *out;
	int lines = 0;

	for (int i = 0; i < 12; i++)
		p[i] = proc(100 + i, "backend", true, (uint64_t)(i + 1) * MIB, 0);
	out = render(p, 12, FL_METRIC_RESIDENT, 5);
	cr_expect(strstr(out, "... 7 more processes\n"), "%s", out);
	cr_expect(strstr(out, "    111 backend"), "the heaviest is shown: %s", out);
	cr_expect_null(strstr(out, "    100 backend"), "the lightest is cut: %s", out);
	for (char *s = out; *s; s++)
		lines += *s == '\n';
	cr_expect_eq(lines, 2 + 5 + 1, "%s", out);
	free(out);
	out = render(p, 12, FL_METRIC_RESIDENT, 0);
	cr_expect_null(strstr(out, "more processes"), "0: all of them");
	cr_expect(strstr(out, "    100 backend"), "%s", out);
	free(out);
}

/* Through table__render: one process keeps its detailed block; several get the table and the
 * detailed block of the heaviest three only; the live view cuts, the final report does not. */
static char *render_table(const struct fl_proc_summary *p, size_t n, bool final)
{
	struct fl_report r = { .procs = p, .nprocs = n, .final = final };
	struct table_opts o = { .width = 100, .top = 5, .metric = FL_METRIC_RESIDENT };
	struct profile *prof = profile__new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(prof && f);
	table__render(f, &r, prof, &o);
	fclose(f);
	profile__free(prof);
	return buf;
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *s = text; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

Test(proctable, table_details_top_three)
{
	struct fl_proc_summary p[14];
	char *out;

	for (int i = 0; i < 14; i++)
		p[i] = proc(200 + i, "backend", true, (uint64_t)(i + 1) * MIB, 0);
	out = render_table(p, 1, false);
	cr_expect_null(strstr(out, "processes by"), "one process: no table\n%s", out);
	cr_expect_eq(count(out, "kernel change since attach"), 1, "%s", out);
	free(out);

	out = render_table(p, 14, false);
	cr_expect(strstr(out, "processes by resident: 14, 14 alive"), "%s", out);
	cr_expect(strstr(out, "... 4 more processes"), "live: cut at 10\n%s", out);
	cr_expect_eq(count(out, "kernel change since attach"), 3, "%s", out);
	cr_expect(strstr(out, "pid 213 backend (alive)"), "the heaviest in detail\n%s", out);
	cr_expect_null(strstr(out, "pid 210 backend"), "the fourth not in detail\n%s", out);
	free(out);

	out = render_table(p, 14, true);
	cr_expect(strstr(out, "backend             14     14      0"), "final: by executable\n%s",
		  out);
	cr_expect(strstr(out, "    213 backend"), "the costliest listed\n%s", out);
	cr_expect(strstr(out, "[11 more backend processes]"), "%s", out);
	cr_expect_null(strstr(out, "    200 backend"), "the whole list is JSON's\n%s", out);
	free(out);
}

/* Four backends that each mapped 64 MiB of shared memory: one line under the table. */
Test(proctable, shared_pages_note)
{
	struct fl_proc_summary p[4];
	char *out;

	for (int i = 0; i < 4; i++) {
		p[i] = proc(300 + i, "backend", true, 2 * MIB, 0);
		p[i].at_attach.have_pss = true;
		p[i].now.rss_shmem = 64 * MIB;
		p[i].attributed.grow[FL_SHMEM] = 64 * MIB;
		p[i].now.pss = 2 * MIB + 16 * MIB;
	}
	for (int final = 0; final < 2; final++) {
		out = render_table(p, 4, final);
		cr_expect(strstr(out, "note: shared pages count in each process: RSS +264.0 MiB, "
				      "PSS +72.0 MiB; see --metric new and PSS\n"),
			  "%s", out);
		free(out);
	}
	for (int i = 0; i < 4; i++)
		p[i].now.pss += 48 * MIB; /* each one's own: nothing shared */
	out = render_table(p, 4, true);
	cr_expect_null(strstr(out, "shared pages"), "%s", out);
	free(out);
}
