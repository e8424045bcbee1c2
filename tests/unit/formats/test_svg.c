/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The SVG flame graph writer on profiles built here: well-formed XML (unit/svgcheck.c, and
 * xmllint too when installed), tooltips with the right values and percents, names escaped,
 * narrow frames dropped at 2,000 stacks, deterministic output, the palette, the differential
 * graph's widths and colours; and a rendering by rsvg-convert decoded pixel by pixel.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/svg.h"
#include "unit/svgcheck.h"
#include "unit/model_builder.h"

#define MIB (1024ULL * 1024ULL)

static char *render(const struct profile *p, const struct svg_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(svg__write(f, p, o), 0);
	fclose(f);
	return buf;
}

static char *render_diff(const struct profile *b, const struct profile *a,
			 const struct svg_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(svg__write_diff(f, b, a, o), 0);
	fclose(f);
	return buf;
}

/* Also through xmllint when it is installed (it is not a dependency). */
static void expect_well_formed(const char *svg)
{
	char why[160], path[] = "/tmp/faultline-svg-XXXXXX", cmd[128];
	const char *bad = xml_check(svg, why, sizeof(why));
	FILE *f;
	int fd;

	cr_expect_null(bad, "not well-formed XML: %s", bad);
	if (system("command -v xmllint >/dev/null 2>&1"))
		return;
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fputs(svg, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	cr_expect_eq(system(cmd), 0, "xmllint rejects the SVG");
	unlink(path);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

static const char *frame_fill(const char *svg, const char *title, char *buf)
{
	const char *t = strstr(svg, title), *a;

	cr_assert_not_null(t, "no frame titled '%s'", title);
	a = strstr(t, " fill=\"#");
	cr_assert_not_null(a);
	memcpy(buf, a + 8, 6);
	buf[6] = '\0';
	return buf;
}

static struct profile *sample(void)
{
	struct profile *p = profile__new();

	model_add(p, "app|main|big", model_anon(12 * MIB, 3072));
	model_add(p, "app|main|small", model_anon(3 * MIB, 768));
	model_add(p, "app|[exit]", model_anon(1 * MIB, 256));
	return p;
}

Test(svg, tooltips_values_and_percents)
{
	struct profile *p = sample();
	struct svg_opts o = { .metric = FL_METRIC_RESIDENT };
	char *svg = render(p, &o);

	expect_well_formed(svg);
	cr_expect(strstr(svg, "<title>all\n16.0 MiB (16,777,216 bytes), 100.00% of all</title>"));
	cr_expect(strstr(svg, "<title>main\n15.0 MiB (15,728,640 bytes), 93.75% of all</title>"));
	cr_expect(strstr(svg, "<title>big\n12.0 MiB (12,582,912 bytes), 75.00% of all</title>"));
	cr_expect(strstr(svg, "<title>small\n3.0 MiB (3,145,728 bytes), 18.75% of all</title>"));
	cr_expect(strstr(svg, "<title>[exit]\n1.0 MiB (1,048,576 bytes), 6.25% of all</title>"));
	/* the title: metric, total, processes (the root frames without a subject) */
	cr_expect(strstr(svg, "<title>faultline resident: 16.0 MiB (16,777,216 bytes), app"
			      "</title>"),
		  "%.400s", svg);
	/* widths: 1180 px for all, proportional below */
	cr_expect_float_eq(svg_frame_attr(svg, "<title>all\n", "width"), 1180.0, 0.01);
	cr_expect_float_eq(svg_frame_attr(svg, "<title>big\n", "width"), 1180.0 * 0.75, 0.01);
	/* children in name order: [exit], then main (big, small) */
	cr_expect_float_eq(svg_frame_attr(svg, "<title>[exit]\n", "x"), 10, 0.01);
	cr_expect_float_eq(svg_frame_attr(svg, "<title>small\n", "x"), 10 + 1180.0 * 13 / 16, 0.01);
	cr_expect_eq(count(svg, "<g><title>"), 6);
	/* root at the bottom: deeper frames higher up */
	cr_expect_gt(svg_frame_attr(svg, "<title>all\n", "y"), svg_frame_attr(svg, "<title>big\n", "y"));
	free(svg);
	profile__free(p);
}

Test(svg, counts_and_subject)
{
	struct profile *p = sample();
	struct svg_opts o = { .metric = FL_METRIC_FAULTS, .subject = "pid 42 app" };
	char *svg = render(p, &o);

	expect_well_formed(svg);
	cr_expect(strstr(svg, "<title>big\n3,072 faults, 75.00% of all</title>"));
	cr_expect(strstr(svg, "<title>faultline faults: 4,096 faults, pid 42 app</title>"));
	cr_expect(strstr(svg, "data-unit=\"faults\""));
	free(svg);
	profile__free(p);
}

Test(svg, names_escaped)
{
	struct profile *p = profile__new();
	struct svg_opts o = { .metric = FL_METRIC_ANON };
	char *svg;

	model_add(p, "app<&>|operator<(a, \"b\", 'c')|tab\there\x01|bad\xff\xfeutf8|caf\xc3\xa9",
	    model_anon(MIB, 0));
	model_add(p, "app<&>|]]>cdata", model_anon(MIB, 0));
	svg = render(p, &o);
	expect_well_formed(svg);
	cr_expect(strstr(svg, "<title>operator&#60;(a, &#34;b&#34;, &#39;c&#39;)\n"), "%s", svg);
	cr_expect(strstr(svg, "<title>app&#60;&#38;&#62;\n"));
	cr_expect(strstr(svg, "<title>tab here \n"));
	cr_expect(strstr(svg, "<title>bad??utf8\n"));
	cr_expect(strstr(svg, "<title>caf\xc3\xa9\n"));
	cr_expect(strstr(svg, "<title>]]&#62;cdata\n"));
	cr_expect_null(strstr(svg, "app<&>"));
	free(svg);
	profile__free(p);
}

Test(svg, labels_clipped_to_the_box)
{
	struct profile *p = profile__new();
	struct svg_opts o = { .metric = FL_METRIC_ANON };
	char *svg;

	/* 100 px hold (100 - 6) / 7.2 = 13 characters: 11 and ".." */
	model_add(p, "app|a_rather_long_function_name", model_anon(100, 0));
	model_add(p, "app|z", model_anon(1080, 0));
	svg = render(p, &o);
	cr_expect(strstr(svg, ">a_rather_lo..</text>"), "%s", svg);
	cr_expect(strstr(svg, ">z</text>"));
	free(svg);
	profile__free(p);
}

/*
 * 2,000 light stacks of 4 KiB and 20 heavy ones of 1 MiB: a light stack is 0.17 px wide, so
 * only the heavy ones are drawn, but the light ones' bytes stay in app's width.
 */
Test(svg, narrow_frames_dropped_at_2000_stacks)
{
	struct profile *p = profile__new();
	struct svg_opts o = { .metric = FL_METRIC_ANON };
	uint64_t total = 20 * MIB + 2000 * 4096ULL;
	char path[64], *svg, want[128];

	for (int i = 0; i < 2000; i++) {
		snprintf(path, sizeof(path), "app|light_%04d|leaf", i);
		model_add(p, path, model_anon(4096, 1));
	}
	for (int i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "app|heavy_%02d|leaf", i);
		model_add(p, path, model_anon(MIB, 1));
	}
	cr_assert_geq(p->nstacks, 1000);
	svg = render(p, &o);
	expect_well_formed(svg);
	cr_expect_eq(count(svg, "<g><title>"), 2 + 20 * 2, "frames drawn: %zu",
		     count(svg, "<g><title>"));
	cr_expect_null(strstr(svg, "light_"));
	cr_expect(strstr(svg, "; 4000 frames under 1 px not drawn</text>"));
	snprintf(want, sizeof(want), "data-v=\"%" PRIu64 "\"", total);
	cr_expect_eq(count(svg, want), 2, "all and app keep every byte");
	cr_expect_lt(strlen(svg), 20000, "%zu bytes", strlen(svg));
	free(svg);
	/* a smaller minimum draws them all */
	o.min_px = 0.01;
	svg = render(p, &o);
	cr_expect_eq(count(svg, "<g><title>"), 2 + 2020 * 2);
	expect_well_formed(svg);
	free(svg);
	profile__free(p);
}

Test(svg, deterministic_whatever_the_order)
{
	struct profile *p = sample(), *q = profile__new();
	struct svg_opts o = { .metric = FL_METRIC_RESIDENT };
	char *a, *b;

	model_add(q, "app|[exit]", model_anon(1 * MIB, 256));
	model_add(q, "app|main|small", model_anon(3 * MIB, 768));
	model_add(q, "app|main|big", model_anon(12 * MIB, 3072));
	profile__sort(q, FL_METRIC_FAULTS);
	a = render(p, &o);
	b = render(q, &o);
	cr_expect_str_eq(a, b);
	free(b);
	b = render(p, &o);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
	profile__free(p);
	profile__free(q);
}

Test(svg, empty_profile)
{
	struct profile *p = profile__new();
	struct svg_opts o = { .metric = FL_METRIC_RESIDENT };
	char *svg = render(p, &o);

	expect_well_formed(svg);
	cr_expect(strstr(svg, "(nothing to show for this metric)"));
	cr_expect_eq(count(svg, "<g><title>"), 0);
	free(svg);
	profile__free(p);
}

Test(svg, write_error_reported)
{
	struct profile *p = sample();
	struct svg_opts o = { .metric = FL_METRIC_RESIDENT };
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	cr_expect_eq(svg__write(f, p, &o), -ENOSPC);
	fclose(f);
	profile__free(p);
}

static void rgb(uint32_t c, int *r, int *g, int *b)
{
	*r = c >> 16 & 0xff;
	*g = c >> 8 & 0xff;
	*b = c & 0xff;
}

Test(svg, memory_palette)
{
	static const char *const code[] = { "main", "touch_a", "std::vector<int>::push_back",
					    "cache_insert", "handle_request" };
	static const char *const pseudo[] = { "[exit]", "[heap]", "[munmap]", "[anon THP]" };
	static const char *const alloc[] = { "malloc", "__libc_calloc", "_int_malloc", "je_malloc",
					     "operator new(unsigned long)", "__munmap" };
	int r, g, b;

	cr_expect_eq(svg__frame_color("all", 0), 0xd0d0d0);
	for (size_t i = 0; i < sizeof(code) / sizeof(code[0]); i++) {
		rgb(svg__frame_color(code[i], 3), &r, &g, &b);
		cr_expect(r < g || r < b, "%s is not green or blue: %d,%d,%d", code[i], r, g, b);
		cr_expect_eq(svg__frame_color(code[i], 3), svg__frame_color(code[i], 7));
	}
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++) {
		rgb(svg__frame_color(pseudo[i], 2), &r, &g, &b);
		cr_expect(b > g && r > g, "%s is not violet: %d,%d,%d", pseudo[i], r, g, b);
	}
	for (size_t i = 0; i < sizeof(alloc) / sizeof(alloc[0]); i++) {
		rgb(svg__frame_color(alloc[i], 2), &r, &g, &b);
		cr_expect(r > g && g > b, "%s is not amber: %d,%d,%d", alloc[i], r, g, b);
	}
}

