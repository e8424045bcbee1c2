/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Flame graphs as SVG. The profile (or the two of a diff) is first turned into a tree of
 * frames with their widths, children in name order, so that the layout depends on the content
 * only; then a first walk finds what is drawn (frames at least min_px wide) and how deep it
 * goes, which fixes the height, and a second walk writes it. Widths are sums of the stacks'
 * self values, as in the folded file, never a node's own total: for peak and live-* metrics a
 * total is not the sum of its children's, and a child must never be wider than its parent.
 */
#include "formats/svg.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"

#define CHAR_PX 7.2	  /* width of a 12 px monospace character; the script uses the same */
#define TOP_PX 68	  /* title, subtitle and controls above the frames */
#define TITLE_CHAR_PX 9.0 /* ... of the 15 px title */
#define BOTTOM_PX 26	  /* the details line below them */
#define TITLE_MAX 480
#define SUBJECT_ROOTS 5 /* root frames named in a default subject */

struct fnode {
	const char *name; /* NULL for the root ("all") */
	uint64_t width;	  /* sum over the stacks below of max(before, after) */
	uint64_t before;  /* the frame's total in the before profile (0 for a plain graph) */
	uint64_t after;	  /* ... in the (only) profile */
	size_t nodes;	  /* frames in this subtree, itself included */
	struct fnode *kids;
	size_t nkids;
};

struct svg {
	FILE *out;
	const struct svg_opts *o;
	bool diff;
	bool bytes;
	unsigned width;
	double min_px;
	double scale;	/* px per unit of value */
	uint64_t total; /* the root's width */
	uint64_t total_before, total_after;
	unsigned depth; /* the deepest level drawn */
	size_t dropped; /* frames not drawn, being narrower than min_px (or above one) */
};

static void fnode_fini(struct fnode *f)
{
	for (size_t i = 0; i < f->nkids; i++)
		fnode_fini(&f->kids[i]);
	free(f->kids);
	f->kids = NULL;
	f->nkids = 0;
}

static void fnode_add_kid(struct fnode *f, struct fnode *k)
{
	f->width += k->width;
	f->before += k->before;
	f->after += k->after;
	f->nodes += k->nodes;
	f->nkids++;
}

/*
 * Fills @f from @b (before) and @a (after), either of which may be NULL: their children are
 * merged by name. Subtrees worth nothing are left out. On error @f holds nothing.
 */
static int build(struct fnode *f, const struct pnode *b, const struct pnode *a, enum fl_metric m)
{
	const struct pnode **kb = NULL, **ka = NULL;
	size_t nb, na, i = 0, j = 0;
	int err;

	memset(f, 0, sizeof(*f));
	f->name = a ? a->name : b->name;
	f->before = b ? metric__value(&b->self, m) : 0;
	f->after = a ? metric__value(&a->self, m) : 0;
	f->width = f->before > f->after ? f->before : f->after;
	f->nodes = 1;
	err = pnode__children_by_name(b, &kb, &nb);
	if (!err)
		err = pnode__children_by_name(a, &ka, &na);
	if (!err && nb + na && !(f->kids = calloc(nb + na, sizeof(*f->kids))))
		err = -ENOMEM;
	while (!err && (i < nb || j < na)) {
		int c = i == nb ? 1 : j == na ? -1 : strcmp(kb[i]->name, ka[j]->name);
		const struct pnode *x = c <= 0 ? kb[i++] : NULL, *y = c >= 0 ? ka[j++] : NULL;
		struct fnode *k = &f->kids[f->nkids];

		err = build(k, x, y, m);
		if (!err && k->width)
			fnode_add_kid(f, k);
		else if (!err)
			fnode_fini(k);
	}
	free(kb);
	free(ka);
	if (err)
		fnode_fini(f);
	return err;
}

/* One UTF-8 sequence at @s: its length (>= 1); *@cp the code point, or -1 when invalid or not
 * an XML character. */
static size_t utf8_next(const unsigned char *s, long *cp)
{
	size_t n = s[0] < 0x80 ? 1 :
		   s[0] < 0xc2 ? 0 :
		   s[0] < 0xe0 ? 2 :
		   s[0] < 0xf0 ? 3 :
		   s[0] < 0xf5 ? 4 :
				 0;
	long v = n == 1 ? s[0] : n == 2 ? s[0] & 0x1f : n == 3 ? s[0] & 0x0f : s[0] & 0x07;

	*cp = -1;
	if (!n)
		return 1;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return i;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (v < 0x800 || (v >= 0xd800 && v < 0xe000) || v >= 0xfffe)) ||
	    (n == 4 && (v < 0x10000 || v > 0x10ffff)))
		return n;
	*cp = v;
	return n;
}

static size_t utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	long cp;

	while (*p) {
		p += utf8_next(p, &cp);
		n++;
	}
	return n;
}

/* Writes at most @max characters of @s escaped for XML text and attributes. */
static void put_text(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	long cp;

	for (; *p && max; max--) {
		size_t n = utf8_next(p, &cp);

		if (cp == '<' || cp == '>' || cp == '&' || cp == '"' || cp == '\'')
			fprintf(out, "&#%ld;", cp);
		else if (cp >= 0 && cp < 0x20)
			putc(' ', out);
		else if (cp < 0 || cp == 0x7f)
			putc('?', out);
		else
			fwrite(p, 1, n, out);
		p += n;
	}
}

