/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The --alloc lines: blocks an exec dropped told apart from frees, the ages of live blocks;
 * --alloc=churn says what it does not trace; the sites' order said, their leaders kept in view
 * and the median request size given as its bucket. */
#include <criterion/criterion.h>
#include "model/inventory.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "views/alloctable.h"

/* The heap line(s) of process @s in report @r. */
static char *heap_in(const struct fl_proc_summary *s, const struct fl_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	alloctable__render_heap(f, 200, s, r);
	fclose(f);
	return buf;
}

static char *heap_dropped(const struct fl_proc_summary *s, uint64_t live_full)
{
	struct fl_report r = { .alloc = true };

	r.drops[FL_DROP_LIVE_FULL] = live_full;
	return heap_in(s, &r);
}

static char *heap(const struct fl_proc_summary *s)
{
	return heap_dropped(s, 0);
}

Test(alloctable, exec_dropped_blocks_apart)
{
	struct fl_proc_summary s = { .pid = 1 };
	char *out;

	s.attributed.allocs = 65;
	s.attributed.alloc_bytes = 245000;
	s.attributed.frees = 40;
	s.attributed.free_bytes = 120000;
	out = heap(&s);
	cr_expect(strstr(out, "allocs 65 (239.3 KiB), frees 40 (117.2 KiB), unmatched frees 0\n"),
		  "%s", out);
	cr_expect_null(strstr(out, "dropped at exec"), "%s", out);
	cr_expect(strstr(out, "live heap +122.1 KiB (25 blocks)"), "%s", out);
	free(out);
	/* the same 40 blocks, dropped by an exec instead of freed */
	s.exec_dropped = 40;
	s.exec_dropped_bytes = 120000;
	out = heap(&s);
	cr_expect(strstr(out, "allocs 65 (239.3 KiB), frees 0 (0 B), unmatched frees 0\n"), "%s",
		  out);
	cr_expect(strstr(out, "  dropped at exec: 40 blocks (117.2 KiB) the old image left live\n"),
		  "%s", out);
	cr_expect(strstr(out, "live heap +122.1 KiB (25 blocks)"), "%s", out);
	free(out);
}

/* With the live table full, allocations went unrecorded: the retention line must not say the
 * allocator holds the difference (it did), but that the live heap is a lower bound. */
Test(alloctable, live_table_full_is_not_blamed_on_the_allocator)
{
	struct fl_proc_summary s = { .pid = 1 };
	char *out;

	s.attributed.allocs = 65;
	s.attributed.alloc_bytes = 245000;
	s.now.rss_anon = 8 << 20;
	out = heap_dropped(&s, 1200);
	cr_expect_null(strstr(out, "allocator holds"), "%s", out);
	cr_expect(strstr(out, "1200 allocations were not recorded (live table full)"), "%s", out);
	cr_expect(strstr(out, "--max-live"), "%s", out);
	free(out);
	/* nothing dropped, but no inventory: whose the growth beyond the live heap is, untold */
	out = heap(&s);
	cr_expect_null(strstr(out, "allocator holds"), "%s", out);
	cr_expect(strstr(out, "no inventory to tell"), "%s", out);
	free(out);
}

/* With the inventory read at attach and at the end, the allocator holds the growth of its own
 * mappings beyond the live heap; the application's pool is named apart. */
Test(alloctable, retention_from_the_inventory)
{
	struct inv_mapping v[2] = { { .owner = INV_OWNER_ALLOCATOR },
				    { .owner = INV_OWNER_APPLICATION } };
	struct inventory inv = { .v = v, .n = 2 };
	struct fl_proc_summary s = { .pid = 1, .inventory = &inv };
	char *out;

	inv.reads[INV_AT_ATTACH].taken = inv.reads[INV_AT_END].taken = true;
	v[0].seen[INV_AT_ATTACH] = v[0].seen[INV_AT_END] = v[1].seen[INV_AT_END] = true;
	v[0].at[INV_AT_ATTACH].anon = 1 << 20;
	v[0].at[INV_AT_END].anon = 25 << 20;
	v[1].at[INV_AT_END].anon = 32 << 20;
	s.attributed.allocs = 1024;
	s.attributed.alloc_bytes = 4 << 20;
	s.now.rss_anon = 57 << 20;
	out = heap(&s);
	cr_expect(strstr(out, "the allocator's 1 mappings (heap, arenas, what its calls mapped) "
			      "grew +24.0 MiB: the allocator holds +20.0 MiB more"),
		  "%s", out);
	cr_expect(strstr(out, "not the allocator's: +32.0 MiB in 1 mappings the application made "
			      "itself"),
		  "%s", out);
	free(out);
}

static char *render(void (*fn)(FILE *, unsigned, const struct fl_report *),
		    const struct fl_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	fn(f, 200, r);
	fclose(f);
	return buf;
}

/* --alloc=churn: calls and bytes asked, and what is not traced, said on the heap line and in
 * the sites' title; no free, live, age, latency or histogram figure anywhere. */
