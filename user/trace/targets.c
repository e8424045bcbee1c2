// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/targets.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "base/cgroupfs.h"
#include "base/grow.h"
#include "base/procfs.h"
#include "trace/inventoryread.h"

static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	return syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

static int explain_pid_error(pid_t pid, int err)
{
	if (err == -ENOENT || err == -ESRCH)
		fprintf(stderr, "faultline: no process with pid %d\n", pid);
	else if (err == -EINVAL)
		fprintf(stderr,
			"faultline: pid %d is a kernel thread or a zombie: it has no user "
			"memory to profile\n",
			pid);
	else
		fprintf(stderr, "faultline: cannot read /proc/%d/status: %s\n", pid,
			strerror(-err));
	return err;
}

int target__init(struct target *t, pid_t pid)
{
	pid_t tgid;
	int err;

	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
	/* a thread id has a /proc entry too, with its process's memory figures */
	err = procfs__read_status(pid, &t->sum.at_attach);
	if (err)
		return explain_pid_error(pid, err);
	tgid = t->sum.at_attach.tgid > 0 ? t->sum.at_attach.tgid : pid;
	if (tgid != pid)
		fprintf(stderr,
			"faultline: %d is a thread of process %d: profiling the whole "
			"process\n",
			pid, tgid);
	t->sum.pid = tgid;
	t->sum.alive = true;
	t->sum.now = t->sum.at_attach;
	procfs__read_comm(tgid, t->sum.comm, sizeof(t->sum.comm));
	cgroup__of_pid(tgid, t->sum.cgroup, sizeof(t->sum.cgroup));
	t->pidfd = pidfd_of(tgid);
	return 0;
}

void target__init_launched(struct target *t, pid_t pid)
{
	memset(t, 0, sizeof(*t));
	t->sum.pid = pid;
	t->sum.alive = true;
	t->pidfd = pidfd_of(pid);
}

/* The figure of @s that member @m (enum fl_member) of the BPF side's counters is. */
static uint64_t *member_of(struct proc_status *s, int m)
{
	switch (m) {
	case FL_ANON:
		return &s->rss_anon;
	case FL_FILE:
		return &s->rss_file;
	case FL_SHMEM:
		return &s->rss_shmem;
	default:
		return &s->vm_swap;
	}
}

/* VmRSS as the kernel sums it, for figures that are the BPF side's counters, not a read. */
static void sum_vm_rss(struct proc_status *s)
{
	s->vm_rss = s->rss_anon + s->rss_file + s->rss_shmem;
}

void target__take_bases(struct target *t, const struct fl_proc *bpf)
{
	for (int m = 0; m < FL_MEMBERS; m++)
		t->sum.exec_left[m] = bpf->exec_left[m];
	if (!t->sum.followed || t->sum.no_status)
		return;
	for (int m = 0; m < FL_MEMBERS; m++) {
		if (t->based & 1u << m)
			continue;
		/* after an exec with no value seen of the image it left (whose teardown is then
		 * not seen either), its rows are the new image's, which started from nothing */
		if (bpf->seed[m] >= 0 || bpf->execs)
			*member_of(&t->sum.at_attach, m) =
				bpf->seed[m] >= 0 ? (uint64_t)bpf->seed[m] : 0;
		else
			continue;
		t->based |= (uint8_t)(1u << m);
	}
}

void target__take_counters(struct target *t, const struct fl_proc *bpf)
{
	if (!t->sum.no_status || !(bpf->flags & FL_PROC_LAST_KEPT))
		return;
	memset(&t->sum.at_attach, 0, sizeof(t->sum.at_attach));
	memset(&t->sum.now, 0, sizeof(t->sum.now));
	for (int m = 0; m < FL_MEMBERS; m++) {
		/* no value seen of its first image: no change there (an exec's image starts
		 * from nothing) */
		int64_t base = bpf->seed[m] >= 0 ? bpf->seed[m] : 0;
		/* none seen of its last image: as it started, which is 0 after an exec */
		int64_t last = bpf->gone_last[m] >= 0 ? bpf->gone_last[m] : bpf->execs ? 0 : base;

		*member_of(&t->sum.at_attach, m) = (uint64_t)base;
		*member_of(&t->sum.now, m) = (uint64_t)last;
		t->sum.exec_left[m] = bpf->exec_left[m];
	}
	sum_vm_rss(&t->sum.at_attach);
	sum_vm_rss(&t->sum.now);
	t->sum.counters_only = true;
}

