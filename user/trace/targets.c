// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/targets.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "base/grow.h"
#include "base/procfs.h"

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

/* A member's baseline from the BPF side when it has one (and the image is the forked one). */
static void take_base(uint64_t *field, const struct fl_proc *bpf, int member)
{
	if (bpf && !bpf->execs && bpf->seed[member] != FL_SIZE_UNKNOWN && bpf->seed[member] >= 0)
		*field = (uint64_t)bpf->seed[member];
}

void target__init_followed(struct target *t, pid_t pid, const struct fl_proc *bpf,
			   const char *fallback_comm)
{
	memset(t, 0, sizeof(*t));
	t->sum.pid = pid;
	t->sum.followed = true;
	t->pidfd = pidfd_of(pid);
	if (procfs__read_status(pid, &t->sum.at_attach) == 0 &&
	    procfs__read_comm(pid, t->sum.comm, sizeof(t->sum.comm)) == 0) {
		t->sum.alive = true;
		t->sum.now = t->sum.at_attach;
		/* VmRSS stays as read: the other figures (Pss, VmPTE) have no baseline but this */
		take_base(&t->sum.at_attach.rss_anon, bpf, FL_ANON);
		take_base(&t->sum.at_attach.rss_file, bpf, FL_FILE);
		take_base(&t->sum.at_attach.rss_shmem, bpf, FL_SHMEM);
		take_base(&t->sum.at_attach.vm_swap, bpf, FL_SWAP);
		return;
	}
	/* gone before we looked: its rows are still shown, its kernel figures are unknown */
	t->sum.no_status = true;
	snprintf(t->sum.comm, sizeof(t->sum.comm), "%s", fallback_comm ? fallback_comm : "");
}

void target__start_naming(struct target *t, struct elf_cache *elf)
{
	procfs__read_comm(t->sum.pid, t->sum.comm, sizeof(t->sum.comm));
	symbolizer__free(t->sym);
	t->sym = symbolizer__new(elf, t->sum.pid);
}

void target__name_from_parent(struct target *t, struct elf_cache *elf, pid_t parent)
{
	symbolizer__free(t->sym);
	t->sym = symbolizer__new(elf, parent);
}

void target__refresh(struct target *t)
{
	struct proc_status now;

	if (!t->sum.alive)
		return;
	if (procfs__read_status(t->sum.pid, &now) == 0)
		t->sum.now = now;
	else
		t->sum.alive = false;
	if (t->sym && t->sum.alive)
		symbolizer__refresh(t->sym);
}

bool target__exited(struct target *t)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

	if (!t->sum.alive)
		return true;
	if (t->pidfd >= 0 ? poll(&p, 1, 0) == 1 : kill(t->sum.pid, 0) && errno == ESRCH)
		t->sum.alive = false;
	return !t->sum.alive;
}

void target__fini(struct target *t)
{
	symbolizer__free(t->sym);
	t->sym = NULL;
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

struct target *target_set__find(struct target_set *set, pid_t pid)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].sum.pid == pid)
			return &set->v[i];
	return NULL;
}

void target_set__fini(struct target_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		target__fini(&set->v[i]);
	free(set->v);
	memset(set, 0, sizeof(*set));
}
