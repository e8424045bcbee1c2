// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/attach.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
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
	probesites__init(&t->sites, -1);
	err = features__check(&t->plan, features__uses(o));
	if (err)
		goto cleanup;
	if (o->alloc && o->alloc_churn && o->alloc_windows)
		pthread_mutex_init(&t->win_lock, NULL);
	err = objects__load(t, o);
	if (err)
		goto cleanup;
	t->rss_batched = rss_batched(t->skel);
	if (t->plan.legacy && o->alloc) /* a map of the legacy object alone */
		t->sites.fd =
			bpf_map__fd(bpf_object__find_map_by_name(t->skel->obj, "probe_sites"));
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
	if (t->sites.fd >= 0)
		probesites__forget(&t->sites, pid);
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

	if (err && !objects__explain_fd_limit(err, "attaching the BPF programs"))
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
	probesites__free(&t->sites);
	ring_buffer__free(t->events);
	objects__destroy(t);
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
