// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * The BPF objects opened, set up for the session's options and loaded: the main instance (its
 * CO-RE relocated against the cached kernel types when there are some), the walkers' side
 * instances (sideload.c) and the exit mappings' object (exitprobe.c); what a failed load says.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "probes/tracer_state.h"
/* after the shared header: its globals' types are there */
#include "legacy.skel.h"

/* The memory syscall programs (--vm) load only when asked for: every syscall of the machine
 * runs them once attached. */
static void set_vm_autoload(struct faultline *skel, bool on)
{
	bpf_program__set_autoload(skel->progs.fl_sys_enter, on);
	bpf_program__set_autoload(skel->progs.fl_sys_exit, on);
}

/* The legacy programs' per-thread maps are preallocated (bpf/threads.bpf.h): those of what
 * the session does not do hold one entry. */
static void size_legacy_maps(struct faultline *skel, const struct tracer_opts *o)
{
	bpf_map__set_max_entries(skel->maps.map_cache, 1);
	if (!o->alloc) {
		bpf_map__set_max_entries(skel->maps.alloc_task, 1);
		bpf_map__set_max_entries(skel->maps.churn_task, 1);
	}
	if (!o->vm)
		bpf_map__set_max_entries(skel->maps.vm_task, 1);
}

/* True, having said what to do, when @err is the open-files limit being too low for @what. */
bool objects__explain_fd_limit(int err, const char *what)
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
	if (objects__explain_fd_limit(err, "loading the BPF programs"))
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

/* The main skeleton over the legacy object (bpf/legacy.bpf.h) when @legacy: that one declares
 * the same maps, programs and globals (the build checks it: scripts/skel-same.sh). */
static struct faultline *open_skeleton(bool legacy, const struct bpf_object_open_opts *opts)
{
	struct faultline *obj;
	int err;

	if (!legacy)
		return faultline__open_opts(opts);
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return NULL;
	err = faultline__create_skeleton(obj);
	if (!err) {
		obj->skeleton->data = faultline_legacy__elf_bytes(&obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, opts);
	}
	if (err) {
		faultline__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

/* Opens the object, its CO-RE relocations against the kernel types in @btf_path (NULL: the
 * kernel's own), and sets it up for @o. Returns 0 or -errno (reported). */
static int open_object(struct tracer *t, const struct tracer_opts *o, const char *btf_path)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_path);
	struct alloc_prog progs[ALLOC_PROGS];
	bool exact;
	int err;

	t->skel = open_skeleton(t->plan.legacy, &opts);
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
	if (t->plan.legacy)
		size_legacy_maps(t->skel, o);
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
	objects__explain_fd_limit(-EMFILE, "loading the BPF programs");
	return -EMFILE;
}

void objects__destroy(struct tracer *t)
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

	/* the legacy object is for older kernels, whose smaller BTF is read in a few ms */
	if (!t->plan.legacy)
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
		objects__destroy(t);
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

int objects__load(struct tracer *t, const struct tracer_opts *o)
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
