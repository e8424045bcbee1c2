/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A small XML well-formedness checker and a small PNG decoder, so that the SVG tests need
 * neither libxml2 nor an image library: the tests must say exactly what they check.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "unit/svgcheck.h"

#define XML_MAX_DEPTH 64
#define XML_MAX_ATTRS 32

struct xp {
	const char *s, *p;
	char *why;
	size_t len;
	const char *stack[XML_MAX_DEPTH]; /* open elements' names */
	size_t stack_len[XML_MAX_DEPTH];
	size_t depth;
	int roots;
};

static bool fail(struct xp *x, const char *msg)
{
	snprintf(x->why, x->len, "%s at byte %td", msg, x->p - x->s);
	return false;
}

static bool utf8_ok(struct xp *x)
{
	const unsigned char *p = (const unsigned char *)x->s;

	while (*p) {
		size_t n = *p < 0x80 ? 1 : *p >= 0xc2 && *p < 0xe0 ? 2 : *p >= 0xe0 && *p < 0xf0 ? 3
			 : *p >= 0xf0 && *p < 0xf5 ? 4 : 0;

		x->p = (const char *)p;
		if (!n)
			return fail(x, "invalid UTF-8 lead byte");
		if (n == 1 && *p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
			return fail(x, "control character");
		for (size_t i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return fail(x, "truncated UTF-8 sequence");
		if (n == 3 && *p == 0xed && p[1] >= 0xa0)
			return fail(x, "UTF-8 surrogate");
		p += n;
	}
	return true;
}

static bool name_start(int c)
{
	return isalpha(c) || c == '_' || c == ':' || c >= 0x80;
}

static size_t name_len(const char *p)
{
	size_t n = 0;

	if (!name_start((unsigned char)*p))
		return 0;
	while (name_start((unsigned char)p[n]) || isdigit((unsigned char)p[n]) || p[n] == '-' ||
	       p[n] == '.')
		n++;
	return n;
}

static bool char_ok(long v)
{
	return v == 9 || v == 10 || v == 13 || (v >= 0x20 && v < 0xd800) ||
	       (v >= 0xe000 && v < 0xfffe) || (v >= 0x10000 && v <= 0x10ffff);
}

/* At '&': a predefined or numeric entity. */
static bool entity(struct xp *x)
{
	static const char *const names[] = { "lt", "gt", "amp", "quot", "apos" };
	const char *p = x->p + 1, *semi = strchr(p, ';');
	char *end;
	long v;

	if (!semi || semi - p > 12)
		return fail(x, "'&' that starts no entity");
	if (*p == '#') {
		v = p[1] == 'x' ? strtol(p + 2, &end, 16) : strtol(p + 1, &end, 10);
		if (end != semi || !isxdigit((unsigned char)p[p[1] == 'x' ? 2 : 1]) || !char_ok(v))
			return fail(x, "bad character reference");
	} else {
		size_t i, n = (size_t)(semi - p);

		for (i = 0; i < 5; i++)
			if (strlen(names[i]) == n && !strncmp(p, names[i], n))
				break;
		if (i == 5)
			return fail(x, "unknown entity");
	}
	x->p = semi + 1;
	return true;
}

static bool text(struct xp *x)
{
	while (*x->p && *x->p != '<') {
		if (x->depth == 0 && !isspace((unsigned char)*x->p))
			return fail(x, "text outside the root element");
		if (*x->p == '&') {
			if (!entity(x))
				return false;
		} else {
			x->p++;
		}
	}
	return true;
}

static bool skip_to(struct xp *x, const char *end, const char *what)
{
	const char *e = strstr(x->p, end);

	if (!e)
		return fail(x, what);
	x->p = e + strlen(end);
	return true;
}

static bool end_tag(struct xp *x)
{
	size_t n = name_len(x->p + 2);

	if (!n || !x->depth)
		return fail(x, "bad end tag");
	x->depth--;
	if (n != x->stack_len[x->depth] || strncmp(x->p + 2, x->stack[x->depth], n))
		return fail(x, "end tag does not match the open element");
	x->p += 2 + n;
	while (isspace((unsigned char)*x->p))
		x->p++;
	if (*x->p != '>')
		return fail(x, "end tag not closed");
	x->p++;
	return true;
}

/* One attribute value after its quote. */
static bool attr_value(struct xp *x)
{
	char q = *x->p++;

	while (*x->p != q) {
		if (!*x->p || *x->p == '<')
			return fail(x, "attribute value not closed, or holds '<'");
		if (*x->p == '&') {
			if (!entity(x))
				return false;
		} else {
			x->p++;
		}
	}
	x->p++;
	return true;
}

static bool start_tag(struct xp *x)
{
	const char *attrs[XML_MAX_ATTRS];
	size_t alen[XML_MAX_ATTRS], na = 0, n = name_len(x->p + 1);

	if (!n)
		return fail(x, "bad element name");
	if (x->depth == 0 && x->roots++)
		return fail(x, "a second root element");
	if (x->depth == XML_MAX_DEPTH)
		return fail(x, "too deep");
	x->stack[x->depth] = x->p + 1;
	x->stack_len[x->depth] = n;
	x->p += 1 + n;
	for (;;) {
		bool space = isspace((unsigned char)*x->p);

		while (isspace((unsigned char)*x->p))
			x->p++;
		if (*x->p == '>' || (x->p[0] == '/' && x->p[1] == '>')) {
			x->depth += *x->p == '>';
			x->p += *x->p == '>' ? 1 : 2;
			return true;
		}
		n = name_len(x->p);
		if (!n || !space || na == XML_MAX_ATTRS)
			return fail(x, "bad attribute");
		for (size_t i = 0; i < na; i++)
			if (alen[i] == n && !strncmp(attrs[i], x->p, n))
				return fail(x, "repeated attribute");
		attrs[na] = x->p;
		alen[na++] = n;
		x->p += n;
		if (*x->p != '=' || (x->p[1] != '"' && x->p[1] != '\''))
			return fail(x, "attribute without a quoted value");
		x->p++;
		if (!attr_value(x))
			return false;
	}
}

const char *xml_check(const char *s, char *why, size_t len)
{
	struct xp x = { .s = s, .p = s, .why = why, .len = len };

	if (!utf8_ok(&x))
		return why;
	x.p = s;
	if (strncmp(s, "<?xml ", 6) || !skip_to(&x, "?>", "declaration not closed"))
		return fail(&x, "no XML declaration"), why;
	while (*x.p) {
		bool ok;

		if (!text(&x))
			return why;
		if (!*x.p)
			break;
		if (!strncmp(x.p, "<!--", 4))
			ok = skip_to(&x, "-->", "comment not closed");
		else if (!strncmp(x.p, "<![CDATA[", 9))
			ok = x.depth ? skip_to(&x, "]]>", "CDATA not closed")
				     : fail(&x, "CDATA outside the root");
		else if (x.p[1] == '/')
			ok = end_tag(&x);
		else
			ok = start_tag(&x);
		if (!ok)
			return why;
	}
	if (x.depth || x.roots != 1)
		return fail(&x, x.depth ? "elements left open" : "no root element"), why;
	return NULL;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the per-row filters in place; 0 or -1. */
static int unfilter(uint8_t *raw, uint32_t w, uint32_t h, int bpp)
{
	size_t stride = (size_t)w * bpp;

	for (uint32_t y = 0; y < h; y++) {
		uint8_t *row = raw + y * (stride + 1), *cur = row + 1;
		const uint8_t *prev = y ? row - stride : NULL;

		for (size_t i = 0; i < stride; i++) {
			int a = i >= (size_t)bpp ? cur[i - bpp] : 0, b = prev ? prev[i] : 0;
			int c = prev && i >= (size_t)bpp ? prev[i - bpp] : 0;

			switch (row[0]) {
			case 0:
				break;
			case 1:
				cur[i] += a;
				break;
			case 2:
				cur[i] += b;
				break;
			case 3:
				cur[i] += (a + b) / 2;
				break;
			case 4:
				cur[i] += paeth(a, b, c);
				break;
			default:
				return -1;
			}
		}
	}
	return 0;
}

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long size;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)size)) && fread(buf, 1, (size_t)size, f) == (size_t)size)
		*n = (size_t)size;
	else if (buf)
		free(buf), buf = NULL;
	fclose(f);
	return buf;
}

