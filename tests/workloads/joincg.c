// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * joincg FILE... -- PROGRAM [ARG...]: writes its pid into each cgroup.procs FILE, then execs
 * PROGRAM, as a service manager or a container runtime starts a process in a cgroup (fork
 * outside it, move in, exec). Not a workload of the usual protocol: a launcher of one.
 * Exit status 2 on a usage error, 1 when a move or the exec fails.
 */
#include "workload.h"

int main(int argc, char **argv)
{
	char pid[32];
	int i, len;

	len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		int fd = open(argv[i], O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, pid, (size_t)len) != len)
			wl_die(argv[i]);
		close(fd);
	}
	if (i + 1 >= argc)
		wl_usage("joincg FILE... -- PROGRAM [ARG...]");
	execv(argv[i + 1], argv + i + 1);
	wl_die(argv[i + 1]);
	return 1;
}
