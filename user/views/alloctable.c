// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * The --alloc part of the table: per process the heap since attach and what the allocator
 * retains beyond it; the allocation sites with live blocks, their ages and latencies; in the
 * final report the size and latency histograms of the heaviest sites. --alloc=churn has the
 * calls and the bytes asked alone, and says so.
 */
#include "views/alloctable.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "alloc_math.h"
#include "base/units.h"
#include "model/inventory.h"
#include "model/retention.h"

#define MAX_SITE_ROWS 15
#define HIST_SITES 3

static uint64_t live_of(const struct fl_counts *c, bool bytes)
{
	return metric__value(c, bytes ? FL_METRIC_LIVE_BYTES : FL_METRIC_LIVE_COUNT);
}

/* Calls per second over the session so far; under --sample-time, over the time the probes
 * were in (what the counts are of). */
static double rate(uint64_t calls, const struct fl_report *r)
{
	double s = r->sample_time ? r->probed_s : r->elapsed_s;

	return s > 0 ? (double)calls / s : 0;
}

/* What the counts of churn mode stand for: all calls, or those while the probes were in. */
static const char *churn_scope(char *buf, size_t size, const struct fl_report *r)
{
	if (!r->sample_time)
		return r->sample_bytes ? " (estimated)" : "";
	snprintf(buf, size, " while probed (%.1f s of %.1f s, --sample-time %.0f%%)", r->probed_s,
		 r->elapsed_s, r->sample_time * 100);
	return buf;
}

/* --alloc=churn: the calls and what they asked, no frees and so no live heap. */
static void render_churn(FILE *out, unsigned width, const struct fl_proc_summary *s,
			 const struct fl_report *r)
{
	const struct fl_counts *c = &s->attributed;
	char b[UNITS_BUF], scope[96];

	units__bytes(b, UNITS_BUF, c->alloc_bytes);
	units__emit(out, width,
		    "  allocator churn since attach%s: allocs %" PRIu64
		    " (%s asked), %.0f calls/s; "
		    "frees not traced",
		    churn_scope(scope, sizeof(scope), r), (uint64_t)c->allocs, b,
		    rate(c->allocs, r));
}

/*
 * What the allocator holds beyond the live heap, from the inventory: the anon growth of the
 * mappings it owns (model/retention.h) less the live heap's, then the growth that is not its.
 */
static void render_retention(FILE *out, unsigned width, const struct fl_proc_summary *s,
			     const struct fl_report *r, int64_t live)
{
	struct retention ret;
	char b[3][UNITS_BUF];

	retention__compute(s->inventory, live, &ret);
	units__sbytes(b[0], UNITS_BUF, live);
	units__sbytes(b[1], UNITS_BUF, ret.allocator_growth);
	units__sbytes(b[2], UNITS_BUF, ret.holds);
	units__emit(out, width,
		    "  retention: live heap %s (%" PRIu64 " blocks); the allocator's %zu mappings "
		    "(heap, arenas, what its calls mapped) grew %s: the allocator holds %s more",
		    b[0], live_of(&s->attributed, false), ret.allocator_mappings, b[1], b[2]);
	units__sbytes(b[0], UNITS_BUF, ret.app_growth);
	units__sbytes(b[1], UNITS_BUF, ret.unknown_growth);
	units__emit(out, width,
		    "  not the allocator's: %s in %zu mappings the application made itself; %s in "
		    "%zu whose owner cannot be told (mapped before attach%s)",
		    b[0], ret.app_mappings, b[1], ret.unknown_mappings,
		    r->sample_bytes ? ", or by a call --sample-bytes did not see" : "");
}

