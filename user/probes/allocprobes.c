// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The allocator's uprobes (--alloc): attached per target, by perf uprobe or uprobe_multi links,
 * in --sample-time windows or for the whole session, and detached in parallel. */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "base/grow.h"
#include "probes/tracer_state.h"

/* union bpf_attr as BPF_LINK_CREATE reads it for BPF_TRACE_UPROBE_MULTI. */
struct fl_uprobe_multi_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 multi_flags;
	__u32 pid;
	__u32 _pad;
};

void allocprobes__progs(const struct faultline *skel, struct alloc_prog out[ALLOC_PROGS])
{
	out[0] = (struct alloc_prog){ skel->progs.fl_alloc_exit, .ret = true, .pair = true };
	out[1] = (struct alloc_prog){ skel->progs.fl_alloc_enter, .pair = true };
	out[2] = (struct alloc_prog){ skel->progs.fl_free_enter, .free_side = true };
	out[3] = (struct alloc_prog){ skel->progs.fl_alloc_churn, .churn = true };
	out[4] = (struct alloc_prog){ skel->progs.fl_alloc_call, .session = true };
}

/* Whether @p is one of the programs this tracer's allocator probes run. */
bool allocprobes__used(const struct tracer *t, const struct alloc_prog *p)
{
	if (p->churn != t->alloc_churn)
		return false;
	return t->alloc_session ? !p->pair : !p->session;
}

/* The cookie of probe @p: its function, and in churn mode where the function lies. */
static __u64 probe_cookie(const struct tracer *t, const struct alloc_probe *p)
{
	return t->alloc_churn ? fl_churn_cookie(p->fn, p->site.offset, p->size) : p->fn;
}

static void *detach(void *arg)
{
	struct probe_link *l = arg;

	if (l->link)
		bpf_link__destroy(l->link);
	else
		close(l->fd);
	return NULL;
}

/* Keeps @l in @s to detach later; detaches it at once when out of memory. */
int allocprobes__keep_link(struct link_set *s, struct probe_link l)
{
	struct probe_link *links = grow__reserve(s->v, &s->cap, s->n, sizeof(*links));

	if (!links) {
		detach(&l);
		return -ENOMEM;
	}
	s->v = links;
	s->v[s->n++] = l;
	return 0;
}

/*
 * Each link waits for grace periods in the kernel when it goes (about 0.1 s here): one after
 * another, 17 perf uprobes took 2.1 s. Detached from threads at once, the waits overlap in
 * part (1.7 s); a uprobe_multi link waits once for all its probes (3 links: 0.3 s).
 */
void allocprobes__destroy_links(struct link_set *s)
{
	size_t n = s->n;
	pthread_t *th = calloc(n ? n : 1, sizeof(*th));
	bool *started = calloc(n ? n : 1, sizeof(*started));

	for (size_t i = 0; i < n; i++) {
		if (th && started)
			started[i] = !pthread_create(&th[i], NULL, detach, &s->v[i]);
		if (!started || !started[i])
			detach(&s->v[i]);
	}
	for (size_t i = 0; i < n && started; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	free(th);
	free(started);
	free(s->v);
	*s = (struct link_set){ 0 };
}

/* One uprobe of @pid on @path at file offset @off, with @cookie (probe_cookie(); 0: none, the
 * legacy programs' kernels may have no attach cookies). */
static int attach_uprobe(struct link_set *s, struct bpf_program *prog, bool ret, pid_t pid,
			 const char *path, uint64_t off, __u64 cookie)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = cookie, .retprobe = ret);
	struct bpf_link *link = bpf_program__attach_uprobe_opts(prog, pid, path, off, &o);

	if (!link)
		return -errno;
	return allocprobes__keep_link(s, (struct probe_link){ .link = link, .fd = -1 });
}

/* One uprobe_multi link of @prog on @path for @pid: the probes of @plan whose side (free or
 * not) is @free, at their sites, each with its function as the cookie (probe_cookie()). */
