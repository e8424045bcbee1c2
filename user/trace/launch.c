// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/launch.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_main(int go_fd, int exec_fd, char *const argv[])
{
	char byte;
	int err;

	/* the parent may die before it lets us go: then read() sees EOF and we stop */
	if (read(go_fd, &byte, 1) != 1)
		_exit(127);
	close(go_fd);
	execvp(argv[0], argv);
	err = errno;
	if (write(exec_fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

static bool executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

int launch__resolve(const char *command, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(command, '/')) {
		snprintf(out, len, "%s", command);
		return executable(command) ? 0 : -ENOENT;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", command);
		if (executable(out))
			return 0;
		p += n + (p[n] == ':');
	}
	return -ENOENT;
}

int launch__check(const char *command)
{
	char buf[4096];

	if (!launch__resolve(command, buf, sizeof(buf)))
		return 0;
	fprintf(stderr, "faultline: cannot run '%s': %s\n", command,
		errno == EACCES || !strchr(command, '/') ? "not found or not executable" :
							   strerror(errno ? errno : ENOENT));
	return -ENOENT;
}

int launch__fork(struct launch *l, char *const argv[])
{
	int go[2], ex[2];

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	fflush(NULL);
	l->pid = fork();
	if (l->pid < 0) {
		int err = -errno;

		close(go[0]), close(go[1]), close(ex[0]), close(ex[1]);
		return err;
	}
	if (l->pid == 0) {
		close(go[1]);
		close(ex[0]);
		child_main(go[0], ex[1], argv);
	}
	close(go[0]);
	close(ex[1]);
	/*
	 * A short command can exit before the first refresh reads its mappings: stopping it once
	 * at exit keeps them readable. Without ptrace (Yama, seccomp) frames of libraries mapped
	 * after exec may stay unnamed, nothing worse.
	 */
	l->traced = ptrace(PTRACE_SEIZE, l->pid, NULL, (void *)(long)PTRACE_O_TRACEEXIT) == 0;
	l->go_fd = go[1];
	l->exec_fd = ex[0];
	return 0;
}

int launch__go(struct launch *l, const char *command)
{
	ssize_t got;
	int err = 0;

	if (write(l->go_fd, "g", 1) != 1)
		err = errno;
	close(l->go_fd);
	l->go_fd = -1;
	do
		got = read(l->exec_fd, &err, sizeof(err));
	while (got < 0 && errno == EINTR);
	close(l->exec_fd);
	l->exec_fd = -1;
	if (got <= 0 && !err)
		return 0;
	fprintf(stderr, "faultline: cannot run '%s': %s\n", command, strerror(err));
	waitpid(l->pid, NULL, 0);
	return -err;
}

int launch__on_wait(struct launch *l, int status)
{
	if (WIFEXITED(status) || WIFSIGNALED(status))
		return 2;
	if (!WIFSTOPPED(status) || !l->traced)
		return 0;
	if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8)))
		return 1;
	if (status >> 16 == PTRACE_EVENT_STOP)
		ptrace(PTRACE_LISTEN, l->pid, NULL,
		       NULL); /* a group stop (SIGSTOP): stay stopped */
	else
		ptrace(PTRACE_CONT, l->pid, NULL, (void *)(long)WSTOPSIG(status)); /* pass it on */
	return 0;
}

void launch__release(struct launch *l)
{
	ptrace(PTRACE_DETACH, l->pid, NULL, NULL);
	l->traced = false;
}

void launch__abort(struct launch *l)
{
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->exec_fd >= 0)
		close(l->exec_fd);
	kill(l->pid, SIGKILL);
	waitpid(l->pid, NULL, 0);
}
