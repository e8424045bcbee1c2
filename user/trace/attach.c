// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/attach.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "base/grow.h"
#include "faultline.skel.h"

#define TRACEFS "/sys/kernel/tracing"
#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* An allocator probe: a libbpf perf-uprobe link, or the fd of a uprobe_multi link. */
struct probe_link {
	struct bpf_link *link;
	int fd;
};

struct link_set {
	struct probe_link *v;
	size_t n, cap;
};

/* --sample-time: a target's allocator probes, in place only while a window is open. */
struct windowed {
	pid_t pid;
	struct alloc_plan *plan;
	struct link_set links;
};

struct tracer {
	struct faultline *skel;
	struct ring_buffer *events; /* proc_events: targets that exec'd */
	bool rss_batched;
	bool uprobe_multi;     /* the allocator probes go through uprobe_multi links */
	bool alloc_session;    /* --sample-bytes: entry and return are one uprobe session */
	bool alloc_churn;      /* --alloc=churn: entry probes alone, cookies with their sites */
	bool regions;	       /* the region programs are loaded (tracer__regions_fd) */
	struct link_set links; /* every link, the allocator probes of each target among them */
	/* --sample-time: the allocator probes by target instead, and whether they are in */
	bool windowed;
	pthread_mutex_t win_lock;
	bool win_open;
	struct windowed *win;
	size_t nwin, win_cap;
	pthread_t closer; /* the last window's detaching, joined before the next */
	bool closing;
};

static void forget_windowed(struct tracer *t, pid_t pid);

/* enum bpf_attach_type and flags of Linux 6.6 (commit 89ae89f53d20, "bpf: Add multi uprobe
 * link"), which the UAPI headers of older distributions lack. */
#define FL_TRACE_UPROBE_MULTI 48
#define FL_F_UPROBE_MULTI_RETURN 1
/* ... and of Linux 6.13's uprobe sessions (an entry program that may decline its return) */
#define FL_TRACE_UPROBE_SESSION 57

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

/*
 * libbpf finds tracepoint ids in tracefs, which a fresh machine may not have mounted, and which
 * only root can read by default (mode 0700). AT_EACCESS: the effective capabilities count
 * (plain access() drops them for a non-root user).
 */
static int ensure_tracefs(void)
{
	static const char *const events[] = { TRACEFS "/events",
					      "/sys/kernel/debug/tracing/events" };
	bool denied = false;

	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (faccessat(AT_FDCWD, events[i], R_OK | X_OK, AT_EACCESS) == 0)
			return 0;
		denied |= errno == EACCES;
	}
	if (denied) {
		fprintf(stderr, "faultline: tracefs (" TRACEFS ") is mounted but this user cannot "
				"read it, and the tracepoint ids are there: run as root, or add "
				"CAP_DAC_READ_SEARCH to CAP_BPF and CAP_PERFMON\n");
		return -EACCES;
	}
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) == 0)
		return 0;
	if (errno == EPERM)
		fprintf(stderr,
			"faultline: tracefs is not mounted and mounting it needs root (or "
			"CAP_SYS_ADMIN); as root, run: mount -t tracefs tracefs " TRACEFS "\n");
	else
		fprintf(stderr,
			"faultline: tracefs is not mounted and mounting it failed (%s); run: "
			"mount -t tracefs tracefs " TRACEFS "\n",
			strerror(errno));
	return -ENOENT;
}

/* The kernel's BTF has a struct named @name: how faultline tells what a kernel can do. */
static bool kernel_has_struct(const struct btf *btf, const char *name)
{
	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT) > 0;
}

/* The kernel's BTF has @value in its enum @name (an attach type, say). */
static bool kernel_has_enum_value(const struct btf *btf, const char *name, const char *value)
{
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_ENUM) : -1;
	const struct btf_type *type = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_enum *e = type ? btf_enum(type) : NULL;

	for (int i = 0; e && i < btf_vlen(type); i++)
		if (!strcmp(btf__name_by_offset(btf, e[i].name_off), value))
			return true;
	return false;
}

/* The allocator programs (--alloc), the return probe first: an entry seen without its
 * return would leave the thread looking inside an allocator call. */
struct alloc_prog {
	struct bpf_program *prog;
	bool ret;	/* a return probe */
	bool free_side; /* probes free and operator delete, not the allocating functions */
	bool churn;	/* --alloc=churn's program, the others exact mode's */
	bool session;	/* the entry and the return as one uprobe session */
	bool pair;	/* one of the entry and return programs that a session replaces */
};

