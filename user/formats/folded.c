/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Folded stacks. Lines come in pre-order with siblings in lexical (strcmp) order, so that the
 * same profile always gives the same file whatever order its stacks were added in.
 * In frame names ';' becomes ':' and every control character (newline, tab, ...) a space:
 * ';' separates frames and a line must hold exactly one stack.
 */
#include "formats/folded.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct folded_ctx {
	FILE *out;
	enum fl_metric metric;
};

static int write_err(void)
{
	return errno ? -errno : -EIO;
}

static int write_frame(FILE *out, const char *name)
{
	const unsigned char *s;
	int c;

	for (s = (const unsigned char *)name; *s; s++) {
		c = *s;
		if (c == ';')
			c = ':';
		else if (c < 0x20 || c == 0x7f)
			c = ' ';
		if (putc(c, out) == EOF)
			return write_err();
	}
	return 0;
}

/* The frames from the root's child down to @n, through the parent links. */
static int write_path(FILE *out, const struct pnode *n)
{
	int err = 0;

	if (n->parent && n->parent->name) {
		err = write_path(out, n->parent);
		if (!err && putc(';', out) == EOF)
			err = write_err();
	}
	return err ? err : write_frame(out, n->name);
}

static int write_line(struct folded_ctx *c, const struct pnode *n, uint64_t value)
{
	int err = write_path(c->out, n);

	if (err)
		return err;
	if (fprintf(c->out, " %" PRIu64 "\n", value) < 0)
		return write_err();
	return 0;
}

static int write_subtree(struct folded_ctx *c, const struct pnode *n);

/* Writes the children of @n in name order. */
static int write_children(struct folded_ctx *c, const struct pnode *n)
{
	const struct pnode **kids;
	size_t nkids;
	int err = pnode__children_by_name(n, &kids, &nkids);

	for (size_t i = 0; i < nkids && !err; i++)
		err = write_subtree(c, kids[i]);
	free(kids);
	return err;
}

static int write_subtree(struct folded_ctx *c, const struct pnode *n)
{
	uint64_t v = metric__value(&n->self, c->metric);
	int err = v ? write_line(c, n, v) : 0;

	/* no shortcut on a zero total: for peak and live-* a node's total is not the sum of the
	 * values below it (+10 and -10 make 0), so a child can have a line of its own */
	return err ? err : write_children(c, n);
}

int folded__write_layout(FILE *out, const struct folded_layout *l)
{
	errno = 0;
	if (fprintf(out, FOLDED_LAYOUT_PREFIX "metric=%s by=%s threads=%s\n",
		    metric__name(l->metric), l->by, l->threads ? "yes" : "no") < 0)
		return write_err();
	return 0;
}

int folded__write(FILE *out, const struct profile *p, enum fl_metric m)
{
	struct folded_ctx c = { .out = out, .metric = m };
	int err;

	errno = 0;
	err = write_children(&c, &p->root);
	if (!err && fflush(out) == EOF)
		err = write_err();
	return err;
}
