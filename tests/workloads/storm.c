/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * storm: a parent that starts many short-lived children, as a build, a cron job or a shell
 * script does, for -f under a storm of processes.
 *
 *   storm [--now] [--exit] [CHILDREN [KIB [INTERVAL_MS [EXEC_PATH]]]]   (default 300 1024 5)
 *
 * Work (after SIGUSR1, see workload.h): CHILDREN children are forked one after the other,
 * INTERVAL_MS apart (0: back to back, each started when the previous one has exited).
 * Without EXEC_PATH each child touches KIB KiB of anonymous memory from child_touch() and
 * exits. With EXEC_PATH it touches KIB / 4 KiB from before_exec(), then execs
 * `EXEC_PATH --now FD KIB` (stormchild), which touches KIB KiB from its own function and
 * reports through FD.
 * Every child measures itself: the change of its RssAnon, RssFile and RssShmem from its first
 * moment (right after the fork; for an exec'd image, from zero) to its last, reported through
 * a pipe. So that nothing happens outside what it measures, a child is made by the clone
 * system call itself (glibc's fork() runs its atfork work in the child first, faulting
 * libc's code in) and makes no library call before its first measure, nor after its last.
 * The parent sums the reports and prints, before "done",
 *
 *   children N anon A file F shmem S
 *
 * (bytes; N the reports received), then waits as workload.h says.
 */
#include "workload.h"
#include <sys/select.h>
#include <sys/wait.h>

#define USAGE "storm [--now] [--exit] [CHILDREN [KIB [INTERVAL_MS [EXEC_PATH]]]]"
#define MAX_CHILDREN 100000
#define MAX_KIB (1024 * 1024)
#define MAX_INTERVAL_MS 10000

__attribute__((noinline)) void child_touch(size_t len)
{
	wl_write_pages(wl_map_anon(len), len);
}

__attribute__((noinline)) void before_exec(size_t len)
{
	wl_write_pages(wl_map_anon(len), len);
}

/*
 * The child: measured from its first moment to its exec or its exit, which it makes with no
 * library call (wl_sys()), so nothing unmeasured happens in between. @argv: stormchild's
 * command line, made by the parent.
 */
static void child(int fd, unsigned long kib, char *const *argv)
{
	struct wl_rss before, after;

	wl_rss_read(&before);
	if (argv)
		before_exec(kib / 4 * 1024);
	else
		child_touch(kib * 1024);
	wl_rss_read(&after);
	wl_rss_report(fd, &before, &after);
	if (argv)
		wl_sys(WL_SYS_EXECVE, (long)argv[0], (long)argv, (long)environ);
	wl_sys(WL_SYS_EXIT_GROUP, argv ? 127 : 0, 0, 0);
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The sum of the children's reports. */
struct storm_sum {
	unsigned long reports;
	int64_t anon, file, shmem;
};

/* Adds the reports waiting in @fd; @to_end: until every writer has closed it. */
static void drain(int fd, struct storm_sum *sum, bool to_end)
{
	struct wl_rss r;
	ssize_t n;

	for (;;) {
		if (!to_end) {
			struct timespec zero = { 0 };
			fd_set set;

			FD_ZERO(&set);
			FD_SET(fd, &set);
			if (pselect(fd + 1, &set, NULL, NULL, &zero, NULL) <= 0)
				return;
		}
		n = read(fd, &r, sizeof(r));
		if (n == 0 || (n < 0 && errno != EINTR))
			return;
		if (n != (ssize_t)sizeof(r))
			continue;
		sum->reports++;
		sum->anon += r.anon;
		sum->file += r.file;
		sum->shmem += r.shmem;
	}
}

/* Reaps the children that exited, without blocking (@block: waits for one). */
static unsigned long reap(bool block)
{
	unsigned long n = 0;
	int status;

	while (waitpid(-1, &status, block && !n ? 0 : WNOHANG) > 0)
		n++;
	return n;
}

int main(int argc, char **argv)
{
	unsigned long children, kib, interval, alive = 0;
	char fd_arg[16], kib_arg[32], *exec_argv[] = { NULL, "--now", fd_arg, kib_arg, NULL };
	struct storm_sum sum = { 0 };
	struct wl_args a;
	char line[160];
	int fds[2];

	wl_init(argc, argv, &a, USAGE);
	children = wl_arg_ulong(&a, 0, 300, MAX_CHILDREN, USAGE);
	kib = wl_arg_ulong(&a, 1, 1024, MAX_KIB, USAGE);
	interval = wl_arg_ulong(&a, 2, 5, MAX_INTERVAL_MS, USAGE);
	exec_argv[0] = a.nargs > 3 ? a.args[3] : NULL;
	if (a.nargs > 4)
		wl_usage(USAGE);
	if (pipe(fds))
		wl_die("pipe");
	snprintf(fd_arg, sizeof(fd_arg), "%d", fds[1]);
	snprintf(kib_arg, sizeof(kib_arg), "%lu", kib);
	wl_rss_prepare();

	wl_wait_start(&a);
	for (unsigned long i = 0; i < children; i++) {
		/* fork() without glibc's atfork work: see the top of the file */
		pid_t pid = (pid_t)wl_sys(WL_SYS_CLONE, SIGCHLD, 0, 0);

		if (pid < 0)
			wl_die("fork");
		if (pid == 0) {
			wl_sys(WL_SYS_CLOSE, fds[0], 0, 0);
			child(fds[1], kib, exec_argv[0] ? exec_argv : NULL);
		}
		alive++;
		/* the reports are read as they come, so a full pipe never blocks a child */
		drain(fds[0], &sum, false);
		if (interval)
			sleep_ms(interval);
		else
			alive -= reap(true);
		alive -= reap(false);
	}
	close(fds[1]);
	while (alive)
		alive -= reap(true);
	drain(fds[0], &sum, true);
	snprintf(line, sizeof(line), "children %lu anon %lld file %lld shmem %lld\n", sum.reports,
		 (long long)sum.anon, (long long)sum.file, (long long)sum.shmem);
	wl_say(line);
	wl_finish(&a);
}