void alloctable__render_heap(FILE *out, unsigned width, const struct fl_proc_summary *s,
			     const struct fl_report *r)
{
	const struct fl_counts *c = &s->attributed;
	int64_t live = (int64_t)live_of(c, true);
	int64_t anon = report__sdiff(s->now.rss_anon, s->at_attach.rss_anon);
	/* an exec's dropped blocks are in the rows' frees, so that they are not live: apart here */
	uint64_t dropped = s->exec_dropped < c->frees ? s->exec_dropped : c->frees;
	uint64_t dropped_b = s->exec_dropped_bytes < c->free_bytes ? s->exec_dropped_bytes :
								     c->free_bytes;
	char b[4][UNITS_BUF], unmatched[48];

	if (r->alloc_churn) {
		render_churn(out, width, s, r);
		return;
	}
	if (r->sample_bytes)
		snprintf(unmatched, sizeof(unmatched), "n/a when sampling");
	else
		snprintf(unmatched, sizeof(unmatched), "%" PRIu64, (uint64_t)c->unmatched_frees);
	units__bytes(b[0], UNITS_BUF, c->alloc_bytes);
	units__bytes(b[1], UNITS_BUF, c->free_bytes - dropped_b);
	units__emit(out, width,
		    "  heap since attach%s: allocs %" PRIu64 " (%s), frees %" PRIu64
		    " (%s), unmatched frees %s",
		    r->sample_bytes ? " (estimated)" : "", (uint64_t)c->allocs, b[0],
		    (uint64_t)c->frees - dropped, b[1], unmatched);
	if (dropped) {
		units__bytes(b[0], UNITS_BUF, dropped_b);
		units__emit(out, width,
			    "  dropped at exec: %" PRIu64 " blocks (%s) the old image left live",
			    dropped, b[0]);
	}
	units__sbytes(b[0], UNITS_BUF, live);
	units__sbytes(b[1], UNITS_BUF, anon);
	units__sbytes(b[2], UNITS_BUF, anon - live);
	if (r->drops[FL_DROP_LIVE_FULL] || r->drops[FL_DROP_ALLOC_STATE]) {
		/* blocks never recorded are missing from the live heap: what the allocator
		 * holds cannot be told */
		units__emit(out, width,
			    "  retention: live heap %s (%" PRIu64 " blocks) and more: %" PRIu64
			    " allocations were not recorded (live table full%s), anon RSS %s; "
			    "--max-live raises the table",
			    b[0], live_of(c, false),
			    (uint64_t)(r->drops[FL_DROP_LIVE_FULL] + r->drops[FL_DROP_ALLOC_STATE]),
			    r->drops[FL_DROP_ALLOC_STATE] ? ", or calls missed" : "", b[1]);
		return;
	}
	if (s->inventory && s->inventory->reads[INV_AT_ATTACH].taken &&
	    s->inventory->reads[INV_AT_END].taken) {
		render_retention(out, width, s, r, live);
		return;
	}
	/* no inventory at the end yet (live, until the final report or the view's i), or none
	 * at all (a followed child, smaps unreadable): whose the anon growth is cannot be told
	 * now, and the line says what it is */
	units__emit(
		out, width,
		"  retention: live heap %s (%" PRIu64 " blocks), anon RSS %s; anon growth "
		"beyond the live heap %s (the allocator's or the application's own mappings: %s)",
		b[0], live_of(c, false), b[1], b[2],
		s->inventory && s->inventory->reads[INV_AT_ATTACH].taken ?
			"the final report tells, from the inventory" :
			"no inventory to tell");
}

/* Age of the oldest live block of @s, as "12.3s"; "<4.0s" when all are younger than the last
 * walk of the live table, which came 4 s ago; "-" when none is live. */
static void age(char *buf, size_t len, const struct fl_report *r, const struct fl_call_site *s)
{
	uint64_t ns;
	int known = report__oldest_age(r, s, &ns);

	if (!known)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s%.1fs", known < 0 ? "<" : "", (double)ns / 1e9);
}

/* The smallest bucket floor below which @q of the histogram's mass lies. */
static uint64_t quantile(const __u64 h[FL_HIST_BUCKETS], double q)
{
	uint64_t total = 0, seen = 0;

	for (int i = 0; i < FL_HIST_BUCKETS; i++)
		total += h[i];
	for (int i = 0; i < FL_HIST_BUCKETS; i++) {
		seen += h[i];
		if (total && (double)seen >= q * (double)total)
			return fl_hist_floor((__u32)i);
	}
	return 0;
}

static void nanos(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else if (ns < 10000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000)
		snprintf(buf, len, "%.0fus", ns / 1e3);
	else
		snprintf(buf, len, "%.1fms", ns / 1e6);
}

/* What follows the sites shown: how many more, or that there are none yet. */
static void sites_end(FILE *out, unsigned width, const struct fl_report *r)
{
	if (r->nsites > MAX_SITE_ROWS)
		units__emit(out, width, "[%zu more sites]", r->nsites - MAX_SITE_ROWS);
	if (!r->nsites)
		units__emit(out, width, "(no allocations seen yet)");
}