/* The IHDR fields and the IDAT data joined. */
static int png_chunks(const uint8_t *f, size_t n, struct png_image *img, int *bpp,
		      uint8_t **idat, size_t *idat_len)
{
	size_t o = 8;

	*idat_len = 0;
	while (o + 12 <= n) {
		uint32_t len = be32(f + o);
		const uint8_t *type = f + o + 4, *data = f + o + 8;

		if (o + 12 + len > n)
			return -1;
		if (!memcmp(type, "IHDR", 4)) {
			img->width = be32(data);
			img->height = be32(data + 4);
			*bpp = data[9] == 6 ? 4 : data[9] == 2 ? 3 : 0;
			if (data[8] != 8 || !*bpp || data[12] != 0)
				return -1;
		} else if (!memcmp(type, "IDAT", 4)) {
			uint8_t *grown = realloc(*idat, *idat_len + len);

			if (!grown)
				return -1;
			*idat = grown;
			memcpy(*idat + *idat_len, data, len);
			*idat_len += len;
		} else if (!memcmp(type, "IEND", 4)) {
			return img->width && *idat_len ? 0 : -1;
		}
		o += 12 + len;
	}
	return -1;
}

int png_load(const char *path, struct png_image *img, char *why, size_t len)
{
	size_t n = 0, idat_len = 0;
	uint8_t *file = read_all(path, &n), *idat = NULL, *raw = NULL;
	uLongf raw_len;
	int bpp = 0, err = -1;

	memset(img, 0, sizeof(*img));
	if (!file || n < 8 || memcmp(file, "\x89PNG\r\n\x1a\n", 8)) {
		snprintf(why, len, "%s: not a PNG file", path);
		goto cleanup;
	}
	if (png_chunks(file, n, img, &bpp, &idat, &idat_len)) {
		snprintf(why, len, "%s: bad chunks, or not 8-bit RGB(A) non-interlaced", path);
		goto cleanup;
	}
	raw_len = (uLongf)img->height * (1 + (uLongf)img->width * bpp);
	raw = malloc(raw_len);
	if (!raw || uncompress(raw, &raw_len, idat, idat_len) != Z_OK ||
	    raw_len != (uLongf)img->height * (1 + (uLongf)img->width * bpp) ||
	    unfilter(raw, img->width, img->height, bpp)) {
		snprintf(why, len, "%s: image data does not decode", path);
		goto cleanup;
	}
	img->rgb = malloc((size_t)img->width * img->height * 3);
	if (!img->rgb)
		goto cleanup;
	for (uint32_t y = 0; y < img->height; y++)
		for (uint32_t x = 0; x < img->width; x++) {
			const uint8_t *px = raw + y * (1 + (size_t)img->width * bpp) + 1 + x * bpp;
			int alpha = bpp == 4 ? px[3] : 255;

			for (int c = 0; c < 3; c++) /* composited on white */
				img->rgb[((size_t)y * img->width + x) * 3 + c] =
					(uint8_t)((px[c] * alpha + 255 * (255 - alpha)) / 255);
		}
	err = 0;
cleanup:
	free(file);
	free(idat);
	free(raw);
	return err;
}

void png_free(struct png_image *img)
{
	free(img->rgb);
	img->rgb = NULL;
}

uint32_t png_pixel(const struct png_image *img, uint32_t x, uint32_t y)
{
	const uint8_t *p = img->rgb + ((size_t)y * img->width + x) * 3;

	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

double svg_frame_attr(const char *svg, const char *title, const char *attr)
{
	const char *t = strstr(svg, title), *a;
	char key[32];

	cr_assert_not_null(t, "no frame titled '%s'", title);
	snprintf(key, sizeof(key), " %s=\"", attr);
	a = strstr(t, key);
	cr_assert_not_null(a, "frame '%s' has no %s", title, attr);
	return strtod(a + strlen(key), NULL);
}