/*
 * before: a 100, b 100, c 50; after: a 200 (grew), b 50 (shrank), c gone, d 10 (new).
 * Widths: max per stack, 200 + 100 + 50 + 10 = 360.
 */
Test(svg, diff_widths_and_colours)
{
	struct profile *b = profile__new(), *a = profile__new();
	struct svg_opts o = { .metric = FL_METRIC_ANON, .before_name = "b.txt",
			      .after_name = "a.txt" };
	char *svg, fill[8];

	model_add(b, "app|a", model_anon(100, 0));
	model_add(b, "app|b", model_anon(100, 0));
	model_add(b, "app|c", model_anon(50, 0));
	model_add(a, "app|a", model_anon(200, 0));
	model_add(a, "app|b", model_anon(50, 0));
	model_add(a, "app|d", model_anon(10, 0));
	model_add(a, "app|e", model_anon(5, 0));
	model_add(b, "app|e", model_anon(5, 0));
	svg = render_diff(b, a, &o);
	expect_well_formed(svg);
	cr_expect_float_eq(svg_frame_attr(svg, "<title>all\n", "data-v"), 365, 0.5);
	cr_expect_float_eq(svg_frame_attr(svg, "<title>a\n", "width"), 1180.0 * 200 / 365, 0.01);
	cr_expect_float_eq(svg_frame_attr(svg, "<title>c\n", "width"), 1180.0 * 50 / 365, 0.01);
	/* |delta| / max: a 0.5 -> 225 - 83 = 142; b 0.5; c and d 1 -> 60 */
	cr_expect_str_eq(frame_fill(svg, "<title>a\n", fill), "ff8e8e");
	cr_expect_str_eq(frame_fill(svg, "<title>b\n", fill), "8e8eff");
	cr_expect_str_eq(frame_fill(svg, "<title>c\n", fill), "3c3cff");
	cr_expect_str_eq(frame_fill(svg, "<title>d\n", fill), "ff3c3c");
	cr_expect_str_eq(frame_fill(svg, "<title>e\n", fill), "dcdcdc");
	/* app: 255 -> 265, +10 of 265: 225 - 6 */
	cr_expect_str_eq(frame_fill(svg, "<title>app\n", fill), "ffdbdb");
	cr_expect(strstr(svg, "<title>a\nbefore 100 B (100 bytes), after 200 B (200 bytes), "
			      "change +100 B (+100.0%)</title>"));
	cr_expect(strstr(svg, "<title>c\nbefore 50 B (50 bytes), after 0 B (0 bytes), change "
			      "-50 B (-100.0%)</title>"));
	cr_expect(strstr(svg, "<title>d\nbefore 0 B (0 bytes), after 10 B (10 bytes), change "
			      "+10 B (new)</title>"));
	cr_expect(strstr(svg, "<title>faultline anon: b.txt 255 B (255 bytes) -&#62; a.txt 265 B "
			      "(265 bytes), +10 B (+3.9%); app</title>"), "%.600s", svg);
	free(svg);
	profile__free(a);
	profile__free(b);
}

