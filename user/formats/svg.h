/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Flame graphs as self-contained interactive SVG files (--svg, faultline diff --svg): one
 * profile, or the difference of two. The writers are pure functions of their profiles and
 * options: the same input gives the same bytes.
 */
#ifndef FAULTLINE_SVG_H
#define FAULTLINE_SVG_H

#include <stdint.h>
#include <stdio.h>
#include "model/profile.h"

#define SVG_WIDTH 1200 /* image width in px */
#define SVG_MIN_PX 1.0 /* default: frames narrower than this are not drawn */
#define SVG_MARGIN 10  /* px left and right of the frames */
#define SVG_FRAME_H 16 /* px per stack level, the 1 px gap included */

struct svg_opts {
	enum fl_metric metric;	 /* a frame's value; says whether values are bytes or a count */
	const char *title;	 /* the title's first words; NULL: "faultline" */
	const char *subject;	 /* what was profiled ("pid 12 app, ..."); NULL: the root frames */
	const char *before_name; /* diff: names of the two inputs, for the title (NULL: "before") */
	const char *after_name;	 /* ... (NULL: "after") */
	double min_px;		 /* frames narrower are not drawn; 0: SVG_MIN_PX */
};

/*
 * Writes the flame graph of @p by @o->metric to @out: root ("all") at the bottom, one
 * <g><title/><rect/><text/></g> per frame, children of a frame in strcmp() order of their
 * names, a frame's width proportional to the sum of the folded lines below it (what
 * folded__write() gives for the same metric). A frame narrower than @o->min_px is not drawn,
 * nor anything above it; its value still counts in its parent's width. Each <title> holds
 * "NAME\nVALUE, P% of all" (VALUE "12.0 MiB (12,582,912 bytes)", or "N faults" for a count).
 * Names are escaped for XML; control characters become spaces, invalid UTF-8 '?'. The inline
 * script zooms on click, searches on Ctrl-F or '/'. Returns 0, -ENOMEM, or -errno of a failed
 * write (-EIO when unknown); flushes @out.
 */
int svg__write(FILE *out, const struct profile *p, const struct svg_opts *o);

/*
 * The differential flame graph of @before and @after: the union of their trees; a stack's
 * width is max(its value in @before, in @after), so stacks that shrank or went away stay
 * visible, and a frame's the sum over the stacks below it. Each frame is coloured by the
 * change of its own total: red when it grew, blue when it shrank, deeper with the relative
 * change (delta / max(before, after)), grey when unchanged. <title>: "NAME\nbefore V, after
 * V, +D (+P%)". Otherwise as svg__write().
 */
int svg__write_diff(FILE *out, const struct profile *before, const struct profile *after,
		    const struct svg_opts *o);

/* The palette, as 0xRRGGBB. A frame of svg__write() at @depth (0: "all") named @name. */
uint32_t svg__frame_color(const char *name, unsigned depth);
/* A frame of svg__write_diff() whose total went from @before to @after. */
uint32_t svg__diff_color(uint64_t before, uint64_t after);

/* The inline script (svgscript.c). */
extern const char svg__script[];

#endif /* FAULTLINE_SVG_H */