void target__take_exit_rss(struct target *t, const struct fl_proc *bpf)
{
	bool any = false;

	if (t->sum.no_status || !(bpf->flags & FL_PROC_LAST_KEPT))
		return;
	for (int m = 0; m < FL_MEMBERS; m++)
		if (bpf->gone_last[m] >= 0) {
			*member_of(&t->sum.now, m) = (uint64_t)bpf->gone_last[m];
			any = true;
		}
	if (any)
		sum_vm_rss(&t->sum.now);
}

bool target__same_process(const struct target *t)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };
	uint64_t ticks;

	if (t->pidfd >= 0)
		return poll(&p, 1, 0) == 0;
	if (t->start)
		return !procfs__read_start(t->sum.pid, &ticks) &&
		       ticks == procfs__ticks_of_ns(t->start);
	return true;
}

void target__init_followed(struct target *t, pid_t pid, const struct fl_proc *bpf,
			   const char *fallback_comm)
{
	memset(t, 0, sizeof(*t));
	t->sum.pid = pid;
	t->sum.followed = true;
	t->pidfd = -1;
	t->start = bpf->start;
	t->gen = (uint16_t)bpf->gen;
	t->parent = (pid_t)bpf->parent;
	t->sum.since = bpf->flags & FL_PROC_JOINED  ? SINCE_JOINED :
		       bpf->flags & FL_PROC_PRESENT ? SINCE_ATTACH :
						      SINCE_FORK;
	/* read, then checked: a process that was still itself after the reads was read */
	cgroup__of_pid(pid, t->sum.cgroup, sizeof(t->sum.cgroup));
	if (procfs__read_status(pid, &t->sum.at_attach) == 0 &&
	    procfs__read_comm(pid, t->sum.comm, sizeof(t->sum.comm)) == 0 &&
	    target__same_process(t)) {
		t->sum.alive = true;
		t->sum.now = t->sum.at_attach;
		/* VmRSS stays as read: the other figures (Pss, VmPTE) have no baseline but this */
		target__take_bases(t, bpf);
		return;
	}
	/* gone before we looked: its rows are still shown, its kernel figures are unknown */
	memset(&t->sum.at_attach, 0, sizeof(t->sum.at_attach));
	t->sum.no_status = true;
	snprintf(t->sum.comm, sizeof(t->sum.comm), "%s", fallback_comm ? fallback_comm : "");
}

void target__start_naming(struct target *t, struct elf_cache *elf, const struct symbolizer *like)
{
	char comm[FL_COMM_LEN];

	symbolizer__free(t->sym);
	t->sym = symbolizer__new_like(elf, t->sum.pid, like);
	if (!procfs__read_comm(t->sum.pid, comm, sizeof(comm)) && target__same_process(t))
		memcpy(t->sum.comm, comm, sizeof(comm));
	else if (t->sum.followed) {
		/* its pid is another process's by now: that one's maps would misname it */
		symbolizer__free(t->sym);
		t->sym = NULL;
	}
}

void target__name_from_parent(struct target *t, struct elf_cache *elf, pid_t parent)
{
	symbolizer__free(t->sym);
	t->sym = symbolizer__new(elf, parent);
}

/* Appends to the maps text @text (@len bytes) the mappings of @fb that none of it overlaps.
 * Returns 0 or -errno. */
