// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "procfs.h"
#include "targets.h"

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
		fprintf(stderr, "faultline: pid %d is a kernel thread or a zombie: it has no user "
				"memory to profile\n", pid);
	else
		fprintf(stderr, "faultline: cannot read /proc/%d/status: %s\n", pid, strerror(-err));
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
		fprintf(stderr, "faultline: %d is a thread of process %d: profiling the whole "
				"process\n", pid, tgid);
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

void target__start_naming(struct target *t, struct elf_cache *elf)
{
	procfs__read_comm(t->sum.pid, t->sum.comm, sizeof(t->sum.comm));
	symbolizer__free(t->sym);
	t->sym = symbolizer__new(elf, t->sum.pid);
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