/* The columns a site can lead: what each table shows of its bytes and calls. */
static uint64_t site_column(const struct fl_call_site *s, int col)
{
	switch (col) {
	case 0:
		return live_of(&s->counts, true);
	case 1:
		return s->counts.alloc_bytes;
	default:
		return s->counts.allocs;
	}
}

/*
 * The sites a table shows, in their order, into @pick; returns how many. The first rows of the
 * sort, but the site that leads LIVE-B, ALLOC-B or ALLOCS stays in view when the sort put it
 * past the bound, in place of the last rows: under a live sort, a site that allocated
 * gigabytes and keeps nothing must not hide in "[58 more sites]", nor a leak under an
 * allocation sort. Churn mode has no live column.
 */
static size_t pick_sites(const struct fl_report *r, size_t pick[MAX_SITE_ROWS])
{
	size_t lead[3] = { 0, 0, 0 }, past[3], npast = 0, n = 0;

	if (r->nsites <= MAX_SITE_ROWS) {
		for (; n < r->nsites; n++)
			pick[n] = n;
		return n;
	}
	for (size_t i = 1; i < r->nsites; i++)
		for (int c = r->alloc_churn ? 1 : 0; c < 3; c++)
			if (site_column(&r->sites[i], c) > site_column(&r->sites[lead[c]], c))
				lead[c] = i;
	/* the leaders past the bound, each once, in the sort's order */
	for (int c = r->alloc_churn ? 1 : 0; c < 3; c++) {
		bool seen = lead[c] < MAX_SITE_ROWS;

		for (size_t k = 0; k < npast; k++)
			seen |= past[k] == lead[c];
		if (!seen)
			past[npast++] = lead[c];
	}
	for (size_t k = 1; k < npast; k++)
		for (size_t j = k; j > 0 && past[j - 1] > past[j]; j--) {
			size_t x = past[j];

			past[j] = past[j - 1];
			past[j - 1] = x;
		}
	for (; n < MAX_SITE_ROWS - npast; n++)
		pick[n] = n;
	for (size_t k = 0; k < npast; k++)
		pick[n++] = past[k];
	return n;
}

/* A power of two in few columns: 512, 16K, 2M, 1G. */
static void pow2_label(char *buf, size_t len, uint64_t v)
{
	static const char units[] = { '\0', 'K', 'M', 'G', 'T', 'P', 'E' };
	int u = 0;

	while (v >= 1024 && !(v % 1024) && u < 6) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%.1s", v, &units[u]);
}

/* The request size bucket the median request falls in, as "LOW-HIGH" ([LOW, HIGH): the
 * log2 histogram knows no more); "-" for no request. */
static void median_size(char *buf, size_t len, const __u64 h[FL_HIST_BUCKETS])
{
	uint64_t total = 0, seen = 0;
	char lo[12], hi[12];
	int b = 0;

	for (int i = 0; i < FL_HIST_BUCKETS; i++)
		total += h[i];
	if (!total) {
		snprintf(buf, len, "-");
		return;
	}
	for (b = 0; b < FL_HIST_BUCKETS - 1; b++) {
		seen += h[b];
		if (2 * seen >= total)
			break;
	}
	pow2_label(lo, sizeof(lo), fl_hist_floor((__u32)b));
	if (b == FL_HIST_BUCKETS - 1) /* the last bucket holds everything above */
		snprintf(buf, len, "%s+", lo);
	else if (b <= 1) /* 0 and 1 are buckets of one size */
		snprintf(buf, len, "%s", lo);
	else {
		pow2_label(hi, sizeof(hi), fl_hist_floor((__u32)b + 1));
		snprintf(buf, len, "%s-%s", lo, hi);
	}
}

/* The churn sites: calls, their rate and mean size; nothing live, no latency. */
static void render_churn_sites(FILE *out, unsigned width, const struct fl_report *r)
{
	char b[2][UNITS_BUF], scope[96];
	size_t pick[MAX_SITE_ROWS];

	units__emit(out, width,
		    "allocator churn by site%s (frees and live bytes not traced; "
		    "--alloc for exact live tracking):",
		    r->sample_time  ? churn_scope(scope, sizeof(scope), r) :
		    r->sample_bytes ? ", estimated from samples" :
				      "");
	units__emit(out, width, "%9s %9s %9s %9s  %s", "ALLOC-B", "ALLOCS", "CALLS/S", "MEAN",
		    "CALLERS > ALLOCATOR");
	for (size_t i = 0, n = pick_sites(r, pick); i < n; i++) {
		const struct fl_call_site *s = &r->sites[pick[i]];
		const struct fl_counts *c = &s->counts;

		units__bytes(b[0], UNITS_BUF, c->alloc_bytes);
		units__bytes(b[1], UNITS_BUF, c->allocs ? c->alloc_bytes / c->allocs : 0);
		units__emit(out, width, "%9s %9" PRIu64 " %9.0f %9s  %s > %s", b[0],
			    (uint64_t)c->allocs, rate(c->allocs, r), b[1], s->caller, s->fn);
	}
	sites_end(out, width, r);
}

