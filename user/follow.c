// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "follow.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "base/grow.h"
#include "base/pace.h"
#include "base/procfs.h"
#include "trace/walkrepair.h"

/* The unwind tables of @t's code, when it maps other code than they were loaded for. */
static void sync_unwind(struct session *s, struct target *t)
{
	uint64_t layout;

	if (!t->sym || !t->sum.alive)
		return;
	layout = symbolizer__layout(t->sym);
	if (layout == t->unwind_layout)
		return;
	t->unwind_layout = layout;
	if (unwinder__sync(s->unwind, t->sum.pid, t->sym) && s->cfg->verbose)
		fprintf(stderr, "faultline: process %d: no unwind tables loaded\n", t->sum.pid);
}

/* The target that forked @t, when -f followed it and its parent is still known. */
static struct target *parent_of(struct session *s, const struct target *t)
{
	return t->sum.followed ? target_set__find(&s->targets, t->parent) : NULL;
}

/* Reads of the maps after an exec: at 1, 2, 4, ... 128 ms, while ld.so maps the libraries and
 * the program opens its own (a short-lived one would otherwise run by frame pointers in
 * them until the next refresh). */
#define SETTLE_FIRST_NS 1000000ull
#define SETTLE_STEPS 8

/* @t runs a new image: its maps are read again while they settle (follow__settle()). */
static void start_settling(struct target *t)
{
	t->settle_at = pace__now() + SETTLE_FIRST_NS;
	t->settle_step = 0;
}

/* Reads @t's maps (a new symbolizer); its unwind tables now, or with @later at the next
 * follow__load_tables(). */
static void start_naming(struct session *s, struct target *t, bool later)
{
	const struct target *parent = parent_of(s, t);
	struct fl_proc p;
	/* read before the maps: an exec between the two then leaves the count behind, and the
	 * next follow__reload_execs() reads the new image's maps (after, it would take the old
	 * image's maps for the new one's, for good) */
	uint32_t execs =
		tracer__target_proc(s->tracer, t->sum.pid, &p) || p.gen != t->gen ? 0 : p.execs;

	target__start_naming(t, s->elf, parent ? parent->sym : NULL);
	t->execs = execs;
	if (later)
		t->tables_due = true;
	else
		sync_unwind(s, t);
	/* a new image (not a fork's copy of its parent's): ld.so is mapping its libraries */
	if (t->execs)
		start_settling(t);
}

void follow__start_naming(struct session *s, struct target *t)
{
	start_naming(s, t, false);
}

void follow__code_mapped(struct session *s, struct target *t)
{
	if (s->cfg->alloc)
		tracer__alloc_remap(s->tracer, t->sum.pid);
	if (!t->sym)
		return;
	symbolizer__refresh(t->sym);
	sync_unwind(s, t);
}

void follow__load_tables(struct session *s)
{
	bool any = false;

	for (size_t i = 0; i < s->targets.n && !any; i++)
		any = s->targets.v[i].tables_due;
	/* an object's tables take 10-500 ms: a target that exec'd since it was named (a runtime
	 * moves a process into a cgroup, then it execs) has the new image's maps read first, or
	 * its life can pass within the build of its old image's tables (the target set read
	 * again first: its exec counts are what tell). Once a call: a storm of execs brings
	 * events at every turn */
	if (any && tracer__take_events(s->tracer)) {
		follow__discover(s);
		follow__reload_execs(s);
	}
	for (size_t i = 0; i < s->targets.n; i++) {
		struct target *t = &s->targets.v[i];

		if (!t->tables_due)
			continue;
		t->tables_due = false;
		/* gone meanwhile (a storm's short programs): its objects' tables still go in, for
		 * the next process to run them */
		if (t->sum.alive)
			sync_unwind(s, t);
		else if (t->sym && unwinder__publish(s->unwind, t->sym))
			fprintf(stderr,
				"faultline: out of memory loading the tables of process %d\n",
				t->sum.pid);
	}
}

uint64_t follow__settle(struct session *s)
{
	uint64_t now = pace__now(), next = 0;

	for (size_t i = 0; i < s->targets.n; i++) {
		struct target *t = &s->targets.v[i];

		if (!t->settle_at)
			continue;
		if (!t->sym || !t->sum.alive || t->retired) {
			t->settle_at = 0;
			continue;
		}
		if (now >= t->settle_at) {
			follow__code_mapped(s, t);
			t->settle_at = ++t->settle_step < SETTLE_STEPS ?
					       now + (SETTLE_FIRST_NS << t->settle_step) :
					       0;
		}
		if (t->settle_at && (!next || t->settle_at < next))
			next = t->settle_at;
	}
	return next;
}