#define ALLOC_PROGS 5

static void alloc_progs(const struct faultline *skel, struct alloc_prog out[ALLOC_PROGS])
{
	out[0] = (struct alloc_prog){ skel->progs.fl_alloc_exit, .ret = true, .pair = true };
	out[1] = (struct alloc_prog){ skel->progs.fl_alloc_enter, .pair = true };
	out[2] = (struct alloc_prog){ skel->progs.fl_free_enter, .free_side = true };
	out[3] = (struct alloc_prog){ skel->progs.fl_alloc_churn, .churn = true };
	out[4] = (struct alloc_prog){ skel->progs.fl_alloc_call, .session = true };
}

/* Whether @p is one of the programs this tracer's allocator probes run. */
static bool alloc_prog_used(const struct tracer *t, const struct alloc_prog *p)
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

/* The memory syscall programs (--vm) load only when asked for: every syscall of the machine
 * runs them once attached. */
static void set_vm_autoload(struct faultline *skel, bool on)
{
	bpf_program__set_autoload(skel->progs.fl_sys_enter, on);
	bpf_program__set_autoload(skel->progs.fl_sys_exit, on);
}

/* True, having said what to do, when @err is the open-files limit being too low for @what. */
static bool explain_fd_limit(int err, const char *what)
{
	struct rlimit r;

	if (err != -EMFILE || getrlimit(RLIMIT_NOFILE, &r))
		return false;
	fprintf(stderr,
		"faultline: %s failed: the open-files limit (%llu) is too low, each BPF map, "
		"program and probe takes one; raise it (e.g. ulimit -n 4096) and run again\n",
		what, (unsigned long long)r.rlim_cur);
	return true;
}

static int explain_load_error(int err)
{
	if (explain_fd_limit(err, "loading the BPF programs"))
		return err;
	if (err == -EPERM || err == -EACCES)
		fprintf(stderr,
			"faultline: not permitted to load BPF programs: run as root (or with "
			"CAP_BPF, CAP_PERFMON and CAP_DAC_READ_SEARCH; CAP_SYS_RESOURCE too "
			"before Linux 5.11)\n");
	else
		fprintf(stderr,
			"faultline: loading the BPF programs failed: %s (run with -vv for "
			"the verifier log)\n",
			strerror(-err));
	return err;
}

#define CAP_SYS_ADMIN 21
#define CAP_PERFMON 38
#define CAP_BPF 39

/* Root, or CAP_BPF with CAP_PERFMON (or CAP_SYS_ADMIN), in the effective set. */
static bool privileged(void)
{
	unsigned long long eff = 0;
	char line[256];
	FILE *f;

	if (geteuid() == 0)
		return true;
	if (procfs__fopen(getpid(), "status", &f))
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff >> CAP_SYS_ADMIN & 1) || ((eff >> CAP_BPF & 1) && (eff >> CAP_PERFMON & 1));
}

/* The unwind tables' inner map template (see unwind.bpf.h): an array of rows, any size. Its
 * fd must stay open until the load. */
static int unwind_template(struct bpf_map *tables, int *fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_INNER_MAP);
	int err;

	*fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fl_unwind_tmpl", sizeof(uint32_t),
			     sizeof(struct fl_unwind_row), 1, &mo);
	err = *fd < 0 ? -errno : bpf_map__set_inner_map_fd(tables, *fd);
	if (err && *fd >= 0)
		close(*fd);
	if (err)
		fprintf(stderr, "faultline: creating the unwind tables map failed: %s\n",
			strerror(-err));
	return err;
}

/* A record says only that something happened: the procs map says what. */
static int on_proc_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

