// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "forget.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "trace/retired.h"

/*
 * Whether exited target @t can go: a child whose rows all moved under another's key (folded,
 * none kept its own, its names gone with them), retired before the last move but one, so that
 * no row of its teardown can still come; and not the newest process of its pid while an older
 * one is listed (the rows without a generation would find that older one), which goes first.
 */
static bool forgettable(const struct session *s, const struct target *t)
{
	return t->sum.followed && t->retired && !t->sum.alive && !t->sym && !t->older &&
	       collector__moves(s->col) > t->retired_at + 1 &&
	       collector__folded(s->col, (uint32_t)t->sum.pid, t->gen) &&
	       !collector__kept_own(s->col, (uint32_t)t->sum.pid, t->gen);
}

static size_t exited_children(const struct target_set *set)
{
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++)
		n += set->v[i].sum.followed && !set->v[i].sum.alive;
	return n;
}

struct marks {
	const struct target *base;
	const bool *gone;
};

static bool marked(const struct target *t, void *ctx)
{
	const struct marks *m = ctx;

	return m->gone[t - m->base];
}

/* Takes the @n processes marked in @gone out of everything that holds them; their summaries
 * @sums into the session's forgotten. */
static int forget(struct session *s, const bool *gone, struct retired_proc *procs,
		  const struct fl_proc_summary *sums, size_t n)
{
	struct marks m = { s->targets.v, gone };
	size_t *moved = malloc(s->targets.n * sizeof(*moved));
	int err = moved ? collector__forget(s->col, procs, n) : -ENOMEM;
	size_t lost = 0;

	if (err) {
		free(moved);
		return err;
	}
	for (size_t i = 0; i < n; i++)
		lost += forgotten__add(&s->forgotten, &sums[i]) != 0;
	if (lost)
		fprintf(stderr,
			"faultline: out of memory: the figures of %zu exited processes "
			"are lost\n",
			lost);
	target_set__drop(&s->targets, marked, &m, moved);
	/* a child waiting to drop its names is not forgettable: it has them */
	for (size_t i = 0; i < s->nfold_waits; i++)
		s->fold_waits[i].target = moved[s->fold_waits[i].target] - 1;
	free(moved);
	return 0;
}

void forget__exited(struct session *s)
{
	size_t limit = s->cfg->keep_exited, exited = exited_children(&s->targets), over, n = 0;
	struct fl_proc_summary *sums;
	struct retired_proc *procs;
	bool *gone;

	/* by a quarter of the bound at a time; again once as many more exited, or rows moved
	 * (some kept may have become forgettable): each pass walks every target */
	if (exited <= limit + limit / 4 ||
	    (exited < s->forget_at && collector__moves(s->col) == s->forget_moves))
		return;
	over = exited - limit;
	gone = calloc(s->targets.n, sizeof(*gone));
	procs = malloc(over * sizeof(*procs));
	sums = malloc(over * sizeof(*sums));
	for (size_t i = 0; gone && procs && sums && i < s->targets.n && n < over; i++) {
		const struct target *t = &s->targets.v[i];

		if (!forgettable(s, t))
			continue;
		gone[i] = true;
		procs[n] = (struct retired_proc){ (uint32_t)t->sum.pid, t->gen };
		/* before the collector forgets what it was charged */
		snapshot__summary(s->col, t, &sums[n++]);
	}
	if (!gone || !procs || !sums || (n && forget(s, gone, procs, sums, n)))
		fprintf(stderr, "faultline: out of memory: exited processes are kept\n");
	else if (n && s->cfg->verbose)
		fprintf(stderr, "faultline: %zu exited processes forgotten (--keep-exited %zu)\n",
			n, limit);
	s->forget_at = exited - n + limit / 4;
	s->forget_moves = collector__moves(s->col);
	free(gone);
	free(procs);
	free(sums);
}
