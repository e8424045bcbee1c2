// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "follow.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include "base/grow.h"

void follow__start_naming(struct session *s, struct target *t)
{
	struct fl_proc p;

	target__start_naming(t, s->elf);
	t->execs = tracer__target_proc(s->tracer, t->sum.pid, &p) ? 0 : p.execs;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

void follow__refresh(struct session *s, struct target *t)
{
	struct fl_proc p;
	/* the count before the read: an exec in between only makes the figures look stale */
	bool have = t->sum.alive && !tracer__target_proc(s->tracer, t->sum.pid, &p);

	target__refresh(t);
	if (have && t->sum.alive)
		t->now_execs = p.execs;
}

void follow__retire(struct session *s, pid_t pid)
{
	struct target *t = target_set__find(&s->targets, pid);
	struct fl_mm gone[8];
	struct fl_proc p;
	size_t n;

	/* its last figures belong to an image it left: the ones at its exit are unknown (a
	 * launched command's are zeros from before its exec) */
	if (!tracer__target_proc(s->tracer, pid, &p)) {
		if (t && p.execs != t->now_execs)
			t->sum.no_status = true;
		/* the blocks its execs left behind stay told apart */
		if (p.exec_id)
			collector__keep_gen(s->col, (uint32_t)pid, p.exec_id);
	}
	n = tracer__remove_target(s->tracer, pid, gone, 8);
	collector__keep_mms(s->col, gone, n);
}

/* A child the fork program added: a target from now on, with the allocator probes too. */
static void follow(struct session *s, pid_t pid)
{
	struct target *t = target_set__add(&s->targets);
	struct fl_thread th;
	struct fl_proc p;
	bool have_p;

	if (!t) {
		fprintf(stderr, "faultline: out of memory: child %d not shown\n", pid);
		tracer__remove_target(s->tracer, pid, NULL, 0);
		return;
	}
	/* the BPF entry before the status: a baseline taken in between is in the status */
	have_p = !tracer__target_proc(s->tracer, pid, &p);
	target__init_followed(t, pid, have_p ? &p : NULL,
			      collector__thread(s->col, (uint32_t)pid, &th) ? NULL : th.comm);
	t->now_execs = have_p ? p.execs : 0;
	if (s->cfg->verbose)
		fprintf(stderr, "faultline: following new process %d (%s)%s\n", pid, t->sum.comm,
			t->sum.alive ? "" : ", already exited");
	if (!t->sum.alive) {
		/* mappings made after the fork are missing there: those frames stay addresses */
		if (have_p && !p.execs && p.parent)
			target__name_from_parent(t, s->elf, (pid_t)p.parent);
		follow__retire(s, pid);
		return;
	}
	follow__start_naming(s, t);
	/* not fatal: the child may be gone already, or map no allocator */
	if (s->cfg->alloc)
		allocsetup__attach(s->tracer, &s->alloc, pid, NULL);
}

void follow__discover(struct session *s)
{
	pid_t *pids = NULL, *known;
	size_t n = 0, nknown = s->targets.n;

	if (!s->cfg->children || tracer__target_pids(s->tracer, &pids, &n) || !n)
		goto cleanup;
	known = malloc(nknown * sizeof(*known) + 1);
	if (!known)
		goto cleanup;
	for (size_t i = 0; i < nknown; i++)
		known[i] = s->targets.v[i].sum.pid;
	qsort(known, nknown, sizeof(*known), cmp_pid);
	/* sorted, so a key the walk returned twice (the map changed under it) is seen once */
	qsort(pids, n, sizeof(*pids), cmp_pid);
	for (size_t i = 0; i < n; i++) {
		if ((i && pids[i] == pids[i - 1]) ||
		    bsearch(&pids[i], known, nknown, sizeof(*known), cmp_pid))
			continue;
		follow(s, pids[i]);
	}
	free(known);
cleanup:
	free(pids);
}

/* bsearch() of a pid among targets sorted by pid */
static int cmp_pid_target(const void *key, const void *elem)
{
	pid_t x = *(const pid_t *)key, y = (*(struct target *const *)elem)->sum.pid;

	return x < y ? -1 : x > y;
}

static int cmp_target(const void *a, const void *b)
{
	return cmp_pid_target(&(*(struct target *const *)a)->sum.pid, b);
}

void follow__reload_execs(struct session *s)
{
	size_t nrows, n = 0, cap = 0;
	const struct fl_row *rows = collector__rows(s->col, &nrows);
	struct target **execd = NULL, **bigger;

	for (size_t i = 0; i < s->targets.n; i++) {
		struct target *t = &s->targets.v[i];
		struct fl_proc p;

		if (!t->sum.alive || tracer__target_proc(s->tracer, t->sum.pid, &p) ||
		    p.execs == t->execs)
			continue;
		bigger = grow__reserve(execd, &cap, n, sizeof(*execd));
		if (!bigger)
			break; /* out of memory: the next refresh retries the others */
		execd = bigger;
		execd[n++] = t;
	}
	/* one pass over the rows, however many targets exec'd (execd is NULL when none did) */
	if (n > 1)
		qsort(execd, n, sizeof(*execd), cmp_target);
	for (size_t r = 0; r < nrows && n; r++) {
		pid_t pid = (pid_t)rows[r].key.tgid;
		struct target **t;
		const char *const *names;

		if (rows[r].key.origin == FL_ORIGIN_USER &&
		    (t = bsearch(&pid, execd, n, sizeof(*execd), cmp_pid_target)))
			frames__get(s->frames, s->col, (*t)->sym, &rows[r].key, &names);
	}
	for (size_t i = 0; i < n; i++) {
		follow__start_naming(s, execd[i]);
		if (s->cfg->verbose)
			fprintf(stderr, "faultline: process %d exec'd: now %s\n", execd[i]->sum.pid,
				execd[i]->sum.comm);
	}
	free(execd);
}

void follow__exits(struct session *s)
{
	for (size_t i = 0; i < s->targets.n; i++) {
		struct target *t = &s->targets.v[i];

		if (!t->sum.alive || !target__exited(t))
			continue;
		/* a forking server's children come and go: only -v tells each */
		if (!t->sum.followed || s->cfg->verbose)
			fprintf(stderr, "faultline: process %d (%s) exited\n", t->sum.pid,
				t->sum.comm);
		follow__retire(s, t->sum.pid);
	}
}

void follow__launched_gone(struct session *s)
{
	struct fl_proc_summary *sum = &s->targets.v[0].sum;
	int status = s->launch.status;
	char how[64];

	s->launched = false;
	sum->alive = false;
	sum->have_exit = true;
	sum->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	sum->exit_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	follow__retire(s, s->launch.pid);
	if (!sum->exit_code && !sum->exit_signal)
		return;
	proc_summary__ending(sum, how, sizeof(how));
	fprintf(stderr, "faultline: %s (pid %d) %s\n", s->cfg->command[0], sum->pid, how);
}

void follow__end_launch(struct session *s)
{
	if (!s->launched || s->child_waiting)
		return;
	launch__detach(&s->launch);
	if (s->launch.reaped)
		follow__launched_gone(s);
	else
		fprintf(stderr, "faultline: %s (pid %d) still runs: left running, untraced\n",
			s->cfg->command[0], s->launch.pid);
}