int tracer__load(struct tracer **out, const struct tracer_opts *o)
{
	struct alloc_prog progs[ALLOC_PROGS];
	struct btf *btf = NULL;
	struct tracer *t;
	int err, tmpl_fd;
	bool exact;

	if (!privileged()) {
		fprintf(stderr, "faultline: not permitted: run as root (or with CAP_BPF, "
				"CAP_PERFMON and CAP_DAC_READ_SEARCH)\n");
		return -EPERM;
	}

	if (access(VMLINUX_BTF, R_OK)) {
		fprintf(stderr, "faultline: this kernel has no BTF (" VMLINUX_BTF " is missing): "
				"it needs CONFIG_DEBUG_INFO_BTF=y\n");
		return -ENOENT;
	}
	err = ensure_tracefs();
	if (err)
		return err;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	btf = btf__load_vmlinux_btf(); /* parsed once: a few megabytes */
	if (!btf) {
		/* libbpf's CO-RE reads the same file: its error would say only "No such process" */
		err = -errno;
		fprintf(stderr,
			"faultline: the kernel's BTF (" VMLINUX_BTF ") cannot be read or is "
			"not valid BTF: faultline needs the running kernel's own BTF "
			"(CONFIG_DEBUG_INFO_BTF=y); check that nothing replaced that file\n");
		goto cleanup;
	}
	t->skel = faultline__open();
	if (!t->skel) {
		err = -errno;
		fprintf(stderr, "faultline: opening the BPF object failed: %s\n", strerror(errno));
		goto cleanup;
	}
	bpf_map__set_max_entries(t->skel->maps.stacks, o->stack_storage);
	bpf_map__set_max_entries(t->skel->maps.counts, o->max_counts);
	bpf_map__set_max_entries(t->skel->maps.threads, o->max_threads);
	/* the allocator maps allocate per entry (BPF_F_NO_PREALLOC): sizes are only bounds;
	 * churn mode uses neither */
	exact = o->alloc && !o->alloc_churn;
	bpf_map__set_max_entries(t->skel->maps.live, exact ? o->max_live : 1);
	bpf_map__set_max_entries(t->skel->maps.alloc_hists, exact ? o->max_counts : 1);
	t->skel->rodata->sample_mean = o->sample_bytes;
	t->alloc_churn = o->alloc && o->alloc_churn;
	/* the first window is open from the attach on: its errors are the session's */
	t->windowed = t->win_open = t->alloc_churn && o->alloc_windows;
	if (t->windowed)
		pthread_mutex_init(&t->win_lock, NULL);
	/* Linux 6.6: a uprobe_multi link registers many probes and, when closed, waits for one
	 * grace period for all of them; perf uprobes wait for one each, about 0.1 s here */
	t->uprobe_multi = o->alloc && kernel_has_struct(btf, "bpf_uprobe_multi_link");
	/* an entry that needs no return (an unsampled malloc) then skips it; unsampled, every
	 * call wants its return, and a session costs a little more a call than the pair */
	t->alloc_session =
		exact && o->sample_bytes && t->uprobe_multi &&
		kernel_has_enum_value(btf, "bpf_attach_type", "BPF_TRACE_UPROBE_SESSION");
	alloc_progs(t->skel, progs);
	for (size_t i = 0; i < ALLOC_PROGS; i++) {
		bpf_program__set_autoload(progs[i].prog, o->alloc && alloc_prog_used(t, &progs[i]));
		if (t->uprobe_multi)
			bpf_program__set_expected_attach_type(
				progs[i].prog,
				(enum bpf_attach_type)(progs[i].session ? FL_TRACE_UPROBE_SESSION :
									  FL_TRACE_UPROBE_MULTI));
	}
	set_vm_autoload(t->skel, o->vm);
	/* a region's owner is known only when every allocator call's entry is seen */
	t->regions = exact && !o->sample_bytes;
	bpf_program__set_autoload(t->skel->progs.fl_region_exit, t->regions);
	bpf_program__set_autoload(t->skel->progs.fl_page_alloc, o->new_pages);
	t->skel->rodata->map_classes = o->map_classes;
	/* without -f, forks cost nothing: the program is not even loaded */
	bpf_program__set_autoload(t->skel->progs.fl_fork, o->follow_children);
	bpf_map__set_max_entries(t->skel->maps.procs, FL_MAX_PROCS);
	err = unwind_template(t->skel->maps.unwind_tables, &tmpl_fd);
	if (err)
		goto cleanup;
	err = faultline__load(t->skel);
	close(tmpl_fd);
	if (err) {
		explain_load_error(err);
		goto cleanup;
	}
	t->events =
		ring_buffer__new(bpf_map__fd(t->skel->maps.proc_events), on_proc_event, NULL, NULL);
	if (!t->events) {
		err = -errno;
		fprintf(stderr, "faultline: creating the process events ring failed: %s\n",
			strerror(-err));
		goto cleanup;
	}
	/* Before 6.2 (commit f1a7941243c1, "mm: convert mm's rss stats into percpu_counter")
	 * each task cached its RSS deltas and flushed them every 64 faults */
	t->rss_batched = kernel_has_struct(btf, "task_rss_stat");
	btf__free(btf);
	*out = t;
	return 0;
cleanup:
	btf__free(btf);
	tracer__destroy(t);
	return err;
}