Test(alloctable, churn_says_what_it_does_not_trace)
{
	struct fl_call_site site = { .pid = 1, .caller = "main > churn_path", .fn = "malloc" };
	struct fl_report r = { .alloc = true, .alloc_churn = true, .elapsed_s = 2.0 };
	struct fl_proc_summary s = { .pid = 1 };
	char *out;

	s.attributed.allocs = 10000;
	s.attributed.alloc_bytes = 640000;
	out = heap_in(&s, &r);
	cr_expect_str_eq(out, "  allocator churn since attach: allocs 10000 (625.0 KiB asked), "
			      "5000 calls/s; frees not traced\n");
	free(out);

	site.counts.allocs = 10000;
	site.counts.alloc_bytes = 640000;
	r.sites = &site;
	r.nsites = 1;
	out = render(alloctable__render_sites, &r);
	cr_expect(strstr(out, "allocator churn by site (frees and live bytes not traced; --alloc "
			      "for exact live tracking):\n"),
		  "%s", out);
	cr_expect(strstr(out, "625.0 KiB     10000      5000      64 B  main > churn_path > "
			      "malloc\n"),
		  "%s", out);
	cr_expect_null(strstr(out, "LIVE"), "%s", out);
	cr_expect_null(strstr(out, "LAT"), "%s", out);
	free(out);
	r.final = true;
	out = render(alloctable__render_hists, &r);
	cr_expect_str_eq(out, "", "no histograms: churn mode keeps none");
	free(out);

	r.sample_bytes = 4096;
	out = render(alloctable__render_sites, &r);
	cr_expect(strstr(out, "allocator churn by site, estimated from samples ("), "%s", out);
	free(out);
}

/* --sample-time: the counts are of the windows, and so are the rates; both lines say so. */
Test(alloctable, churn_in_time_windows)
{
	struct fl_call_site site = { .pid = 1, .caller = "main > churn_path", .fn = "malloc" };
	struct fl_report r = { .alloc = true,
			       .alloc_churn = true,
			       .elapsed_s = 20.0,
			       .sample_time = 0.10,
			       .probed_s = 2.0,
			       .sites = &site,
			       .nsites = 1 };
	struct fl_proc_summary s = { .pid = 1 };
	char *out;

	s.attributed.allocs = 10000;
	s.attributed.alloc_bytes = 640000;
	out = heap_in(&s, &r);
	cr_expect_str_eq(out, "  allocator churn since attach while probed (2.0 s of 20.0 s, "
			      "--sample-time 10%): allocs 10000 (625.0 KiB asked), 5000 calls/s; "
			      "frees not traced\n");
	free(out);
	site.counts = s.attributed;
	out = render(alloctable__render_sites, &r);
	cr_expect(strstr(out,
			 "allocator churn by site while probed (2.0 s of 20.0 s, --sample-time "
			 "10%) (frees"),
		  "%s", out);
	cr_expect(strstr(out, "625.0 KiB     10000      5000      64 B  main > churn_path > "),
		  "%s", out);
	free(out);
}

static char *sites(const struct fl_report *r)
{
	return render(alloctable__render_sites, r);
}

static struct fl_call_site site(const char *caller, uint64_t live, uint64_t oldest_ts)
{
	struct fl_call_site s = { .pid = 1, .fn = "malloc", .oldest_ts = oldest_ts };

	snprintf(s.caller, sizeof(s.caller), "%s", caller);
	s.counts.allocs = 10;
	s.counts.alloc_bytes = 1000;
	s.counts.frees = 10 - live;
	s.counts.free_bytes = (10 - live) * 100;
	return s;
}

/*
 * The oldest live block of a site is found by a walk of every live block, which a live
 * refresh makes only now and then: the table says how old its ages are, a site whose blocks
 * all came after the walk shows the bound, and one with nothing live now shows none.
 */
Test(alloctable, oldest_ages_as_of_the_last_walk)
{
	struct fl_call_site s[] = { site("old_site", 3, 1000000000ull), site("new_site", 2, 0),
				    site("freed_site", 0, 2000000000ull) };
	struct fl_report r = { .alloc = true,
			       .now_ns = 15000000000ull,
			       .ages_ns = 11000000000ull,
			       .ages_now = true,
			       .sites = s,
			       .nsites = 3 };
	char *out = sites(&r);

	cr_expect(strstr(out, "allocation sites by live-bytes (MEDIAN: request size bucket; "
			      "latency: >= bucket floor):\n"),
		  "%s", out);
	cr_expect(strstr(out, "      3  14.0s "), "%s", out);
	cr_expect(strstr(out, "      2  <4.0s "), "younger than the walk:\n%s", out);
	cr_expect(strstr(out, "      0      - "), "nothing live:\n%s", out);
	free(out);
	r.ages_now = false;
	out = sites(&r);
	cr_expect(strstr(out, "latency: >= bucket floor; OLDEST as of 4s ago):"), "%s", out);
	free(out);
}

