// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/attach.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
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
#include "probes/btfcache.h"
#include "probes/tracer_state.h"

#define TRACEFS "/sys/kernel/tracing"

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

/* libbpf's CO-RE reads the same file: its error would say only "No such process". */
static void explain_btf(void)
{
	fprintf(stderr, "faultline: the kernel's BTF (" VMLINUX_BTF ") cannot be read or is not "
			"valid BTF: faultline needs the running kernel's own BTF "
			"(CONFIG_DEBUG_INFO_BTF=y); check that nothing replaced that file\n");
}

/* Whether this kernel batches RSS counter updates per task (before 6.2): fl_features, run once,
 * says what the load's CO-RE found. Exact when it cannot run. */
static bool rss_batched(const struct faultline *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, ro);

	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.fl_features), &ro))
		return false;
	return skel->bss->rss_batched;
}

/* A record says only that something happened: the procs map says what. */
static int on_proc_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

/* Opens the object, its CO-RE relocations against the kernel types in @btf_path (NULL: the
 * kernel's own), and sets it up for @o. Returns 0 or -errno (reported). */
static int open_object(struct tracer *t, const struct tracer_opts *o, const char *btf_path)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_path);
	struct alloc_prog progs[ALLOC_PROGS];
	bool exact;
	int err;

	t->skel = faultline__open_opts(&opts);
	if (!t->skel) {
		err = -errno;
		fprintf(stderr, "faultline: opening the BPF object failed: %s\n", strerror(-err));
		return err;
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
	/* Linux 6.6: a uprobe_multi link registers many probes and, when closed, waits for one
	 * grace period for all of them; perf uprobes wait for one each, about 0.1 s here */
	t->uprobe_multi = o->alloc && (t->plan.have & KF_BIT(KF_UPROBE_MULTI));
	/* an entry that needs no return (an unsampled malloc) then skips it; unsampled, every
	 * call wants its return, and a session costs a little more a call than the pair */
	t->alloc_session = exact && o->sample_bytes && t->uprobe_multi &&
			   (t->plan.have & KF_BIT(KF_UPROBE_SESSION));
	allocprobes__progs(t->skel, progs);
	for (size_t i = 0; i < ALLOC_PROGS; i++) {
		bpf_program__set_autoload(progs[i].prog,
					  o->alloc && allocprobes__used(t, &progs[i]));
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
	bpf_program__set_autoload(t->skel->progs.fl_mm_exit, t->plan.have & KF_BIT(KF_EXIT_MMAP));
	t->skel->rodata->map_classes = o->map_classes;
	/* without -f, forks cost nothing: the program is not even loaded */
	bpf_program__set_autoload(t->skel->progs.fl_fork, o->follow_children || o->scope);
	bpf_program__set_autoload(t->skel->progs.fl_cgroup_attach, o->scope == FL_SCOPE_CGROUPS);
	t->skel->rodata->scope = o->scope;
	t->skel->rodata->self_tgid = (__u32)getpid();
	t->skel->rodata->page_shift = features__page_shift();
	err = bpf_map__reuse_fd(t->skel->maps.procs, t->procs_fd);
	return err ? explain_load_error(err) : 0;
}

/* Why the load failed: a kernel BTF that cannot be parsed says it better than the error. */
static void explain_failed_load(int err)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf)
		explain_btf();
	else
		explain_load_error(err);
	btf__free(btf);
}

/*
 * Whether the open-files limit leaves room for the load: a map or program takes an fd each,
 * and libbpf's answer to a map it cannot create for want of one is to retry it without its
 * BTF, which a task storage map needs: the error then names something else (EINVAL). Says
 * what to do when there is not. @objects: the fds the objects will take.
 */
static int check_fd_room(size_t objects)
{
	size_t open_fds = 0;
	struct rlimit r;
	struct dirent *e;
	DIR *d;

	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur == RLIM_INFINITY ||
	    !(d = opendir("/proc/self/fd")))
		return 0;
	while ((e = readdir(d)))
		open_fds += e->d_name[0] != '.';
	closedir(d);
	/* a margin for libbpf's own (its BTF, a probe of the kernel's features) */
	if (open_fds + objects + 16 <= r.rlim_cur)
		return 0;
	explain_fd_limit(-EMFILE, "loading the BPF programs");
	return -EMFILE;
}

static void destroy_objects(struct tracer *t)
{
	for (int i = 0; i < SIDE_LOADS; i++) {
		faultline__destroy(t->side[i]);
		t->side[i] = NULL;
	}
	faultline__destroy(t->skel);
	t->skel = t->alloc_skel = NULL;
}