static int add_free_mappings(char **text, size_t *len, const struct symbolizer *fb)
{
	struct procmaps got = { 0 };
	char *more = NULL, *all;
	size_t nmore = 0;
	FILE *in = fmemopen(*text, *len, "r"), *out = open_memstream(&more, &nmore);
	int err = in && out ? procmaps__parse(in, &got) : -ENOMEM;

	if (in)
		fclose(in);
	if (!err)
		err = symbolizer__write_maps(fb, out, &got);
	if (out)
		fclose(out);
	procmaps__free(&got);
	all = err ? NULL : realloc(*text, *len + nmore + 1);
	if (all) {
		memcpy(all + *len, more, nmore + 1);
		*text = all;
		*len += nmore;
	}
	free(more);
	return err ? err : all ? 0 : -ENOMEM;
}

int target__name_at_exit(struct target *t, struct elf_cache *elf, struct exit_maps *exits,
			 const struct symbolizer *parent)
{
	const struct symbolizer *root = t->sym ? t->sym : parent;
	struct symbolizer *sym = NULL;
	char *text = NULL;
	size_t len = 0, n = 0;
	FILE *f = exits ? open_memstream(&text, &len) : NULL;
	int err = -ENOENT;

	if (f) {
		n = exit_maps__take(exits, t->sum.pid, t->start, f);
		fclose(f);
	}
	/* where the records have nothing: what was known of it, then its parent's image (what
	 * it ran before an exec) */
	if (n && t->sym)
		add_free_mappings(&text, &len, t->sym);
	if (n && parent)
		add_free_mappings(&text, &len, parent);
	if (n && (f = fmemopen(text, len, "r"))) {
		sym = symbolizer__new_offline(elf, f, root ? symbolizer__rootfd(root) : AT_FDCWD,
					      root);
		err = sym ? 0 : -errno;
		fclose(f);
	}
	free(text);
	if (sym) {
		symbolizer__free(t->sym);
		t->sym = sym;
	} else {
		symbolizer__detach(t->sym);
	}
	return err;
}

void target__read_end(struct target *t)
{
	struct proc_status now = t->sum.now;

	if (!t->sum.alive)
		return;
	if (!procfs__read_status_keep_rollup(t->sum.pid, &now) && target__same_process(t)) {
		t->sum.now = now;
		t->ended = true;
	} else {
		t->sum.alive = false;
	}
}

void target__refresh(struct target *t, bool final, size_t alive)
{
	uint64_t start, cpu;
	bool rollup;
	struct proc_status now = t->sum.now;
	int err;

	/* before the clocks: a session of -f keeps every child gone, one call each a refresh */
	if (!t->sum.alive)
		return;
	start = pace__now();
	cpu = pace__thread_cpu();
	rollup = final || pace__due(&t->rollup, start);
	if (t->ended)
		err = procfs__read_rollup_keep_status(t->sum.pid, &now);
	else if (rollup)
		err = procfs__read_status(t->sum.pid, &now);
	else
		err = procfs__read_status_keep_rollup(t->sum.pid, &now);
	if (rollup)
		pace__done_among(&t->rollup, start, pace__thread_cpu() - cpu, alive);
	t->sum.rollup_age_ns = start - t->rollup.at;
	if (!err && target__same_process(t))
		t->sum.now = now;
	else
		t->sum.alive = false;
	if (t->sym && t->sum.alive)
		symbolizer__refresh(t->sym);
}

int target__read_inventory(struct target *t, enum inv_side side, bool paced)
{
	uint64_t start = pace__now(), cpu = pace__thread_cpu();
	int err;

	if (!t->sum.alive || t->sum.followed)
		return 0;
	if (paced && !pace__due(&t->inventory_pace, start))
		return -EAGAIN;
	if (!t->inventory && !(t->inventory = calloc(1, sizeof(*t->inventory))))
		return -ENOMEM;
	err = inventory_read(t->inventory, t->sum.pid, side);
	pace__done(&t->inventory_pace, start, pace__thread_cpu() - cpu);
	/* its pid another process's by now: what was read is not its */
	if (!err && !target__same_process(t))
		err = -ESRCH;
	if (!err)
		t->sum.inventory = t->inventory;
	return err;
}

