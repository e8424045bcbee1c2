/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * swarm: a parent and its children that all map the parent's shared memory and each write
 * memory of their own, as a database's backends do with its shared buffers, for -f's summary
 * by executable and its note on shared pages.
 *
 *   swarm [--now] [--exit] [CHILDREN [CHILD_MIB [SHARED_MIB]]]          (default: 8 8 64)
 *
 * Setup (before "ready"): SHARED_MIB MiB of shared anonymous memory (shmem), every page
 * written by the parent: resident before any profiler attaches.
 * Work (after SIGUSR1, see workload.h): the parent forks CHILDREN children, which wait, and
 * prints "forked N". After a second SIGUSR1 (not with --now) it lets them go: each reads one
 * byte of every page of the shared memory from map_shared() (mapping pages that are resident
 * already: RssShmem rises SHARED_MIB, the machine pays nothing), writes CHILD_MIB MiB of its
 * own from child_own(), tells the parent, and stays alive until the parent exits. The parent
 * prints "done" once every child has, then finishes as workload.h says.
 */
#include "workload.h"

#define USAGE "swarm [--now] [--exit] [CHILDREN [CHILD_MIB [SHARED_MIB]]]"
#define MAX_CHILDREN 1000
#define MAX_MIB 4096

static volatile unsigned long sink; /* keeps the reads */

__attribute__((noinline)) void map_shared(const char *shared, size_t len)
{
	sink += wl_read_pages(shared, len);
}

__attribute__((noinline)) char *child_own(size_t len)
{
	return wl_grow_anon(len);
}

/* Reads one byte from @fd: 1, or 0 at its end. */
static int take(int fd)
{
	char c;
	ssize_t n;

	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return n == 1;
}

static void give(int fd)
{
	while (write(fd, "x", 1) != 1)
		if (errno != EINTR)
			wl_die("write");
}

/* The child: waits for its byte on @go, works, says so on @done, then lives until @hold's end
 * (the parent's exit: nothing is ever written there, so no sibling's byte is taken). */
static void child(int go, int done, int hold, const char *shared, size_t shared_len, size_t own_len)
{
	if (!take(go))
		_exit(0);
	map_shared(shared, shared_len);
	child_own(own_len);
	give(done);
	take(hold);
	_exit(0);
}

int main(int argc, char **argv)
{
	static const int go_sigs[] = { SIGUSR1, SIGTERM, SIGINT, 0 };
	unsigned long children;
	size_t own_len, shared_len;
	int go[2], done[2], hold[2];
	struct wl_args a;
	char line[64], *shared;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 3)
		wl_usage(USAGE);
	children = wl_arg_ulong(&a, 0, 8, MAX_CHILDREN, USAGE);
	own_len = wl_arg_ulong(&a, 1, 8, MAX_MIB, USAGE) * WL_MIB;
	shared_len = wl_arg_ulong(&a, 2, 64, MAX_MIB, USAGE) * WL_MIB;
	shared = wl_map(shared_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);
	wl_write_pages(shared, shared_len);
	if (pipe(go) || pipe(done) || pipe(hold))
		wl_die("pipe");

	wl_wait_start(&a);
	for (unsigned long i = 0; i < children; i++) {
		pid_t pid = fork();

		if (pid < 0)
			wl_die("fork");
		if (!pid) {
			close(go[1]);
			close(done[0]);
			close(hold[1]);
			child(go[0], done[1], hold[0], shared, shared_len, own_len);
		}
	}
	close(go[0]);
	close(done[1]);
	close(hold[0]);
	snprintf(line, sizeof(line), "forked %lu\n", children);
	wl_say(line);
	if (!a.now && wl_wait_for(go_sigs) != SIGUSR1)
		exit(0);
	for (unsigned long i = 0; i < children; i++)
		give(go[1]);
	for (unsigned long i = 0; i < children; i++)
		if (!take(done[0]))
			wl_die("a child ended before its work");
	/* the children live on until this process exits and closes hold[1] */
	wl_finish(&a);
}