Test(svg, diff_colour_scale)
{
	cr_expect_eq(svg__diff_color(100, 100), 0xdcdcdc);
	cr_expect_eq(svg__diff_color(0, 0), 0xdcdcdc);
	cr_expect_eq(svg__diff_color(0, 1), 0xff3c3c);
	cr_expect_eq(svg__diff_color(1, 0), 0x3c3cff);
	/* deeper for a larger relative change */
	cr_expect_lt(svg__diff_color(100, 150) & 0xff, svg__diff_color(100, 101) & 0xff);
	cr_expect_lt(svg__diff_color(150, 100) >> 16, svg__diff_color(101, 100) >> 16);
}

/* The checker the tests above rely on rejects what it must. */
Test(svg, xml_checker_rejects_broken_documents)
{
	static const char *const bad[] = {
		"<svg></svg>", /* no declaration */
		"<?xml version=\"1.0\"?>\n<a><b></a></b>",
		"<?xml version=\"1.0\"?>\n<a x=\"1\" x=\"2\"/>",
		"<?xml version=\"1.0\"?>\n<a x=1/>",
		"<?xml version=\"1.0\"?>\n<a>x & y</a>",
		"<?xml version=\"1.0\"?>\n<a>&#1;</a>",
		"<?xml version=\"1.0\"?>\n<a>\xff</a>",
		"<?xml version=\"1.0\"?>\n<a>\x01</a>",
		"<?xml version=\"1.0\"?>\n<a t=\"<\"/>",
		"<?xml version=\"1.0\"?>\n<a/><b/>",
		"<?xml version=\"1.0\"?>\n<a><![CDATA[x</a>",
		"<?xml version=\"1.0\"?>\n<a>",
	};
	char why[160];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_not_null(xml_check(bad[i], why, sizeof(why)), "accepted: %s", bad[i]);
	cr_expect_null(xml_check("<?xml version=\"1.0\"?>\n<a k='v &amp; &#60;'><b/>t&#x41;"
				 "<![CDATA[<x>]]><!-- c --></a>\n", why, sizeof(why)), "%s", why);
}
