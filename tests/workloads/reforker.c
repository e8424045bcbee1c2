/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * reforker: two children one after the other, the second with the pid of the first, for a
 * pid that a followed child leaves and another child of the same target gets (-f).
 *
 *   reforker [--now] [--exit] [A_MIB [B_MIB]]                       (default: 8 24)
 *
 * Work (after SIGUSR1, see workload.h): a child touches A_MIB MiB from first_child() and
 * exits; the parent reaps it and prints "first PID". After a second SIGUSR1 it sets the next
 * pid to PID (/proc/sys/kernel/ns_last_pid: root only) and forks again: that child touches
 * B_MIB MiB from second_child() and exits; the parent reaps it and prints "second PID2" (PID2
 * is PID unless another process took that pid first), then finishes as workload.h says.
 */
#include "workload.h"
#include <sys/wait.h>

#define USAGE "reforker [--now] [--exit] [A_MIB [B_MIB]]"
#define MAX_MIB 4096

__attribute__((noinline)) void first_child(size_t len)
{
	wl_write_pages(wl_map_anon(len), len);
}

__attribute__((noinline)) void second_child(size_t len)
{
	wl_write_pages(wl_map_anon(len), len);
}

/* Forks a child that runs @fn(@len) and exits; reaps it and prints "@what PID". */
static void run_child(void (*fn)(size_t), size_t len, const char *what, pid_t *pid)
{
	char line[64];
	int status;

	*pid = fork();
	if (*pid < 0)
		wl_die("fork");
	if (!*pid) {
		fn(len);
		_exit(0);
	}
	while (waitpid(*pid, &status, 0) < 0)
		if (errno != EINTR)
			wl_die("waitpid");
	snprintf(line, sizeof(line), "%s %d\n", what, (int)*pid);
	wl_say(line);
}

/* The next pid made in this namespace will be @pid (if no other process forks first). */
static void next_pid(pid_t pid)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	int n = snprintf(buf, sizeof(buf), "%d", (int)pid - 1);

	if (fd < 0 || write(fd, buf, (size_t)n) != n)
		wl_die("/proc/sys/kernel/ns_last_pid");
	close(fd);
}

int main(int argc, char **argv)
{
	static const int go[] = { SIGUSR1, SIGTERM, SIGINT, 0 };
	size_t a_len, b_len;
	struct wl_args a;
	pid_t first, second;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 2)
		wl_usage(USAGE);
	a_len = wl_arg_ulong(&a, 0, 8, MAX_MIB, USAGE) * WL_MIB;
	b_len = wl_arg_ulong(&a, 1, 24, MAX_MIB, USAGE) * WL_MIB;

	wl_wait_start(&a);
	run_child(first_child, a_len, "first", &first);
	if (wl_wait_for(go) != SIGUSR1)
		exit(0);
	next_pid(first);
	run_child(second_child, b_len, "second", &second);
	wl_finish(&a);
}