int tracer__add_target(struct tracer *t, pid_t pid, const struct proc_status *seed)
{
	struct fl_key overflow = { .tgid = pid, .origin = FL_ORIGIN_OVERFLOW };
	struct fl_counts zero = {};
	struct fl_proc p = {};
	__u32 tgid = pid;

	for (int m = 0; m < FL_MEMBERS; m++)
		p.gone_last[m] = FL_SIZE_UNKNOWN;
	if (seed) {
		p.flags = FL_PROC_SEEDED;
		p.seed[FL_FILE] = seed->rss_file;
		p.seed[FL_ANON] = seed->rss_anon;
		p.seed[FL_SWAP] = seed->vm_swap;
		p.seed[FL_SHMEM] = seed->rss_shmem;
	} else {
		p.flags = FL_PROC_AWAIT_EXEC;
	}
	/* the row that takes the charge when the counts map is full must exist before it is */
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.counts), &overflow, &zero, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(t->skel->maps.procs), &tgid, &p, BPF_ANY)) {
		fprintf(stderr, "faultline: cannot add pid %d to the targets: %s\n", pid,
			strerror(errno));
		return -errno;
	}
	return 0;
}

size_t tracer__remove_target(struct tracer *t, pid_t pid, struct fl_mm *gone, size_t max)
{
	int procs_fd = bpf_map__fd(t->skel->maps.procs),
	    mm_fd = bpf_map__fd(t->skel->maps.mm_state);
	__u32 tgid = pid;
	struct fl_proc p;
	struct fl_mm mm;
	size_t n = 0;

	if (t->windowed)
		forget_windowed(t, pid);
	if (bpf_map_lookup_elem(procs_fd, &tgid, &p))
		return 0;
	bpf_map_delete_elem(procs_fd, &tgid);
	/* the BPF side drops the state of an mm torn down (exit_mmap) and keeps its peak in the
	 * process's entry; an mm someone still holds keeps its state, which goes now */
	if (p.gone_peak > 0 && n < max)
		gone[n++] = (struct fl_mm){ .tgid = tgid,
					    .gen = (__u16)p.gen,
					    .peak = p.gone_peak,
					    .peak_seq = p.gone_peak_seq };
	if ((p.flags & FL_PROC_MM_KNOWN) && !bpf_map_lookup_elem(mm_fd, &p.mm_id, &mm) &&
	    mm.tgid == tgid) {
		bpf_map_delete_elem(mm_fd, &p.mm_id);
		if (n < max)
			gone[n++] = mm;
	}
	return n;
}

int tracer__target_proc(const struct tracer *t, pid_t pid, struct fl_proc *out)
{
	__u32 tgid = pid;

	return bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.procs), &tgid, out) ? -ENOENT : 0;
}

int tracer__attach(struct tracer *t)
{
	int err = faultline__attach(t->skel);

	if (err && !explain_fd_limit(err, "attaching the BPF programs"))
		fprintf(stderr, "faultline: attaching the BPF programs failed: %s\n",
			strerror(-err));
	return err;
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
static int keep_link(struct link_set *s, struct probe_link l)
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
static void destroy_links(struct link_set *s)
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

/* One uprobe of @pid on @path at file offset @off, with @cookie (probe_cookie()). */
static int attach_uprobe(struct link_set *s, struct bpf_program *prog, bool ret, pid_t pid,
			 const char *path, uint64_t off, __u64 cookie)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = cookie, .retprobe = ret);
	struct bpf_link *link = bpf_program__attach_uprobe_opts(prog, pid, path, off, &o);

	if (!link)
		return -errno;
	return keep_link(s, (struct probe_link){ .link = link, .fd = -1 });
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
	return keep_link(s, (struct probe_link){ .fd = fd });
}

