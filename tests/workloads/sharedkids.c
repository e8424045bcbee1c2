// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * sharedkids: children that map memory their parent made resident, for --metric new.
 *
 *   sharedkids [--now] [--exit] [KIDS [SHARED_MIB [OWN_MIB]]]          (default: 8 64 2)
 *
 * Setup: parent_fill() writes every page of a SHARED_MIB MiB shared anonymous mapping, so it
 * is resident before the work. Work (after SIGUSR1, see workload.h): the parent forks KIDS
 * children one after another; each reads every page of the shared mapping in kid_share()
 * (its RSS grows by SHARED_MIB: pages the machine held already) and writes OWN_MIB MiB of its
 * own in kid_own() (new memory), then exits 0. The parent waits for each before the next, so
 * the machine's new memory is KIDS * OWN_MIB MiB and the children's resident growth
 * KIDS * (SHARED_MIB + OWN_MIB) MiB.
 */
#include "workload.h"
#include <sys/wait.h>

#define USAGE "sharedkids [--now] [--exit] [KIDS [SHARED_MIB [OWN_MIB]]]"

__attribute__((noinline)) void parent_fill(char *p, size_t len)
{
	wl_write_pages(p, len);
}

__attribute__((noinline)) unsigned long kid_share(const char *p, size_t len)
{
	return wl_read_pages(p, len);
}

__attribute__((noinline)) char *kid_own(size_t len)
{
	return wl_grow_anon(len);
}

int main(int argc, char **argv)
{
	struct wl_args a;
	unsigned long kids, shared, own;
	char *p;

	wl_init(argc, argv, &a, USAGE);
	kids = wl_arg_ulong(&a, 0, 8, 64, USAGE);
	shared = wl_arg_ulong(&a, 1, 64, 4096, USAGE) * WL_MIB;
	own = wl_arg_ulong(&a, 2, 2, 4096, USAGE) * WL_MIB;
	p = wl_map(shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);
	parent_fill(p, shared);
	wl_wait_start(&a);
	for (unsigned long i = 0; i < kids; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0)
			wl_die("fork");
		if (pid == 0) {
			kid_share(p, shared);
			kid_own(own);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			wl_die("waitpid");
	}
	wl_finish(&a);
	return 0;
}