/* A live child holds its /proc entry while it has a symbolizer: thousands of them at once
 * would run out of fds, so past the budget a child is named at its exit only. */
static void start_naming_child(struct session *s, struct target *t)
{
	if (s->child_syms >= s->fd_budget) {
		if (s->cfg->verbose && s->child_syms == s->fd_budget)
			fprintf(stderr,
				"faultline: %zu children alive: the next are named when they "
				"exit (open files limit)\n",
				s->child_syms);
		t->execs = 0;
		return;
	}
	start_naming(s, t, true);
	s->child_syms += t->sym != NULL;
}

void follow__refresh(struct session *s, struct target *t, bool final, size_t alive)
{
	struct fl_proc p;
	/* the count before the read: an exec in between only makes the figures look stale */
	bool have = t->sum.alive && !tracer__target_proc(s->tracer, t->sum.pid, &p);

	target__refresh(t, final, alive);
	if (have && t->sum.alive) {
		t->now_execs = p.execs;
		target__take_bases(t, &p);
	}
	sync_unwind(s, t);
}

/* The fl_file_id() of the program @sym's process runs (its lowest code mapping), 0: unknown. */
static uint64_t program_of(const struct symbolizer *sym)
{
	struct symbolizer_code code;

	return symbolizer__code(sym, &code, 1) ? code.file_id : 0;
}

/* The fold class of @t: its name and code layout, or exec'd, its name and program. */
static struct fold_class *fold_class_of(struct session *s, const struct target *t, bool execd)
{
	uint64_t layout = execd ? 0 : symbolizer__layout(t->sym);
	uint64_t exe = execd ? program_of(t->sym) : 0;
	struct fold_class *v;

	if (execd && !exe)
		return NULL;
	for (size_t i = 0; i < s->nfolds; i++)
		if (s->folds[i].layout == layout && s->folds[i].exe == exe &&
		    !strcmp(s->folds[i].comm, t->sum.comm))
			return &s->folds[i];
	v = grow__reserve(s->folds, &s->folds_cap, s->nfolds, sizeof(*v));
	if (!v)
		return NULL;
	s->folds = v;
	v = &s->folds[s->nfolds++];
	*v = (struct fold_class){ .layout = layout, .exe = exe, .pid = t->sum.pid, .gen = t->gen };
	snprintf(v->comm, sizeof(v->comm), "%s", t->sum.comm);
	return v;
}

/*
 * An exited child shares rows with the first such child of its name and code layout (named
 * alike, by design) when it never exec'd; of its name and program when it did, for the rows
 * of stacks named alike in every process (frames of objects alone). A server's forks over
 * hours, or a storm of forks or of short programs, then cost memory by their different
 * stacks, not by their number. Each keeps what it was charged; its symbolizer goes, as the
 * first one's names its rows, once no row of its own is left to name.
 */
static void fold(struct session *s, struct target *t, const struct fl_proc *p, bool gen0)
{
	bool execd = p && (p->execs || p->exec_id);
	struct fold_class *c;
	struct fold_wait *w;

	if (!t->sum.followed || !t->sym || !p || !(c = fold_class_of(s, t, execd)))
		return;
	if (collector__fold(s->col, (uint32_t)t->sum.pid, t->gen, gen0, (uint32_t)c->pid, c->gen,
			    execd))
		return;
	t->sum.folded_into = c->pid;
	if (c->pid == t->sum.pid && c->gen == t->gen)
		return;
	if (!execd) {
		symbolizer__free(t->sym);
		t->sym = NULL;
		return;
	}
	w = grow__reserve(s->fold_waits, &s->fold_waits_cap, s->nfold_waits, sizeof(*w));
	if (!w)
		return; /* out of memory: it keeps its names */
	s->fold_waits = w;
	/* a row made in its teardown may come after the next move: the one after that */
	s->fold_waits[s->nfold_waits++] =
		(struct fold_wait){ t - s->targets.v, collector__moves(s->col) + 1 };
}

size_t follow__portable_walk(void *ctx, const struct fl_key *key, const uint64_t *ips, size_t n,
			     uint64_t *out)
{
	struct session *s = ctx;
	struct target *t = target_set__find_gen(&s->targets, (pid_t)key->tgid, key->gen);

	return t && t->sym ? walk__portable(s->unwind, t->sym, key, ips, n, out) : 0;
}