/* @n sites by live bytes, heaviest first (as sites.c sorts them), @live bytes each less one a
 * row, nothing allocated beside them. */
static void sites_by_live(struct fl_call_site *s, size_t n, uint64_t live)
{
	for (size_t i = 0; i < n; i++) {
		s[i] = (struct fl_call_site){ .pid = 1, .fn = "malloc" };
		snprintf(s[i].caller, sizeof(s[i].caller), "main > keeper_%02zu", i);
		s[i].counts.allocs = 1;
		s[i].counts.alloc_bytes = live - i;
	}
}

/*
 * Under a live sort, a site that allocated the most and keeps nothing came last, in
 * "[N more sites]" (issue 25: a 27.5 GiB churn site): the leader of ALLOC-B and of ALLOCS
 * stay in view in place of the last rows of the sort; the table says what it is sorted by.
 */
Test(alloctable, column_leaders_stay_in_view_past_the_bound)
{
	struct fl_call_site s[20];
	struct fl_report r = { .alloc = true, .sites = s, .nsites = 20 };
	char *out;

	sites_by_live(s, 20, 1 << 20);
	/* the churn site: 27.5 GiB in 3 million calls, all freed */
	snprintf(s[19].caller, sizeof(s[19].caller), "main > filesort");
	s[19].counts.allocs = 3000000;
	s[19].counts.alloc_bytes = 27500ull << 20;
	s[19].counts.frees = 3000000;
	s[19].counts.free_bytes = 27500ull << 20;
	out = sites(&r);
	cr_expect(strstr(out, "allocation sites by live-bytes "), "%s", out);
	cr_expect(strstr(out, "main > filesort > malloc\n[5 more sites]\n"),
		  "the churn site is not in view:\n%s", out);
	cr_expect(strstr(out, "main > keeper_13 > malloc\n"), "%s", out);
	cr_expect_null(strstr(out, "main > keeper_14 > malloc"),
		       "the last row of the sort did not give way:\n%s", out);
	free(out);

	/* by alloc-bytes, the leak of most live bytes is the one that must stay */
	r.sites_by = FL_METRIC_ALLOC_BYTES;
	sites_by_live(s, 20, 1 << 20);
	for (size_t i = 0; i < 19; i++) {
		s[i].counts.frees = 1;
		s[i].counts.free_bytes = s[i].counts.alloc_bytes;
	}
	snprintf(s[17].caller, sizeof(s[17].caller), "main > leak");
	s[17].counts.frees = 0;
	s[17].counts.free_bytes = 0;
	out = sites(&r);
	cr_expect(strstr(out, "allocation sites by alloc-bytes "), "%s", out);
	cr_expect(strstr(out, "main > leak > malloc\n[5 more sites]\n"),
		  "the leak is not in view:\n%s", out);
	free(out);

	/* within the bound nothing moves */
	r.nsites = 15;
	sites_by_live(s, 15, 1 << 20);
	out = sites(&r);
	cr_expect(strstr(out, "main > keeper_14 > malloc\n"), "%s", out);
	cr_expect_null(strstr(out, "more sites"), "%s", out);
	free(out);
}

/* MEDIAN is the bucket of the median request, bounds stated: requests of 16 KiB and 2 MiB
 * read "8.0 KiB" before (the floor of a bucket of 16,000-byte requests); exact powers of two
 * open their bucket. */
Test(alloctable, median_request_size_as_its_bucket)
{
	struct fl_call_site s = { .pid = 1, .caller = "main > sort", .fn = "malloc" };
	struct fl_report r = { .alloc = true, .sites = &s, .nsites = 1 };
	char *out;

	s.counts.allocs = 3;
	s.hist.size[15] = 2; /* 16384 bytes: [16K, 32K) */
	s.hist.size[22] = 1; /* 2 MiB: [2M, 4M) */
	out = sites(&r);
	cr_expect(strstr(out, "    MEDIAN "), "%s", out);
	cr_expect(strstr(out, " 16K-32K "), "%s", out);
	free(out);

	s.hist.size[15] = 0;
	s.hist.size[14] = 2; /* 16,000 bytes: [8K, 16K) */
	out = sites(&r);
	cr_expect(strstr(out, "  8K-16K "), "%s", out);
	free(out);

	memset(&s.hist, 0, sizeof(s.hist));
	s.hist.size[10] = 5; /* 1000 bytes */
	s.hist.size[FL_HIST_BUCKETS - 1] = 1;
	out = sites(&r);
	cr_expect(strstr(out, "  512-1K "), "%s", out);
	free(out);

	memset(&s.hist, 0, sizeof(s.hist));
	s.hist.size[FL_HIST_BUCKETS - 1] = 1;
	out = sites(&r);
	cr_expect(strstr(out, "       1G+ "), "the last bucket is open:\n%s", out);
	free(out);
}