/* "12,582,912" */
static const char *exact(char *buf, size_t len, uint64_t v)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);
	size_t o = 0;

	for (int i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* What a count metric counts. */
static const char *count_word(enum fl_metric m)
{
	return m == FL_METRIC_FAULTS	  ? "faults" :
	       m == FL_METRIC_ALLOC_COUNT ? "allocations" :
					    "live blocks";
}

/* "12.0 MiB (12,582,912 bytes)" or "1,234 faults". */
static const char *value_text(const struct svg *g, char *buf, size_t len, uint64_t v)
{
	char human[UNITS_BUF], ex[32];

	exact(ex, sizeof(ex), v);
	if (g->bytes)
		snprintf(buf, len, "%s (%s bytes)", units__bytes(human, sizeof(human), v), ex);
	else
		snprintf(buf, len, "%s %s", ex, count_word(g->o->metric));
	return buf;
}

/* "+8.0 MiB (+100.0%)", "-12 (-50.0%)", "+8.0 MiB (new)". */
static void change_text(const struct svg *g, char *buf, size_t len, uint64_t b, uint64_t a)
{
	char d[UNITS_BUF], pct[32];

	snprintf(buf, len, "%s (%s)", units__delta(d, sizeof(d), b, a, g->bytes),
		 units__change(pct, sizeof(pct), b, a, false));
}

static void put_tooltip(const struct svg *g, const struct fnode *f, const char *name)
{
	char v1[96], v2[96], ch[96];

	put_text(g->out, name, SIZE_MAX);
	putc('\n', g->out);
	if (!g->diff) {
		fprintf(g->out, "%s, %.2f%% of all", value_text(g, v1, sizeof(v1), f->after),
			100.0 * (double)f->after / (double)g->total);
		return;
	}
	change_text(g, ch, sizeof(ch), f->before, f->after);
	fprintf(g->out, "before %s, after %s, change %s", value_text(g, v1, sizeof(v1), f->before),
		value_text(g, v2, sizeof(v2), f->after), ch);
}

/* The name cut to what @w px hold ("nam.."), or nothing below 3 characters. */
static void put_label(FILE *out, const char *name, double w)
{
	double fit = floor((w - 6) / CHAR_PX);
	size_t len;

	if (fit < 3)
		return;
	len = utf8_len(name);
	if (len <= (size_t)fit) {
		put_text(out, name, SIZE_MAX);
		return;
	}
	put_text(out, name, (size_t)fit - 2);
	fputs("..", out);
}

static void put_frame(const struct svg *g, const struct fnode *f, unsigned depth, double x,
		      double w)
{
	const char *name = f->name ? f->name : "all";
	unsigned y = TOP_PX + (g->depth - depth) * SVG_FRAME_H;
	uint32_t fill = g->diff ? svg__diff_color(f->before, f->after) :
				  svg__frame_color(name, depth);

	fputs("<g><title>", g->out);
	put_tooltip(g, f, name);
	fprintf(g->out,
		"</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"#%06" PRIx32
		"\" data-v=\"%" PRIu64 "\"/><text x=\"%.2f\" y=\"%u\">",
		x, y, w, SVG_FRAME_H - 1, fill, f->width, x + 3, y + SVG_FRAME_H - 4);
	put_label(g->out, name, w);
	fputs("</text></g>\n", g->out);
}

/* Draws @f at @offset (in value) and what is above it; without @draw, only measures. */
static void walk(struct svg *g, const struct fnode *f, unsigned depth, uint64_t offset, bool draw)
{
	double w = (double)f->width * g->scale;

	if (w < g->min_px) {
		if (!draw)
			g->dropped += f->nodes;
		return;
	}
	if (draw) {
		put_frame(g, f, depth, SVG_MARGIN + (double)offset * g->scale, w);
	} else {
		if (depth > g->depth)
			g->depth = depth;
	}
	for (size_t i = 0; i < f->nkids; i++) {
		walk(g, &f->kids[i], depth + 1, offset, draw);
		offset += f->kids[i].width;
	}
}

/* @o->subject, or the root frames' names: "app, db, +3 more". */
static void subject(const struct fnode *root, const struct svg_opts *o, char *buf, size_t len)
{
	size_t n = 0;

	if (o->subject) {
		snprintf(buf, len, "%s", o->subject);
		return;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < root->nkids && i < SUBJECT_ROOTS; i++)
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? ", " : "",
			      root->kids[i].name);
	if (root->nkids > SUBJECT_ROOTS && n < len)
		snprintf(buf + n, len - n, ", +%zu more", root->nkids - SUBJECT_ROOTS);
}