static int attach_multi(const struct tracer *t, struct link_set *s, const struct alloc_prog *prog,
			pid_t pid, const char *path, const struct alloc_plan *plan)
{
	unsigned long offs[ALLOC_MAX_PROBES];
	__u64 cookies[ALLOC_MAX_PROBES];
	struct fl_uprobe_multi_attr a = {
		.prog_fd = (__u32)bpf_program__fd(prog->prog),
		.attach_type = prog->session ? FL_TRACE_UPROBE_SESSION : FL_TRACE_UPROBE_MULTI,
		.path = (__u64)(unsigned long)path,
		.offsets = (__u64)(unsigned long)offs,
		.cookies = (__u64)(unsigned long)cookies,
		.multi_flags = prog->ret ? FL_F_UPROBE_MULTI_RETURN : 0,
		.pid = (__u32)pid,
	};
	int fd;

	for (size_t i = 0; i < plan->nprobes; i++) {
		const struct alloc_probe *p = &plan->probes[i];

		if (p->state != ALLOC_PROBE_ATTACH || alloc_fn__is_free(p->fn) != prog->free_side)
			continue;
		offs[a.cnt] = p->entry_off + p->site.offset;
		cookies[a.cnt++] = probe_cookie(t, p);
	}
	if (!a.cnt)
		return 0;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	if (fd < 0)
		return -errno;
	return allocprobes__keep_link(s, (struct probe_link){ .fd = fd });
}

/* Attaches the allocator probes of @plan to @pid, their links into @s. Returns 0 or -errno. */
static int attach_plan(struct tracer *t, struct link_set *s, pid_t pid,
		       const struct alloc_plan *plan)
{
	struct alloc_prog progs[ALLOC_PROGS];
	char path[PATH_MAX + 128], dir[64];
	uint64_t offs[ALLOC_MAX_PROBES], cookies[ALLOC_MAX_PROBES];
	/* the legacy programs find each probe's cookie by its address in the process */
	bool by_site = t->sites.fd >= 0;
	size_t n = 0;
	int err = 0;

	/* through the target's root, so a containerised target's own file is probed (a live
	 * thread's when the leader called pthread_exit()) */
	if (procfs__live_dir(pid, dir, sizeof(dir)))
		snprintf(dir, sizeof(dir), "/proc/%d", pid);
	if (procfs__is_map_file(plan->path)) /* a deleted file: the mapping holds its inode */
		snprintf(path, sizeof(path), "%s", plan->path);
	else
		snprintf(path, sizeof(path), "%s/root%s", dir, plan->path);
	allocprobes__progs(t->alloc_skel, progs);
	for (size_t j = 0; j < ALLOC_PROGS && !err && t->uprobe_multi; j++)
		if (allocprobes__used(t, &progs[j]))
			err = attach_multi(t, s, &progs[j], pid, path, plan);
	for (size_t i = 0; i < plan->nprobes && !err && !t->uprobe_multi; i++) {
		const struct alloc_probe *p = &plan->probes[i];
		uint64_t off = p->entry_off + p->site.offset;

		if (p->state != ALLOC_PROBE_ATTACH)
			continue;
		offs[n] = off;
		cookies[n++] = probe_cookie(t, p);
		/* a function's return and entry probes share its site (the stack pointer is
		 * unchanged there): one breakpoint serves both */
		for (size_t j = 0; j < ALLOC_PROGS && !err; j++)
			if (allocprobes__used(t, &progs[j]) &&
			    progs[j].free_side == alloc_fn__is_free(p->fn))
				err = attach_uprobe(s, progs[j].prog, progs[j].ret, pid, path, off,
						    by_site ? 0 : cookies[n - 1]);
	}
	if (!err && by_site && n)
		err = probesites__add(&t->sites, pid, plan->path, offs, cookies, n);
	return err;
}

static void report_attach_error(pid_t pid, const struct alloc_plan *plan, int err)
{
	fprintf(stderr, "faultline: attaching the allocator probes of pid %d in %s failed: %s%s\n",
		pid, plan->path, strerror(-err),
		/* the kernel refuses a second probe at one address whose USDT reference counter
		 * differs ("ref_ctr_offset mismatch" in dmesg) */
		err == -EINVAL ? " (is another tool probing the same functions? bcc tools such as "
				 "memleak conflict)" :
				 "");
}

