// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * allocfork: forked children that allocate and exit without freeing, as a server's worker
 * processes do (a BGSAVE child, a database backend), for --alloc -f: blocks that no free can
 * ever match once their process is gone.
 *
 *   allocfork [--exec] [--now] [--exit] [CHILDREN [BLOCKS [WAIT_MS]]]    (default: 4 500 400)
 *
 * Work (after SIGUSR1, see workload.h): CHILDREN children are forked one after the other; each
 * waits WAIT_MS (the time a profiler following it needs to probe it), makes BLOCKS malloc(64)
 * calls from child_leak(), frees none, and exits; the parent reaps it. The parent then prints
 * "children N" and finishes as workload.h says. With --exec each child first execs this
 * program again (as "allocfork --leak BLOCKS WAIT_MS"), as a build's compilers are: the blocks
 * are its new image's, and it waits until its malloc is probed (at most WAIT_MS).
 */
#include "workload.h"
#include <sys/wait.h>

#define USAGE "allocfork [--exec] [--now] [--exit] [CHILDREN [BLOCKS [WAIT_MS]]]"
#define MAX_CHILDREN 10000
#define MAX_BLOCKS 1000000
#define MAX_WAIT_MS 60000
#define BLOCK_SIZE 64

static void *volatile sink; /* keeps the compiler from dropping the calls */

__attribute__((noinline)) void child_leak(unsigned long blocks)
{
	for (unsigned long i = 0; i < blocks; i++)
		sink = malloc(BLOCK_SIZE);
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A child: waits @wait_ms for the profiler, leaks @blocks, exits. */
static void child(unsigned long blocks, unsigned long wait_ms)
{
	sleep_ms(wait_ms);
	child_leak(blocks);
	_exit(0);
}

/*
 * An exec'd child: its new image is probed only once the profiler has read it, so it waits
 * for that, up to @wait_ms: a uprobe is an int3 written at the probed address, which the
 * process reads in its own copy of the page (a forked child's copy has its parent's). The
 * return probe comes first, the entry right after it: a moment's margin for that.
 */
static void exec_child(unsigned long blocks, unsigned long wait_ms)
{
	const volatile unsigned char *entry = (const volatile unsigned char *)(void *)malloc;

	for (unsigned long waited = 0; waited < wait_ms && *entry != 0xcc; waited += 10)
		sleep_ms(10);
	if (*entry == 0xcc)
		sleep_ms(100);
	child_leak(blocks);
	_exit(0);
}

int main(int argc, char **argv)
{
	unsigned long children, blocks, wait_ms;
	char line[64], nblocks[24], nwait[24];
	bool exec_children = false;
	struct wl_args a;
	int status;

	if (argc == 4 && !strcmp(argv[1], "--leak"))
		exec_child(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
	if (argc > 1 && !strcmp(argv[1], "--exec")) {
		exec_children = true;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 3)
		wl_usage(USAGE);
	children = wl_arg_ulong(&a, 0, 4, MAX_CHILDREN, USAGE);
	blocks = wl_arg_ulong(&a, 1, 500, MAX_BLOCKS, USAGE);
	wait_ms = wl_arg_ulong(&a, 2, 400, MAX_WAIT_MS, USAGE);

	wl_wait_start(&a);
	for (unsigned long i = 0; i < children; i++) {
		pid_t pid = fork();

		if (pid < 0)
			wl_die("fork");
		if (pid == 0 && exec_children) {
			snprintf(nblocks, sizeof(nblocks), "%lu", blocks);
			snprintf(nwait, sizeof(nwait), "%lu", wait_ms);
			execl("/proc/self/exe", "allocfork", "--leak", nblocks, nwait,
			      (char *)NULL);
			_exit(127);
		}
		if (pid == 0)
			child(blocks, wait_ms);
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				wl_die("waitpid");
	}
	snprintf(line, sizeof(line), "children %lu\n", children);
	wl_say(line);
	wl_finish(&a);
	return 0;
}
