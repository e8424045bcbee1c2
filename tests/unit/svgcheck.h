/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Checks of the SVG writer's output for the unit tests: XML well-formedness and PNG pixels. */
#ifndef FAULTLINE_TEST_SVGCHECK_H
#define FAULTLINE_TEST_SVGCHECK_H

#include <stddef.h>
#include <stdint.h>

/*
 * NULL when @s is a well-formed XML document, else why not, with the byte offset in @why.
 * Checks: valid UTF-8 and no control characters but tab, CR and LF; the declaration; tags
 * balanced, one root element; names; attributes quoted, not repeated in a tag, no '<' in
 * values; every '&' a predefined or numeric entity (of a legal character); comments and
 * CDATA sections closed. It does not check DTDs or namespaces (the writer emits neither).
 */
const char *xml_check(const char *s, char *why, size_t len);

struct png_image {
	uint32_t width, height;
	uint8_t *rgb; /* width * height * 3 bytes, alpha dropped (composited on white) */
};

/* Decodes an 8-bit RGB or RGBA non-interlaced PNG file: 0, or -1 with @why set. */
int png_load(const char *path, struct png_image *img, char *why, size_t len);
void png_free(struct png_image *img);
/* The pixel at (@x, @y) as 0xRRGGBB. */
uint32_t png_pixel(const struct png_image *img, uint32_t x, uint32_t y);

/* The numeric attribute @attr of the <rect> of the frame whose tooltip starts with @title
 * ("<title>name\n"); fails the test when there is none. */
double svg_frame_attr(const char *svg, const char *title, const char *attr);

#endif /* FAULTLINE_TEST_SVGCHECK_H */