/*
 * Opens and loads the object, with the cached kernel types when there are some: a cache the
 * load fails with goes, and the load is made again with the kernel's own. With the cache the
 * walkers load beside each other (sideload.h); without, each instance would read the kernel's
 * whole BTF for itself, and all load in one. Returns 0 or -errno (reported).
 */
static int load_object(struct tracer *t, const struct tracer_opts *o)
{
	size_t len;
	const void *obj = faultline__elf_bytes(&len);
	int err, tmpl_fd;

	btf_cache__find(&t->types, obj, len);
	for (;;) {
		const char *btf_path = t->types.have ? t->types.path : NULL;
		LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_path);
		size_t fds;

		err = open_object(t, o, btf_path);
		if (err)
			return err;
		if (btf_path && (err = sideload__open(t->skel, t->side, &opts)))
			return explain_load_error(err);
		t->alloc_skel = t->side[0] ?: t->skel;
		/* each instance holds an fd of every map, each program one */
		fds = t->skel->skeleton->map_cnt * (1 + !!t->side[0] + !!t->side[1]) +
		      t->skel->skeleton->prog_cnt;
		err = check_fd_room(fds) ?: unwind_template(t->skel->maps.unwind_tables, &tmpl_fd);
		if (err)
			return err;
		err = faultline__load(t->skel) ?: sideload__load(t->skel, t->side);
		close(tmpl_fd);
		/* this session reads the kernel's: the cache is made as it ends */
		t->cache_types = !err && !btf_path && t->types.path[0];
		if (!err)
			return 0;
		if (!btf_path) {
			explain_failed_load(err);
			return err;
		}
		unlink(btf_path);
		t->types.have = false;
		destroy_objects(t);
	}
}

/* The target set, which the exit mappings' object shares: made before either loads. */
static int make_procs_map(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "procs", sizeof(__u32), sizeof(struct fl_proc),
				FL_MAX_PROCS, NULL);

	if (fd < 0)
		explain_load_error(fd);
	return fd;
}

/* Loads the main object, and beside it, on a thread, the exit mappings' (-f, Linux 6.7). */
static int load_objects(struct tracer *t, const struct tracer_opts *o)
{
	int err;

	t->procs_fd = make_procs_map();
	if (t->procs_fd < 0)
		return t->procs_fd;
	if (o->follow_children && (t->plan.have & KF_BIT(KF_ITER_TASK_VMA))) {
		err = exit_probe__start(&t->exits, t->procs_fd);
		if (err)
			return explain_load_error(err);
	}
	err = load_object(t, o);
	if (!err && t->exits && (err = exit_probe__wait(t->exits)))
		explain_load_error(err);
	return err;
}

int tracer__load(struct tracer **out, const struct tracer_opts *o)
{
	struct tracer *t;
	int err;

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
	t->procs_fd = -1;
	err = features__check(&t->plan, features__uses(o));
	if (err)
		goto cleanup;
	if (o->alloc && o->alloc_churn && o->alloc_windows)
		pthread_mutex_init(&t->win_lock, NULL);
	err = load_objects(t, o);
	if (err)
		goto cleanup;
	t->rss_batched = rss_batched(t->skel);
	t->events =
		ring_buffer__new(bpf_map__fd(t->skel->maps.proc_events), on_proc_event, NULL, NULL);
	if (!t->events) {
		err = -errno;
		fprintf(stderr, "faultline: creating the process events ring failed: %s\n",
			strerror(-err));
		goto cleanup;
	}
	*out = t;
	return 0;
cleanup:
	tracer__destroy(t);
	return err;
}

int tracer_put_target(struct tracer *t, pid_t pid, const struct proc_status *seed,
		      struct fl_proc *p, bool only_new)
{
	struct fl_key overflow = { .tgid = pid, .origin = FL_ORIGIN_OVERFLOW };
	struct fl_counts zero = {};
	__u32 tgid = pid;
	__u64 how = only_new ? BPF_NOEXIST : BPF_ANY;

	for (int m = 0; m < FL_MEMBERS; m++)
		p->gone_last[m] = FL_SIZE_UNKNOWN;
	if (seed) {
		p->flags = (p->flags & FL_PROC_PRESENT) | FL_PROC_SEEDED;
		p->seed[FL_FILE] = (__s64)seed->rss_file;
		p->seed[FL_ANON] = (__s64)seed->rss_anon;
		p->seed[FL_SWAP] = (__s64)seed->vm_swap;
		p->seed[FL_SHMEM] = (__s64)seed->rss_shmem;
	} else {
		p->flags = FL_PROC_AWAIT_EXEC;
	}
	/* the row that takes the charge when the counts map is full must exist before it is */
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.counts), &overflow, &zero, how) &&
	    errno != EEXIST)
		return -errno;
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.procs), &tgid, p, how))
		return -errno;
	return 0;
}