/* --sample-time: keeps @plan for @pid, attached now if a window is open. */
static int attach_windowed(struct tracer *t, pid_t pid, const struct alloc_plan *plan)
{
	struct windowed *w;
	int err = -ENOMEM;

	pthread_mutex_lock(&t->win_lock);
	w = grow__reserve(t->win, &t->win_cap, t->nwin, sizeof(*w));
	if (w) {
		t->win = w;
		w = &t->win[t->nwin];
		*w = (struct windowed){ .pid = pid, .plan = malloc(sizeof(*plan)) };
		err = w->plan ? 0 : -ENOMEM;
	}
	if (!err) {
		*w->plan = *plan;
		if (t->win_open)
			err = attach_plan(t, &w->links, pid, plan);
		if (err) {
			allocprobes__destroy_links(&w->links);
			free(w->plan);
		} else {
			t->nwin++;
		}
	}
	pthread_mutex_unlock(&t->win_lock);
	return err;
}

/* Moves every link of @from into @to (detaching at once one that cannot be kept). */
static void move_links(struct link_set *to, struct link_set *from)
{
	for (size_t i = 0; i < from->n; i++)
		allocprobes__keep_link(to, from->v[i]);
	free(from->v);
	*from = (struct link_set){ 0 };
}

/* Joins the detaching of the last window closed. */
static void join_closer(struct tracer *t)
{
	if (t->closing)
		pthread_join(t->closer, NULL);
	t->closing = false;
}

static void *close_links(void *arg)
{
	allocprobes__destroy_links(arg);
	free(arg);
	return NULL;
}

/* Attaches every windowed target's probes; drops a target that exited, or whose probes the
 * kernel refuses now (said once). */
static void open_window(struct tracer *t)
{
	size_t kept = 0;

	for (size_t i = 0; i < t->nwin; i++) {
		struct windowed *w = &t->win[i];
		int err = attach_plan(t, &w->links, w->pid, w->plan);

		if (!err) {
			t->win[kept++] = *w;
			continue;
		}
		allocprobes__destroy_links(&w->links);
		if (err != -ENOENT && err != -ESRCH)
			report_attach_error(w->pid, w->plan, err);
		free(w->plan);
	}
	t->nwin = kept;
}

/* Takes every windowed target's probes out. The kernel removes the breakpoints as a link
 * closes, then waits for grace periods (tens of ms): a thread waits, not the windows; it has
 * had a whole window to finish when the next close joins it. */
static void close_window(struct tracer *t)
{
	struct link_set *all = calloc(1, sizeof(*all));

	for (size_t i = 0; i < t->nwin; i++) {
		if (all)
			move_links(all, &t->win[i].links);
		else
			allocprobes__destroy_links(&t->win[i].links);
	}
	join_closer(t);
	if (all && !pthread_create(&t->closer, NULL, close_links, all))
		t->closing = true;
	else if (all)
		close_links(all);
}

size_t tracer__alloc_window(struct tracer *t, bool open)
{
	size_t n;

	pthread_mutex_lock(&t->win_lock);
	if (open && !t->win_open)
		open_window(t);
	else if (!open && t->win_open)
		close_window(t);
	t->win_open = open;
	n = t->nwin;
	pthread_mutex_unlock(&t->win_lock);
	return n;
}

/* A target gone: its probes are inert and go with the rest at the end (a detach waits). */
void allocprobes__forget(struct tracer *t, pid_t pid)
{
	pthread_mutex_lock(&t->win_lock);
	for (size_t i = 0; i < t->nwin; i++) {
		struct windowed *w = &t->win[i];

		if (w->pid != pid)
			continue;
		move_links(&t->links, &w->links);
		free(w->plan);
		t->win[i] = t->win[--t->nwin];
		break;
	}
	pthread_mutex_unlock(&t->win_lock);
}

void allocprobes__destroy_windowed(struct tracer *t)
{
	if (!t->windowed)
		return;
	join_closer(t);
	for (size_t i = 0; i < t->nwin; i++) {
		move_links(&t->links, &t->win[i].links);
		free(t->win[i].plan);
	}
	free(t->win);
	pthread_mutex_destroy(&t->win_lock);
}

void tracer__alloc_remap(struct tracer *t, pid_t pid)
{
	if (t->sites.fd >= 0)
		probesites__refresh(&t->sites, pid);
}

int tracer__attach_alloc(struct tracer *t, pid_t pid, const struct alloc_plan *plan)
{
	int err = t->windowed ? attach_windowed(t, pid, plan) :
				attach_plan(t, &t->links, pid, plan);

	/* a followed child may be gone already: nothing to say */
	if (err && !procfs__gone(pid))
		report_attach_error(pid, plan, err);
	return err;
}