void follow__drop_folded_names(struct session *s)
{
	uint64_t moves = collector__moves(s->col);
	size_t kept = 0;

	for (size_t i = 0; i < s->nfold_waits; i++) {
		struct fold_wait *w = &s->fold_waits[i];
		struct target *t = &s->targets.v[w->target];

		if (moves <= w->moves) {
			s->fold_waits[kept++] = *w;
			continue;
		}
		if (!collector__kept_own(s->col, (uint32_t)t->sum.pid, t->gen)) {
			symbolizer__free(t->sym);
			t->sym = NULL;
		}
	}
	s->nfold_waits = kept;
}

void follow__retire(struct session *s, struct target *t)
{
	struct target *parent = parent_of(s, t);
	bool held = t->sum.followed && t->sym;
	bool gen0 = target_set__find(&s->targets, t->sum.pid) == t;
	struct fl_proc p;
	bool have;
	struct fl_mm gone[2];
	size_t n;
	int err;

	if (t->retired)
		return;
	have = !tracer__target_proc(s->tracer, t->sum.pid, &p) && p.gen == t->gen;
	/* its last figures belong to an image it left: the ones at its exit are unknown (a
	 * launched command's are zeros from before its exec) */
	if (have) {
		if (p.execs != t->now_execs)
			t->sum.no_status = true;
		target__take_bases(t, &p);
		target__take_exit_rss(t, &p);
		target__take_counters(t, &p);
		/* the blocks its execs left behind stay told apart */
		if (p.exec_id)
			collector__keep_gen(s->col, (uint32_t)t->sum.pid, p.exec_id);
	}
	/* the blocks it leaves would sit in the live table for the rest of the session */
	if (collector__forget_blocks(s->col, (uint32_t)t->sum.pid, have ? p.exec_id : 0))
		fprintf(stderr,
			"faultline: out of memory: blocks of process %d stay in the live "
			"table\n",
			t->sum.pid);
	/* the parent names what the child did before an exec: with its mappings of now */
	if (parent && parent->sym && parent->sum.alive)
		symbolizer__refresh_stale(parent->sym);
	n = tracer__remove_target(s->tracer, t->sum.pid, gone, 2);
	unwinder__forget(s->unwind, t->sum.pid);
	collector__keep_mms(s->col, gone, n);
	/* its rows leave the counts map: a storm of children fills it no more than its living */
	if (collector__retire(s->col, (uint32_t)t->sum.pid, t->gen, gen0))
		fprintf(stderr, "faultline: out of memory: rows of process %d stay in the map\n",
			t->sum.pid);
	/* named from what it mapped as it exited; a child seen never, and no record of it: from
	 * its parent when it never exec'd (mappings made after the fork stay addresses) */
	err = target__name_at_exit(t, s->elf, s->exits, parent ? parent->sym : NULL);
	/* found exited (a zombie) before the BPF side's word came: its records came first */
	if (err == -ENOENT && s->exits && !exit_maps__poll(s->exits))
		err = target__name_at_exit(t, s->elf, s->exits, parent ? parent->sym : NULL);
	/* the tables of what it ran, for the next to run it: a program a storm starts again and
	 * again, each gone before its maps could be read, is walked by them from the second on */
	if (!err && unwinder__publish(s->unwind, t->sym))
		fprintf(stderr, "faultline: out of memory loading the tables of process %d\n",
			t->sum.pid);
	if (err == -ENOENT && !t->sym && t->sum.followed && !t->execs && parent) {
		const struct collector_proc *e = collector__proc(s->col, t->sum.pid);

		if (!e || !e->p.execs)
			target__name_from_parent(t, s->elf, t->parent);
	}
	fold(s, t, have ? &p : NULL, gen0);
	s->child_syms -= held && s->child_syms;
	t->retired = true;
	t->retired_at = collector__moves(s->col);
	t->sum.alive = false;
}

