// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "stackpath.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The frames and lines of the expanded path, and the text the lines are written in. */
struct expanded {
	const char **names;
	const char **srcs;
	size_t n;
	char *text;
	size_t used, cap;
};

/* Appends frame @name with line @l (NULL: none) to @x. */
static void push(struct expanded *x, const char *name, const struct frame_line *l)
{
	x->names[x->n] = name;
	x->srcs[x->n] = NULL;
	if (l && l->file) {
		char *at = x->text + x->used;
		int len = snprintf(at, x->cap - x->used, "%s:%u", l->file, l->line);

		if (len > 0 && (size_t)len < x->cap - x->used) {
			x->srcs[x->n] = at;
			x->used += (size_t)len + 1;
		}
	}
	x->n++;
}

int stackpath__leaf(struct profile *p, const char *const *path,
		    const struct frame_info *const *infos, size_t depth, bool inline_frames,
		    struct pnode **leaf)
{
	struct expanded x = { 0 };
	size_t frames = 0;
	bool any = false;
	int err = -ENOMEM;

	for (size_t i = 0; i < depth; i++) {
		const struct frame_info *fi = infos[i];

		frames += fi && inline_frames ? fi->nlines : 1;
		for (size_t k = 0; fi && k < fi->nlines; k++)
			if (fi->lines[k].file) {
				x.cap += strlen(fi->lines[k].file) + 12;
				any = true;
			}
	}
	if (!any && !inline_frames)
		return profile__path(p, path, NULL, depth, leaf);
	x.names = calloc(frames ? frames : 1, sizeof(*x.names));
	x.srcs = calloc(frames ? frames : 1, sizeof(*x.srcs));
	x.text = malloc(x.cap ? x.cap : 1);
	if (!x.names || !x.srcs || !x.text)
		goto cleanup;
	for (size_t i = 0; i < depth; i++) {
		const struct frame_info *fi = infos[i];

		if (!fi || !fi->nlines) {
			push(&x, path[i], NULL);
			continue;
		}
		/* the function itself (its line is the outermost call's), then what was inlined */
		push(&x, path[i], &fi->lines[fi->nlines - 1]);
		for (size_t k = fi->nlines - 1; inline_frames && k-- > 0;)
			push(&x, fi->lines[k].name, &fi->lines[k]);
	}
	err = profile__path(p, x.names, x.srcs, x.n, leaf);
cleanup:
	free(x.names);
	free(x.srcs);
	free(x.text);
	return err;
}
