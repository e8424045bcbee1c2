/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The flame graph as rsvg-convert (librsvg, Debian's librsvg2-bin) renders it: a PNG of the
 * SVG's size, decoded here (unit/svgcheck.c), with frames drawn in their palette colours
 * where the SVG puts them and nothing drawn between the controls and the top frame.
 * Skipped when rsvg-convert is missing.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/svg.h"
#include "unit/svgcheck.h"
#include "unit/model_builder.h"

#define MIB (1024ULL * 1024ULL)

static uint32_t max_channel_diff(uint32_t x, uint32_t y)
{
	uint32_t m = 0;

	for (int s = 0; s < 24; s += 8) {
		int d = (int)(x >> s & 0xff) - (int)(y >> s & 0xff);

		m = (uint32_t)abs(d) > m ? (uint32_t)abs(d) : m;
	}
	return m;
}

/* The pixel in the middle of the frame titled @title must be @want, give or take 2. */
static void expect_frame_pixel(const struct png_image *img, const char *svg, const char *title,
			       uint32_t want)
{
	double x = svg_frame_attr(svg, title, "x"), w = svg_frame_attr(svg, title, "width");
	double y = svg_frame_attr(svg, title, "y");
	/* the right half: the label is on the left */
	uint32_t px = png_pixel(img, (uint32_t)(x + w * 0.75), (uint32_t)(y + 7));

	cr_expect_leq(max_channel_diff(px, want), 2, "%s: pixel #%06x, want #%06x", title, px,
		      want);
}

Test(svg_render, rsvg_convert_draws_the_frames)
{
	char svg_path[] = "/tmp/faultline-svg-XXXXXX", png_path[64], cmd[256], why[160];
	struct svg_opts o = { .metric = FL_METRIC_ANON };
	struct profile *p = profile__new();
	struct png_image img;
	size_t len = 0, nonwhite = 0;
	char *svg = NULL;
	FILE *f;
	int fd;

	if (system("command -v rsvg-convert >/dev/null 2>&1"))
		cr_skip_test("rsvg-convert is missing (Debian: librsvg2-bin; make deps installs "
			     "it)");
	model_add(p, "app|main|cache_insert", model_anon(24 * MIB, 0));
	model_add(p, "app|main|[heap]", model_anon(8 * MIB, 0));
	model_add(p, "app|worker|malloc", model_anon(16 * MIB, 0));
	f = open_memstream(&svg, &len);
	cr_assert_eq(svg__write(f, p, &o), 0);
	fclose(f);
	fd = mkstemp(svg_path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, svg, len), (ssize_t)len);
	close(fd);
	snprintf(png_path, sizeof(png_path), "%s.png", svg_path);
	snprintf(cmd, sizeof(cmd), "rsvg-convert -o %s %s", png_path, svg_path);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	cr_assert_eq(png_load(png_path, &img, why, sizeof(why)), 0, "%s", why);
	/* 4 levels: 68 px above, 4 x 16, 26 below */
	cr_expect_eq(img.width, SVG_WIDTH);
	cr_expect_eq(img.height, 68 + 4 * SVG_FRAME_H + 26);
	for (uint32_t y = 0; y < img.height; y++)
		for (uint32_t x = 0; x < img.width; x++)
			nonwhite += png_pixel(&img, x, y) != 0xffffff;
	/* the frames cover 1180 x 15 px per level, labels and title aside */
	cr_expect_gt(nonwhite, 4 * 1180 * 15 * 9 / 10, "%zu pixels drawn", nonwhite);
	expect_frame_pixel(&img, svg, "<title>all\n", svg__frame_color("all", 0));
	expect_frame_pixel(&img, svg, "<title>cache_insert\n", svg__frame_color("cache_insert", 3));
	expect_frame_pixel(&img, svg, "<title>[heap]\n", svg__frame_color("[heap]", 3));
	expect_frame_pixel(&img, svg, "<title>malloc\n", svg__frame_color("malloc", 3));
	/* between the controls' row and the top frames */
	cr_expect_eq(png_pixel(&img, SVG_WIDTH / 2, 64), 0xffffff);
	/* the top frames are labelled */
	cr_expect(strstr(svg, ">cache_insert</text>"));
	cr_expect(strstr(svg, ">malloc</text>"));
	png_free(&img);
	unlink(svg_path);
	unlink(png_path);
	free(svg);
	profile__free(p);
}