/* A child the fork program added: a target from now on, with the allocator probes too. */
static void follow(struct session *s, const struct collector_proc *e)
{
	struct target *t = target_set__add(&s->targets);
	struct fl_thread th;

	if (t) {
		target__init_followed(t, e->pid, &e->p, NULL);
		t->now_execs = e->p.execs;
	}
	if (!t || target_set__index(&s->targets, t)) {
		fprintf(stderr, "faultline: out of memory: child %d not shown\n", e->pid);
		if (t)
			s->targets.n--;
		tracer__remove_target(s->tracer, e->pid, NULL, 0);
		return;
	}
	if (!t->sum.alive && !collector__thread(s->col, (uint32_t)e->pid, &th))
		snprintf(t->sum.comm, sizeof(t->sum.comm), "%s", th.comm);
	/* gone before it was read: a fork is born in its parent's cgroup */
	if (!t->sum.cgroup[0] && parent_of(s, t))
		snprintf(t->sum.cgroup, sizeof(t->sum.cgroup), "%s", parent_of(s, t)->sum.cgroup);
	if (!t->sum.alive || (e->p.flags & FL_PROC_EXITED)) {
		if (s->cfg->verbose)
			fprintf(stderr,
				"faultline: following new process %d (%s), already exited\n",
				e->pid, t->sum.comm);
		t->sum.alive = false;
		follow__retire(s, t);
		return;
	}
	start_naming_child(s, t);
	/* not fatal: the child may be gone already, or map no allocator */
	if (s->cfg->alloc)
		allocsetup__attach(s->tracer, &s->alloc, e->pid, NULL);
	/* once its maps are read: what it runs from here on is named even if it exits at once */
	if (s->cfg->verbose)
		fprintf(stderr, "faultline: following new process %d (%s)\n", e->pid, t->sum.comm);
}

/* A child the BPF side saw exit. */
static void child_exited(struct session *s, struct target *t)
{
	if (s->cfg->verbose)
		fprintf(stderr, "faultline: process %d (%s) exited\n", t->sum.pid, t->sum.comm);
	t->sum.alive = false;
	follow__retire(s, t);
}

void follow__discover(struct session *s)
{
	const struct collector_proc *procs;
	size_t n;

	if (!s->cfg->children || collector__read_procs(s->col))
		return;
	/* before the exits: a target seen exited has its records in the ring already */
	if (s->exits && exit_maps__poll(s->exits))
		fprintf(stderr, "faultline: out of memory reading the mappings of exited "
				"processes\n");
	procs = collector__procs(s->col, &n);
	for (size_t i = 0; i < n; i++) {
		const struct collector_proc *e = &procs[i];
		struct target *t;

		/* sorted: a key the walk returned twice (the map changed under it) is seen once */
		if (i && e->pid == procs[i - 1].pid)
			continue;
		t = target_set__find_gen(&s->targets, e->pid, (uint16_t)e->p.gen);
		if (!t)
			follow(s, e);
		else if ((e->p.flags & FL_PROC_EXITED) && t->sum.followed && !t->retired)
			child_exited(s, t);
	}
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
		const struct collector_proc *e = collector__proc(s->col, t->sum.pid);
		struct fl_proc p;

		if (!t->sum.alive || t->retired)
			continue;
		/* the target set is read with the rows when -f, else looked up */
		if (!e && !tracer__target_proc(s->tracer, t->sum.pid, &p))
			e = &(struct collector_proc){ .pid = t->sum.pid, .p = p };
		/* the target set read before @t was named can be older than its name: only a count
		 * above the one it was named at is an exec (a second naming of the same image,
		 * as it exits, reads no maps) */
		if (!e || e->p.gen != t->gen || e->p.execs <= t->execs)
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
		    (t = bsearch(&pid, execd, n, sizeof(*execd), cmp_pid_target)) &&
		    (!rows[r].key.gen || rows[r].key.gen == (*t)->gen))
			frames__get(s->frames, s->col, (*t)->sym, &rows[r].key, &names);
	}
	for (size_t i = 0; i < n; i++) {
		bool held = execd[i]->sym != NULL;

		follow__start_naming(s, execd[i]);
		if (execd[i]->sum.followed)
			s->child_syms += (execd[i]->sym != NULL) - held;
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

		/* a child's exit is the BPF side's to say (follow__discover()) */
		if (t->retired || t->sum.followed || !target__exited(t))
			continue;
		fprintf(stderr, "faultline: process %d (%s) exited\n", t->sum.pid, t->sum.comm);
		follow__retire(s, t);
	}
}

void follow__launched_at_exit(struct session *s)
{
	struct target *t = &s->targets.v[0];

	follow__refresh(s, t, true, 1);
	/* stopped at its exit, its memory still whole: what it held resident at the end */
	session__read_inventory(s, t, false);
	/*
	 * Its last thread going, these maps are its last: a read from here on (a settling step,
	 * a name missed) would see its memory half torn down and forget what it mapped. The main
	 * thread may leave before others (pthread_exit()): then the maps stay live.
	 */
	if (procfs__threads(t->sum.pid) == 1) {
		symbolizer__detach(t->sym);
		t->settle_at = 0;
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
	follow__retire(s, &s->targets.v[0]);
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