bool target__exited(struct target *t)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

	if (!t->sum.alive || t->sum.followed)
		return !t->sum.alive;
	if (t->pidfd >= 0 ? poll(&p, 1, 0) == 1 : kill(t->sum.pid, 0) && errno == ESRCH)
		t->sum.alive = false;
	return !t->sum.alive;
}

void target__fini(struct target *t)
{
	symbolizer__free(t->sym);
	t->sym = NULL;
	inventory__free(t->inventory);
	free(t->inventory);
	t->inventory = NULL;
	t->sum.inventory = NULL;
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
}

struct target *target_set__add(struct target_set *set)
{
	struct target *v = grow__reserve(set->v, &set->cap, set->n, sizeof(*v));

	if (!v)
		return NULL;
	set->v = v;
	memset(&v[set->n], 0, sizeof(v[set->n]));
	v[set->n].pidfd = -1;
	return &v[set->n++];
}

/* The slot of @pid in @slots (open addressing, linear probing). */
static size_t *pid_slot(const struct target *v, size_t *slots, size_t nslots, pid_t pid)
{
	size_t i = ((uint32_t)pid * 0x9e3779b9u) & (nslots - 1);

	while (slots[i] && v[slots[i] - 1].sum.pid != pid)
		i = (i + 1) & (nslots - 1);
	return &slots[i];
}

int target_set__index(struct target_set *set, struct target *t)
{
	size_t *slot;

	if ((set->npids + 1) * 2 > set->nslots) {
		size_t n = set->nslots ? set->nslots * 2 : 64;
		size_t *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (size_t i = 0; i < set->nslots; i++)
			if (set->slots[i])
				*pid_slot(set->v, slots, n, set->v[set->slots[i] - 1].sum.pid) =
					set->slots[i];
		free(set->slots);
		set->slots = slots;
		set->nslots = n;
	}
	slot = pid_slot(set->v, set->slots, set->nslots, t->sum.pid);
	if (!*slot)
		set->npids++;
	t->older = *slot;
	*slot = (size_t)(t - set->v) + 1;
	return 0;
}

struct target *target_set__first(struct target_set *set, pid_t pid)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].sum.pid == pid)
			return &set->v[i];
	return NULL;
}

struct target *target_set__find(struct target_set *set, pid_t pid)
{
	size_t i = set->nslots ? *pid_slot(set->v, set->slots, set->nslots, pid) : 0;

	return i ? &set->v[i - 1] : NULL;
}

struct target *target_set__find_gen(struct target_set *set, pid_t pid, uint16_t gen)
{
	struct target *t = target_set__find(set, pid);

	while (t && gen && t->gen != gen)
		t = t->older ? &set->v[t->older - 1] : NULL;
	return t;
}

size_t target_set__drop(struct target_set *set, bool (*drop)(const struct target *t, void *ctx),
			void *ctx, size_t *moved)
{
	size_t kept = 0, n = set->n;

	for (size_t i = 0; i < n; i++) {
		bool gone = drop(&set->v[i], ctx);

		if (moved)
			moved[i] = gone ? 0 : kept + 1;
		if (gone)
			target__fini(&set->v[i]);
		else
			set->v[kept++] = set->v[i];
	}
	set->n = kept;
	/* fewer pids than before: no index grows, so none fails */
	set->npids = 0;
	if (set->nslots)
		memset(set->slots, 0, set->nslots * sizeof(*set->slots));
	for (size_t i = 0; i < kept; i++)
		target_set__index(set, &set->v[i]);
	return n - kept;
}

void target_set__fini(struct target_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		target__fini(&set->v[i]);
	free(set->v);
	free(set->slots);
	memset(set, 0, sizeof(*set));
}