static void title_text(const struct svg *g, const struct fnode *root, char *buf, size_t len)
{
	const struct svg_opts *o = g->o;
	char subj[256], v1[96], v2[96], ch[96];
	const char *first = o->title ? o->title : "faultline";

	subject(root, o, subj, sizeof(subj));
	if (!g->diff) {
		snprintf(buf, len, "%s %s: %s, %s", first, metric__name(o->metric),
			 value_text(g, v1, sizeof(v1), g->total_after), subj);
		return;
	}
	change_text(g, ch, sizeof(ch), g->total_before, g->total_after);
	snprintf(buf, len, "%s %s: %s %s -> %s %s, %s; %s", first, metric__name(o->metric),
		 o->before_name ? o->before_name : "before",
		 value_text(g, v1, sizeof(v1), g->total_before),
		 o->after_name ? o->after_name : "after",
		 value_text(g, v2, sizeof(v2), g->total_after), ch, subj);
}

static void put_subtitle(const struct svg *g)
{
	fprintf(g->out, "<text class=\"s\" x=\"%u\" y=\"40\" text-anchor=\"middle\">",
		g->width / 2);
	if (g->diff)
		fputs("width: max(before, after) of each stack; red grew, blue shrank, deeper "
		      "for a larger relative change",
		      g->out);
	else
		fprintf(g->out, "width: %s; root at the bottom", metric__name(g->o->metric));
	if (g->dropped)
		fprintf(g->out, "; %zu frames under %g px not drawn", g->dropped, g->min_px);
	fputs("</text>\n", g->out);
}

static void put_head(const struct svg *g, const struct fnode *root, unsigned height)
{
	char title[TITLE_MAX];
	unsigned w = g->width;

	title_text(g, root, title, sizeof(title));
	fprintf(g->out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" data-total=\"%" PRIu64 "\" data-unit=\"%s\" "
		"data-m=\"%d\" data-cw=\"%.1f\">\n<title>",
		w, height, w, height, g->total, g->bytes ? "bytes" : count_word(g->o->metric),
		SVG_MARGIN, CHAR_PX);
	put_text(g->out, title, SIZE_MAX);
	fputs("</title>\n<style>text{font-family:monospace;font-size:12px;fill:#000}"
	      "#frames g{cursor:pointer}#frames g:hover rect{stroke:#000;stroke-width:.5}"
	      ".ui{fill:#1a5fb4;cursor:pointer}.h{font-size:15px}.s{fill:#555}</style>\n",
	      g->out);
	fprintf(g->out,
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
		"<text class=\"h\" x=\"%u\" y=\"22\" text-anchor=\"middle\">",
		w / 2);
	put_label(g->out, title, (w - 2 * SVG_MARGIN) * CHAR_PX / TITLE_CHAR_PX);
	fputs("</text>\n", g->out);
	put_subtitle(g);
	fprintf(g->out,
		"<text id=\"reset\" class=\"ui\" x=\"%d\" y=\"58\" style=\"display:none\">"
		"Reset zoom</text>\n<text id=\"search\" class=\"ui\" x=\"%u\" y=\"58\" "
		"text-anchor=\"end\">Search (Ctrl-F)</text>\n<g id=\"frames\">\n",
		SVG_MARGIN, w - SVG_MARGIN);
}

static void put_tail(const struct svg *g, unsigned height)
{
	if (!g->total)
		fprintf(g->out,
			"<text x=\"%u\" y=\"%d\" text-anchor=\"middle\">(nothing to show "
			"for this metric)</text>\n",
			g->width / 2, TOP_PX + 12);
	fprintf(g->out,
		"</g>\n<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"> </text>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		SVG_MARGIN, height - 9, g->width - SVG_MARGIN, height - 9, svg__script);
}

static int render(struct svg *g, const struct fnode *root)
{
	unsigned height;

	g->width = SVG_WIDTH;
	g->min_px = g->o->min_px > 0 ? g->o->min_px : SVG_MIN_PX;
	g->bytes = metric__is_bytes(g->o->metric);
	g->total = root->width;
	g->total_before = root->before;
	g->total_after = root->after;
	g->scale = g->total ? (double)(g->width - 2 * SVG_MARGIN) / (double)g->total : 0;
	if (g->total)
		walk(g, root, 0, 0, false);
	height = TOP_PX + (g->depth + 1) * SVG_FRAME_H + BOTTOM_PX;
	errno = 0;
	put_head(g, root, height);
	if (g->total)
		walk(g, root, 0, 0, true);
	put_tail(g, height);
	if (fflush(g->out) == EOF || ferror(g->out))
		return errno ? -errno : -EIO;
	return 0;
}

static int write_pair(FILE *out, const struct profile *before, const struct profile *after,
		      const struct svg_opts *o)
{
	struct svg g = { .out = out, .o = o, .diff = before != NULL };
	struct fnode root;
	int err = build(&root, before ? &before->root : NULL, &after->root, o->metric);

	if (err)
		return err;
	err = render(&g, &root);
	fnode_fini(&root);
	return err;
}

int svg__write(FILE *out, const struct profile *p, const struct svg_opts *o)
{
	return write_pair(out, NULL, p, o);
}

int svg__write_diff(FILE *out, const struct profile *before, const struct profile *after,
		    const struct svg_opts *o)
{
	return write_pair(out, before, after, o);
}