int tracer__add_target(struct tracer *t, pid_t pid, const struct proc_status *seed)
{
	struct fl_proc p = {};
	int err = tracer_put_target(t, pid, seed, &p, false);

	if (err)
		fprintf(stderr, "faultline: cannot add pid %d to the targets: %s\n", pid,
			strerror(-err));
	return err;
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
		allocprobes__forget(t, pid);
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
	int err = 0;

	/* first: at a target's exit its records are in the ring before fl_exit marks it gone */
	if (t->exits)
		err = exit_probe__attach(t->exits);
	if (!err)
		err = faultline__attach(t->skel);
	for (int i = 0; i < SIDE_LOADS && !err; i++)
		if (t->side[i])
			err = faultline__attach(t->side[i]);

	if (err && !explain_fd_limit(err, "attaching the BPF programs"))
		fprintf(stderr, "faultline: attaching the BPF programs failed: %s\n",
			strerror(-err));
	return err;
}

/*
 * The skeleton's links join the allocator probes' to be detached in parallel: each perf-event
 * tracepoint link waits for a grace period when it goes (40-90 ms here), and --vm's ten
 * syscall tracepoints one after another made SIGINT-to-exit take 0.95 s.
 */
static void take_links(struct tracer *t, const struct faultline *skel)
{
	const struct bpf_object_skeleton *sk = skel ? skel->skeleton : NULL;

	for (int i = 0; sk && i < sk->prog_cnt; i++) {
		const struct bpf_prog_skeleton *p =
			(const void *)((const char *)sk->progs + (size_t)i * sk->prog_skel_sz);

		if (*p->link) /* out of memory, allocprobes__keep_link() detaches it at once */
			allocprobes__keep_link(&t->links,
					       (struct probe_link){ .link = *p->link, .fd = -1 });
		*p->link = NULL;
	}
}

static void take_skeleton_links(struct tracer *t)
{
	struct bpf_link *exit_link = exit_probe__take_link(t->exits);

	if (exit_link)
		allocprobes__keep_link(&t->links,
				       (struct probe_link){ .link = exit_link, .fd = -1 });
	take_links(t, t->skel);
	for (int i = 0; i < SIDE_LOADS; i++)
		take_links(t, t->side[i]);
}

void tracer__destroy(struct tracer *t)
{
	if (!t)
		return;
	take_skeleton_links(t);
	allocprobes__destroy_windowed(t);
	allocprobes__destroy_links(&t->links);
	ring_buffer__free(t->events);
	destroy_objects(t);
	exit_probe__destroy(t->exits);
	if (t->procs_fd >= 0)
		close(t->procs_fd);
	/* the kernel types this session read whole, for the next to start sooner: now, with
	 * every probe gone, so that no bpftool of ours shows up in a trace */
	if (t->cache_types) {
		size_t len;
		const void *obj = faultline__elf_bytes(&len);

		btf_cache__make(&t->types, obj, len);
	}
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

void tracer__stats(const struct tracer *t, struct fl_stats *out)
{
	*out = t->skel->bss->stats;
	if (t->exits)
		out->drops[FL_DROP_EXIT_MAPS] += exit_probe__drops(t->exits);
}

bool tracer__rss_batched(const struct tracer *t)
{
	return t->rss_batched;
}

int tracer__exit_maps_fd(const struct tracer *t)
{
	return t->exits ? exit_probe__ring_fd(t->exits) : -1;
}

int tracer__unwind_tables_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.unwind_tables);
}

int tracer__unwind_procs_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.unwind_procs);
}

int tracer__unwind_objects_fd(const struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.unwind_objects);
}

void tracer__stop_counting(struct tracer *t)
{
	__atomic_store_n(&t->skel->bss->fl_stopped, true, __ATOMIC_SEQ_CST);
}

uint32_t *tracer__unwind_epoch(const struct tracer *t)
{
	return &t->skel->bss->unwind_epoch;
}

const char *tracer__types_cache(const struct tracer *t, bool *used)
{
	*used = t->types.have;
	return t->types.path[0] ? t->types.path : NULL;
}

const struct kplan *tracer__plan(const struct tracer *t)
{
	return &t->plan;
}
