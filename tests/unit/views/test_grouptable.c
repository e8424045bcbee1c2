/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The final process table by executable: rows, the costliest few, the "[N more ...]" lines. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "views/grouptable.h"
#include "views/proctable.h"

#define MIB (1024ULL * 1024)

static struct fl_proc_summary proc(pid_t pid, const char *comm, bool alive, uint64_t cost,
				   uint64_t growth)
{
	struct fl_proc_summary s = { .pid = pid, .alive = alive };

	snprintf(s.comm, sizeof(s.comm), "%s", comm);
	s.attributed.grow[FL_ANON] = growth;
	s.now.rss_anon = growth;
	s.now.have_pss = true;
	s.now.pss_anon = cost;
	return s;
}

static char *render_by(const struct fl_proc_summary *p, size_t n, size_t groups, size_t per,
		       enum fl_metric m)
{
	struct proc_groups g;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(proc_groups__build(p, n, NULL, &g), 0);
	grouptable__render(f, 100, p, n, &g, m, groups, per);
	proc_groups__free(&g);
	fclose(f);
	return buf;
}

static char *render(const struct fl_proc_summary *p, size_t n, size_t groups, size_t per)
{
	return render_by(p, n, groups, per, FL_METRIC_RESIDENT);
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *s = text; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/* 43 backends and their postmaster, a checkpointer, two psql: four lines for postgres. */
Test(grouptable, backends_summarized)
{
	struct fl_proc_summary p[47];
	char *out;

	p[0] = proc(1000, "postgres", true, 20 * MIB, 1 * MIB);
	for (int i = 1; i <= 43; i++)
		p[i] = proc(1000 + i, "postgres", i % 10 != 0, (uint64_t)(1 + i % 3) * MIB / 2,
			    100 * MIB);
	p[44] = proc(2000, "checkpointer", true, 1 * MIB, 0);
	p[45] = proc(3000, "psql", false, 3 * MIB, 4 * MIB);
	p[46] = proc(3001, "psql", false, 3 * MIB, 4 * MIB);
	out = render(p, 47, 10, 3);
	cr_expect(strstr(out, "processes by resident: 47, 41 alive"), "%s", out);
	cr_expect(strstr(out, "executables by private cost: 3 ("), "%s", out);
	cr_expect(strstr(out,
			 "NAME             PROCS  ALIVE UNREAD     GROWTH    PRIVATE     MEDIAN\n"),
		  "%s", out);
	/* 20 MiB, then 15 of 1 MiB, 14 of 1.5 MiB, 14 of 0.5 MiB */
	cr_expect(strstr(out,
			 "postgres            44     40      0    4.2 GiB   63.0 MiB    1.0 MiB\n"),
		  "%s", out);
	cr_expect(strstr(out,
			 "psql                 2      0      0    8.0 MiB    6.0 MiB    3.0 MiB\n"),
		  "%s", out);
	cr_expect(strstr(out, "postgres ") < strstr(out, "psql ") &&
			  strstr(out, "psql ") < strstr(out, "checkpointer "),
		  "by total private cost\n%s", out);
	cr_expect(strstr(out, "   1000 postgres      alive"), "the postmaster, costliest\n%s", out);
	cr_expect(strstr(out, "        [41 more postgres processes]\n"), "%s", out);
	cr_expect_eq(count(out, " postgres      "), 3, "the costliest three\n%s", out);
	cr_expect_null(strstr(out, "more psql"), "both psql listed\n%s", out);
	cr_expect_null(strstr(out, "more executables"), "%s", out);
	for (char *s = out, *nl; (nl = strchr(s, '\n')); s = nl + 1)
		cr_expect_leq(nl - s, 100, "line wider than 100: %.*s", (int)(nl - s), s);
	free(out);
}

/* A build: more executables than the bound, one of them never read. */
Test(grouptable, executables_bounded)
{
	static const char *const names[] = { "make", "sh", "gcc", "cc1", "as", "collect2", "ld" };
	struct fl_proc_summary p[70];
	char *out;

	for (int i = 0; i < 70; i++)
		p[i] = proc(100 + i, names[i % 7], false, (uint64_t)(i % 7 + 1) * MIB, MIB);
	for (int i = 6; i < 70; i += 7)
		p[i].no_status = true; /* every ld gone before it was read */
	out = render(p, 70, 3, 2);
	cr_expect(strstr(out,
			 "collect2            10      0      0   10.0 MiB   60.0 MiB    6.0 MiB\n"),
		  "%s", out);
	cr_expect(strstr(out, "[4 more executables: 40 processes, 0 alive, growth 40.0 MiB, "
			      "private 60.0 MiB]\n"),
		  "%s", out);
	cr_expect_eq(count(out, "[8 more "), 3, "%s", out);
	cr_expect_null(strstr(out, " ld "), "ld cut\n%s", out);
	free(out);
	out = render(p, 70, 0, 0);
	cr_expect(strstr(out,
			 "ld                  10      0     10   10.0 MiB          -          -\n"),
		  "never read: its cost is unknown, not 0\n%s", out);
	cr_expect_null(strstr(out, " more "), "0: everything\n%s", out);
	free(out);
}

/* --metric new: 8 children that each mapped 64 MiB of shared memory and wrote 2 MiB: the
 * group's NEW is what the machine paid (16 MiB), and each line's NEW stands where RELEASED
 * does otherwise. */
Test(grouptable, new_memory_where_growth_overstates)
{
	struct fl_proc_summary p[8];
	char *out;

	for (int i = 0; i < 8; i++) {
		p[i] = proc(100 + i, "sharedkids", false, 2 * MIB, 66 * MIB);
		p[i].attributed.new_bytes = 2 * MIB;
	}
	out = render_by(p, 8, 10, 3, FL_METRIC_NEW);
	cr_expect(strstr(out,
			 "NAME             PROCS  ALIVE UNREAD        NEW    PRIVATE     MEDIAN\n"),
		  "%s", out);
	cr_expect(strstr(out,
			 "sharedkids           8      0      0   16.0 MiB   16.0 MiB    2.0 MiB\n"),
		  "%s", out);
	cr_expect(strstr(out, "  SHMEM       NEW   KERNEL-D"), "%s", out);
	free(out);
}
