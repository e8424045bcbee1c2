/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * forker: a parent that forks one child once started, for -f (follow the children).
 *
 *   forker [--now] [--exit] [CHILD_MIB [PARENT_MIB [PRE_MIB [EXEC_PATH [EXEC_ARG...]]]]]
 *                                                                   (default: 32 8 16)
 *
 * Setup: before_fork() touches PRE_MIB MiB in the parent, so the child inherits that much
 * anonymous RSS from fork: it must not count as the child's growth.
 * Work (after SIGUSR1, see workload.h): the parent forks. The child prints "child ready" and
 * waits for SIGUSR1 of its own (not with --now); then, without EXEC_PATH, child_grow() touches
 * CHILD_MIB MiB, the child prints "child done" and waits for SIGUSR2 (SIGTERM/SIGINT; not
 * with --exit) before it exits 0; with EXEC_PATH it execs `EXEC_PATH --now EXEC_ARG...` with
 * stdout on /dev/null. Meanwhile parent_grow() touches PARENT_MIB MiB in the parent, which
 * then waits for the child to end and finishes as workload.h says ("done", SIGUSR2).
 */
#include "workload.h"
#include <sys/wait.h>

#define USAGE "forker [--now] [--exit] [CHILD_MIB [PARENT_MIB [PRE_MIB [EXEC_PATH [ARG...]]]]]"
#define MAX_MIB 4096

__attribute__((noinline)) char *before_fork(size_t len)
{
	return wl_grow_anon(len);
}

__attribute__((noinline)) char *child_grow(size_t len)
{
	return wl_grow_anon(len);
}

__attribute__((noinline)) char *parent_grow(size_t len)
{
	return wl_grow_anon(len);
}

static void child_exec(const struct wl_args *a)
{
	char *argv[WL_MAX_ARGS + 2];
	int null = open("/dev/null", O_WRONLY), n = 0;

	if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
		wl_die("/dev/null");
	argv[n++] = a->args[3];
	argv[n++] = (char *)"--now";
	for (int i = 4; i < a->nargs; i++)
		argv[n++] = a->args[i];
	argv[n] = NULL;
	execv(a->args[3], argv);
	wl_die(a->args[3]);
}

static void child(const struct wl_args *a, size_t len)
{
	static const int go[] = { SIGUSR1, SIGTERM, SIGINT, 0 };
	static const int end[] = { SIGUSR2, SIGTERM, SIGINT, 0 };

	wl_say("child ready\n");
	if (!a->now && wl_wait_for(go) != SIGUSR1)
		_exit(0);
	if (a->nargs > 3)
		child_exec(a);
	if (len)
		child_grow(len);
	wl_say("child done\n");
	if (!a->exit_after)
		wl_wait_for(end);
	_exit(0);
}

int main(int argc, char **argv)
{
	size_t child_len, parent_len;
	struct wl_args a;
	int status;
	pid_t pid;

	wl_init(argc, argv, &a, USAGE);
	child_len = wl_arg_ulong(&a, 0, 32, MAX_MIB, USAGE) * WL_MIB;
	parent_len = wl_arg_ulong(&a, 1, 8, MAX_MIB, USAGE) * WL_MIB;
	if (wl_arg_ulong(&a, 2, 16, MAX_MIB, USAGE))
		before_fork(wl_arg_ulong(&a, 2, 16, MAX_MIB, USAGE) * WL_MIB);

	wl_wait_start(&a);
	pid = fork();
	if (pid < 0)
		wl_die("fork");
	if (pid == 0)
		child(&a, child_len);
	if (parent_len)
		parent_grow(parent_len);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			wl_die("waitpid");
	wl_finish(&a);
}