void alloctable__render_sites(FILE *out, unsigned width, const struct fl_report *r)
{
	char b[2][UNITS_BUF], size[24], old[16], p50[16], p99[16], asof[48] = "";
	size_t pick[MAX_SITE_ROWS];
	uint64_t ago;

	if (r->alloc_churn) {
		render_churn_sites(out, width, r);
		return;
	}
	/* the oldest blocks are found by a walk of them all, which live refreshes make seldom */
	if (report__ages_as_of(r, &ago) && ago)
		snprintf(asof, sizeof(asof), "; OLDEST as of %.0fs ago", (double)ago / 1e9);
	/* the order said: a live sort and an allocation sort rank the same sites apart */
	units__emit(out, width,
		    "allocation sites by %s%s (MEDIAN: request size bucket; latency: >= "
		    "bucket floor%s):",
		    metric__name(metric__needs_alloc(r->sites_by) ? r->sites_by :
								    FL_METRIC_LIVE_BYTES),
		    r->sample_bytes ? " (estimated from samples)" : "", asof);
	/* frees are ALLOCS - LIVE: the column goes to the site's name */
	units__emit(out, width, "%9s %6s %6s %9s %7s %9s %6s %6s  %s", "LIVE-B", "LIVE", "OLDEST",
		    "ALLOC-B", "ALLOCS", "MEDIAN", "LAT50", "LAT99", "CALLERS > ALLOCATOR");
	for (size_t i = 0, n = pick_sites(r, pick); i < n; i++) {
		const struct fl_call_site *s = &r->sites[pick[i]];
		const struct fl_counts *c = &s->counts;

		units__bytes(b[0], UNITS_BUF, live_of(c, true));
		units__bytes(b[1], UNITS_BUF, c->alloc_bytes);
		median_size(size, sizeof(size), s->hist.size);
		age(old, sizeof(old), r, s);
		nanos(p50, sizeof(p50), quantile(s->hist.latency, 0.5));
		nanos(p99, sizeof(p99), quantile(s->hist.latency, 0.99));
		units__emit(out, width,
			    "%9s %6" PRIu64 " %6s %9s %7" PRIu64 " %9s %6s %6s  %s > %s", b[0],
			    live_of(c, false), old, b[1], (uint64_t)c->allocs, size, p50, p99,
			    s->caller, s->fn);
	}
	sites_end(out, width, r);
}

/* One histogram as "floor:count" pairs of its non-empty buckets. */
static void render_hist(FILE *out, unsigned width, const char *title,
			const __u64 h[FL_HIST_BUCKETS], bool bytes)
{
	char line[UNITS_LINE_MAX + 1], b[UNITS_BUF];
	size_t len = (size_t)snprintf(line, sizeof(line), "    %s:", title);

	for (int i = 0; i < FL_HIST_BUCKETS && len < sizeof(line); i++) {
		if (!h[i])
			continue;
		if (bytes)
			units__bytes(b, sizeof(b), fl_hist_floor((__u32)i));
		else
			nanos(b, sizeof(b), fl_hist_floor((__u32)i));
		len += (size_t)snprintf(line + len, sizeof(line) - len, " %s+ %" PRIu64, b,
					(uint64_t)h[i]);
	}
	units__emit(out, width, "%s", line);
}

void alloctable__render_hists(FILE *out, unsigned width, const struct fl_report *r)
{
	/* churn mode keeps no histograms: a call's size is in its row, its latency unseen */
	for (size_t i = 0; !r->alloc_churn && i < r->nsites && i < HIST_SITES; i++) {
		const struct fl_call_site *s = &r->sites[i];

		units__emit(out, width, "  %s > %s (pid %d), log2 buckets:", s->caller, s->fn,
			    (int)s->pid);
		render_hist(out, width, "size", s->hist.size, true);
		render_hist(out, width, "latency", s->hist.latency, false);
	}
}
