/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * leaderexit: the main thread starts a worker and calls pthread_exit(), so the process lives on
 * with its leader a zombie (State Z in /proc/PID/status) until the worker ends, as servers
 * that hand main() over to a thread pool do. The worker touches a known amount of anonymous
 * memory from worker_touch().
 *
 *   leaderexit [--now] [--exit] [MIB]      (default: 8)
 *
 * Before "ready" it prints "worker TID" (its thread id) on its own line, so a test can give
 * faultline that thread id. Start/stop protocol: see workload.h; the worker does it, after the
 * leader has exited.
 */
#include "workload.h"
#include <pthread.h>
#include <sys/syscall.h>

#define USAGE "leaderexit [--now] [--exit] [MIB]"
#define MAX_MIB 4096

static struct wl_args args;
static size_t len;
static int leader_gone[2]; /* the leader writes a byte just before pthread_exit() */

__attribute__((noinline)) void worker_touch(size_t n)
{
	wl_write_pages(wl_map_anon(n), n);
}

static void *worker_main(void *unused)
{
	char line[64], c;

	(void)unused;
	if (read(leader_gone[0], &c, 1) != 1)
		wl_die("read");
	/* the leader's exit is under way: wait until the kernel shows it as a zombie */
	for (int i = 0; i < 1000; i++) {
		char path[64], buf[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/status", getpid());
		f = fopen(path, "r");
		if (!f)
			wl_die("fopen");
		while (fgets(buf, sizeof(buf), f) && strncmp(buf, "State:", 6))
			;
		fclose(f);
		if (strstr(buf, "Z"))
			break;
		usleep(1000);
	}
	snprintf(line, sizeof(line), "worker %ld\n", (long)syscall(SYS_gettid));
	wl_say(line);
	wl_wait_start(&args);
	worker_touch(len);
	wl_finish(&args);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	wl_init(argc, argv, &args, USAGE);
	len = wl_arg_ulong(&args, 0, 8, MAX_MIB, USAGE) * WL_MIB;
	if (pipe(leader_gone) || pthread_create(&t, NULL, worker_main, NULL))
		wl_die("pipe/pthread_create");
	if (write(leader_gone[1], "x", 1) != 1)
		wl_die("write");
	pthread_exit(NULL);
}