/* Attaches the allocator probes of @plan to @pid, their links into @s. Returns 0 or -errno. */
static int attach_plan(struct tracer *t, struct link_set *s, pid_t pid,
		       const struct alloc_plan *plan)
{
	struct alloc_prog progs[ALLOC_PROGS];
	char path[PATH_MAX + 128], dir[64];
	int err = 0;

	/* through the target's root, so a containerised target's own file is probed (a live
	 * thread's when the leader called pthread_exit()) */
	if (procfs__live_dir(pid, dir, sizeof(dir)))
		snprintf(dir, sizeof(dir), "/proc/%d", pid);
	if (procfs__is_map_file(plan->path)) /* a deleted file: the mapping holds its inode */
		snprintf(path, sizeof(path), "%s", plan->path);
	else
		snprintf(path, sizeof(path), "%s/root%s", dir, plan->path);
	alloc_progs(t->skel, progs);
	for (size_t j = 0; j < ALLOC_PROGS && !err && t->uprobe_multi; j++)
		if (alloc_prog_used(t, &progs[j]))
			err = attach_multi(t, s, &progs[j], pid, path, plan);
	for (size_t i = 0; i < plan->nprobes && !err && !t->uprobe_multi; i++) {
		const struct alloc_probe *p = &plan->probes[i];
		uint64_t off = p->entry_off + p->site.offset;

		if (p->state != ALLOC_PROBE_ATTACH)
			continue;
		/* a function's return and entry probes share its site (the stack pointer is
		 * unchanged there): one breakpoint serves both */
		for (size_t j = 0; j < ALLOC_PROGS && !err; j++)
			if (alloc_prog_used(t, &progs[j]) &&
			    progs[j].free_side == alloc_fn__is_free(p->fn))
				err = attach_uprobe(s, progs[j].prog, progs[j].ret, pid, path, off,
						    probe_cookie(t, p));
	}
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
			destroy_links(&w->links);
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
		keep_link(to, from->v[i]);
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
	destroy_links(arg);
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
		destroy_links(&w->links);
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
			destroy_links(&t->win[i].links);
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
static void forget_windowed(struct tracer *t, pid_t pid)
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

static void destroy_windowed(struct tracer *t)
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

int tracer__attach_alloc(struct tracer *t, pid_t pid, const struct alloc_plan *plan)
{
	int err = t->windowed ? attach_windowed(t, pid, plan) :
				attach_plan(t, &t->links, pid, plan);

	/* a followed child may be gone already: nothing to say */
	if (err && !procfs__gone(pid))
		report_attach_error(pid, plan, err);
	return err;
}

/*
 * The skeleton's links join the allocator probes' to be detached in parallel: each perf-event
 * tracepoint link waits for a grace period when it goes (40-90 ms here), and --vm's ten
 * syscall tracepoints one after another made SIGINT-to-exit take 0.95 s.
 */
static void take_skeleton_links(struct tracer *t)
{
	const struct bpf_object_skeleton *sk = t->skel ? t->skel->skeleton : NULL;

	for (int i = 0; sk && i < sk->prog_cnt; i++) {
		const struct bpf_prog_skeleton *p =
			(const void *)((const char *)sk->progs + (size_t)i * sk->prog_skel_sz);

		if (*p->link) /* out of memory, keep_link() detaches it at once */
			keep_link(&t->links, (struct probe_link){ .link = *p->link, .fd = -1 });
		*p->link = NULL;
	}
}

void tracer__destroy(struct tracer *t)
{
	if (!t)
		return;
	take_skeleton_links(t);
	destroy_windowed(t);
	destroy_links(&t->links);
	ring_buffer__free(t->events);
	faultline__destroy(t->skel);
	free(t);
}

int tracer__events_fd(const struct tracer *t)
{
	return ring_buffer__epoll_fd(t->events);
}

bool tracer__take_events(struct tracer *t)
{
	/* the records consumed, or < 0 on an error (none of on_proc_event's) */
	return ring_buffer__consume(t->events) > 0;
}

int tracer__procs_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.procs);
}

int tracer__counts_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.counts);
}

int tracer__regions_fd(const struct tracer *t)
{
	return t->regions ? bpf_map__fd(t->skel->maps.regions) : -1;
}

int tracer__stacks_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.stacks);
}

int tracer__mm_state_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.mm_state);
}

int tracer__live_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.live);
}

int tracer__hists_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.alloc_hists);
}

int tracer__threads_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.threads);
}

const struct fl_stats *tracer__stats(const struct tracer *t)
{
	return &t->skel->bss->stats;
}

bool tracer__rss_batched(const struct tracer *t)
{
	return t->rss_batched;
}

int tracer__unwind_tables_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.unwind_tables);
}

int tracer__unwind_procs_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.unwind_procs);
}

uint32_t *tracer__unwind_epoch(const struct tracer *t)
{
	return &t->skel->bss->unwind_epoch;
}
