// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "views/proctable.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"
#include "model/sharedpages.h"

#define NAME_COLS 13 /* PID, NAME, STATE and seven figures make 100 columns */

uint64_t proctable__weight(const struct fl_proc_summary *s, enum fl_metric m)
{
	if (m == FL_METRIC_PEAK)
		return s->peak > 0 ? (uint64_t)s->peak : 0;
	return metric__value(&s->attributed, m);
}

struct order_ctx {
	const struct fl_proc_summary *procs;
	enum fl_metric m;
};

static int cmp_order(const void *a, const void *b, void *arg)
{
	const struct order_ctx *c = arg;
	const struct fl_proc_summary *x = &c->procs[*(const size_t *)a];
	const struct fl_proc_summary *y = &c->procs[*(const size_t *)b];
	uint64_t wx = proctable__weight(x, c->m), wy = proctable__weight(y, c->m);

	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (x->alive != y->alive)
		return x->alive ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int proctable__order(const struct fl_proc_summary *procs, size_t n, enum fl_metric m, size_t *order)
{
	struct order_ctx c = { .procs = procs, .m = m };

	if (n && !order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (n > 1) /* @order may be NULL when n is 0 */
		qsort_r(order, n, sizeof(*order), cmp_order, &c);
	return 0;
}

void proctable__line(FILE *out, unsigned width, const struct fl_proc_summary *s, enum fl_metric m)
{
	const struct fl_counts *c = &s->attributed;
	char b[7][UNITS_BUF], name[FL_COMM_LEN + 4];
	int64_t kern[FL_MEMBERS], gap[FL_MEMBERS];

	proc_summary__reconcile(s, kern, gap);

	snprintf(name, sizeof(name), "%.*s", FL_COMM_LEN, s->comm[0] ? s->comm : "?");
	units__sanitize(name);
	units__fit(name, NAME_COLS);
	units__bytes(b[0], UNITS_BUF, c->grow[FL_ANON]);
	units__bytes(b[1], UNITS_BUF, c->grow[FL_FILE]);
	units__bytes(b[2], UNITS_BUF, c->grow[FL_SHMEM]);
	/* what the machine paid, beside what each process's RSS counted */
	units__bytes(b[3], UNITS_BUF,
		     metric__value(c, m == FL_METRIC_NEW ? FL_METRIC_NEW : FL_METRIC_RELEASED));
	if (!proc_summary__reconciled(s)) {
		strcpy(b[4], "-");
		strcpy(b[5], "-");
	} else {
		units__sbytes(b[4], UNITS_BUF, kern[FL_ANON] + kern[FL_FILE] + kern[FL_SHMEM]);
		units__sbytes(b[5], UNITS_BUF, gap[FL_ANON] + gap[FL_FILE] + gap[FL_SHMEM]);
	}
	if (s->no_status || !s->now.have_pss)
		strcpy(b[6], "-");
	else
		units__bytes(b[6], UNITS_BUF, proc_status__private_cost(&s->now));
	units__emit(out, width, "%7d %-*s %-6s %9s %9s %9s %9s %10s %10s %9s", (int)s->pid,
		    NAME_COLS, name, s->alive ? "alive" : "exited", b[0], b[1], b[2], b[3], b[4],
		    b[5], b[6]);
}

void proctable__title(FILE *out, unsigned width, const struct fl_proc_summary *procs, size_t n,
		      enum fl_metric m)
{
	size_t alive = 0;

	for (size_t i = 0; i < n; i++)
		alive += procs[i].alive;
	units__emit(out, width,
		    "processes by %s: %zu, %zu alive (growth since attach or fork; "
		    "KERNEL-D: RSS change; PRIVATE: Pss_Anon+VmPTE)",
		    metric__name(m), n, alive);
}

void proctable__heads(FILE *out, unsigned width, enum fl_metric m)
{
	units__emit(out, width, "%7s %-*s %-6s %9s %9s %9s %9s %10s %10s %9s", "PID", NAME_COLS,
		    "NAME", "STATE", "ANON", "FILE", "SHMEM",
		    m == FL_METRIC_NEW ? "NEW" : "RELEASED", "KERNEL-D", "GAP", "PRIVATE");
}

void proctable__render(FILE *out, unsigned width, const struct fl_proc_summary *procs,
		       const size_t *order, size_t n, enum fl_metric m, size_t max_lines)
{
	size_t shown = max_lines && max_lines < n ? max_lines : n;

	proctable__title(out, width, procs, n, m);
	proctable__heads(out, width, m);
	for (size_t i = 0; i < shown; i++)
		proctable__line(out, width, &procs[order[i]], m);
	if (shown < n)
		units__emit(out, width, "... %zu more processes", n - shown);
}

void proctable__render_shared(FILE *out, unsigned width, const struct fl_proc_summary *procs,
			      size_t n)
{
	struct shared_pages s;
	char rss[UNITS_BUF], pss[UNITS_BUF];

	shared_pages__sum(procs, n, &s);
	if (shared_pages__likely(&s)) {
		units__bytes(rss, sizeof(rss), s.shareable_growth);
		units__bytes(pss, sizeof(pss), s.growth);
		units__emit(
			out, width,
			"note: file and shmem pages count in each process that maps them: %s of "
			"the %s growth, in %zu processes; see --metric new and PSS",
			rss, pss, s.shareable_procs);
		return;
	}
	if (!shared_pages__overstated(&s))
		return;
	units__sbytes(rss, sizeof(rss), s.rss_change);
	units__sbytes(pss, sizeof(pss), s.pss_change);
	units__emit(out, width,
		    "note: shared pages count in each process: RSS %s, PSS %s; see --metric new "
		    "and PSS",
		    rss, pss);
}
