/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * What every test workload shares: the start/stop protocol, strict argument parsing, and the
 * page toucher. Each workload is one .c file that includes this header, so the helpers are
 * static inline (no unused-function warnings) and nothing here needs linking.
 *
 * The protocol (tests/integration relies on it):
 *   WORKLOAD [--now | --in MS] [--exit] [ARG...]
 *   1. The first thing main() does is block SIGUSR1, SIGUSR2, SIGTERM and SIGINT, so a signal
 *      sent at any later moment is kept pending instead of killing the process; the waits
 *      below take them with sigwaitinfo(). Threads inherit the mask.
 *   2. Setup that must not count as work (creating a file, mapping memory) runs next.
 *   3. Without --now: print "ready" on stdout and wait for SIGUSR1 (SIGTERM/SIGINT: exit 0).
 *      With --now: print nothing and start at once. With --in MS: print nothing and start
 *      MS milliseconds after main() began (a process no test can signal, a grandchild).
 *   4. The work. Every byte it makes resident is touched from a named, out-of-line function.
 *   5. Print "done" on stdout. With --exit, exit 0 right away; otherwise wait for SIGUSR2,
 *      SIGTERM or SIGINT, then exit 0. Between "done" and that signal the process sits still,
 *      so a test can read /proc/PID/status.
 *   Exit status 2 on a usage error, 1 when a system call fails.
 *
 * Lines are written with write(2), not stdio: stdio would allocate its buffer (heap growth)
 * on the first printf, inside the measured window.
 */
#ifndef FAULTLINE_WORKLOAD_H
#define FAULTLINE_WORKLOAD_H

/* Included first by every workload: pthread_setname_np and memfd_create are GNU. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define WL_PAGE 4096UL
#define WL_MIB (1024UL * 1024UL)
#define WL_MAX_ARGS 8

struct wl_args {
	bool now;	/* --now: do not wait for SIGUSR1 */
	unsigned in_ms;	/* --in MS: ... but for MS ms */
	bool exit_after; /* --exit: exit right after "done" */
	int nargs;	/* positional arguments */
	char *args[WL_MAX_ARGS];
};

static inline void wl_die(const char *what)
{
	fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static inline void wl_usage(const char *usage)
{
	fprintf(stderr, "usage: %s\n", usage);
	exit(2);
}

/* CLOCK_MONOTONIC in nanoseconds: the benchmarks time themselves. */
static inline uint64_t wl_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		wl_die("clock_gettime");
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Blocks the protocol's signals; must run before anything else in main(). */
static inline void wl_block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		wl_die("sigprocmask");
}

/* Blocks the signals, then splits the flags from the positional arguments. */
static inline void wl_init(int argc, char **argv, struct wl_args *a, const char *usage)
{
	wl_block_signals();
	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--now"))
			a->now = true;
		else if (!strcmp(argv[i], "--exit"))
			a->exit_after = true;
		else if (!strcmp(argv[i], "--in") && i + 1 < argc && atoi(argv[i + 1]) > 0)
			a->in_ms = (unsigned)atoi(argv[++i]);
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
			wl_usage(usage);
		else if (a->nargs < WL_MAX_ARGS)
			a->args[a->nargs++] = argv[i];
		else
			wl_usage(usage);
	}
}

/* Positional argument @i as a count in [0, @max], or @def when absent. */
static inline unsigned long wl_arg_ulong(const struct wl_args *a, int i, unsigned long def,
					 unsigned long max, const char *usage)
{
	unsigned long v;
	char *end;

	if (i >= a->nargs)
		return def;
	errno = 0;
	v = strtoul(a->args[i], &end, 10);
	if (errno || end == a->args[i] || *end != '\0' || a->args[i][0] == '-' || v > max)
		wl_usage(usage);
	return v;
}

static inline void wl_say(const char *line)
{
	size_t len = strlen(line);

	/* A pipe write this small is atomic; a short write means the reader is gone. */
	if (write(STDOUT_FILENO, line, len) != (ssize_t)len)
		exit(1);
}

/* Waits for one of @sigs (a 0-terminated list); returns the signal taken. */
static inline int wl_wait_for(const int *sigs)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	for (; *sigs; sigs++)
		sigaddset(&set, *sigs);
	do
		sig = sigwaitinfo(&set, NULL);
	while (sig < 0 && errno == EINTR);
	if (sig < 0)
		wl_die("sigwaitinfo");
	return sig;
}

/* Step 3 of the protocol. */
static inline void wl_wait_start(const struct wl_args *a)
{
	static const int sigs[] = { SIGUSR1, SIGTERM, SIGINT, 0 };

	if (a->in_ms) {
		struct timespec ts = { a->in_ms / 1000, (long)(a->in_ms % 1000) * 1000000 };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		return;
	}
	if (a->now)
		return;
	wl_say("ready\n");
	if (wl_wait_for(sigs) != SIGUSR1)
		exit(0);
}

/* Step 5 of the protocol; does not return. */
static inline void wl_finish(const struct wl_args *a)
{
	static const int sigs[] = { SIGUSR2, SIGTERM, SIGINT, 0 };

	wl_say("done\n");
	if (!a->exit_after)
		wl_wait_for(sigs);
	exit(0);
}

/*
 * Anonymous private memory, one 4 KiB fault per page: without MADV_NOHUGEPAGE a THP fault
 * would make 2 MiB resident at once, and the first touch of a 2 MiB range would be charged
 * for bytes that were never touched.
 */
/* mmap(2) with huge pages off, so each touched page is one 4 KiB fault; dies on failure. */
static inline char *wl_map(size_t len, int prot, int flags, int fd)
{
	char *p = mmap(NULL, len, prot, flags, fd, 0);

	if (p == MAP_FAILED)
		wl_die("mmap");
	if (madvise(p, len, MADV_NOHUGEPAGE))
		wl_die("madvise(MADV_NOHUGEPAGE)");
	return p;
}

static inline char *wl_map_anon(size_t len)
{
	return wl_map(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
}

/* A memfd named @name of @len bytes, mapped shared (shmem), not touched; dies on failure. */
static inline char *wl_map_memfd(const char *name, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	char *p;

	if (fd < 0)
		wl_die("memfd_create");
	if (ftruncate(fd, (off_t)len))
		wl_die("ftruncate");
	p = wl_map(len, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	close(fd);
	return p;
}

/*
 * The work of a system-call benchmark: waits for the start, times @work(@calls) (it returns
 * the calls it made) on CLOCK_MONOTONIC, prints "result ns=NANOSECONDS calls=CALLS" and
 * finishes as workload.h says. The timed window holds nothing but the calls.
 */
static inline void wl_timed_calls(const struct wl_args *a, unsigned long (*work)(unsigned long),
				  unsigned long calls)
{
	uint64_t t0, t1;
	unsigned long done;
	char line[128];

	wl_wait_start(a);
	t0 = wl_now_ns();
	done = work(calls);
	t1 = wl_now_ns();
	snprintf(line, sizeof(line), "result ns=%llu calls=%lu\n", (unsigned long long)(t1 - t0),
		 done);
	wl_say(line);
	wl_finish(a);
}

/*
 * GCC (12 at least) leaves out the frame of a leaf function that needs no stack, even under
 * -fno-omit-frame-pointer. A fault in such a leaf has the caller's frame in %rbp, so a
 * frame-pointer walk would skip the caller. Asking for the frame address forces the frame;
 * the empty asm keeps the request from being optimised away.
 */
static inline __attribute__((always_inline)) void wl_keep_frame(void)
{
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
}

/*
 * Writes one byte per page. always_inline (which GCC honours even under -fno-inline) puts
 * the loop, and so every fault, in the named caller: the caller is the leaf frame.
 * The volatile pointer keeps the compiler from dropping or merging the stores;
 * memset would fault from glibc, which has no frame pointers and would hide the caller.
 */
static inline __attribute__((always_inline)) void wl_write_pages(char *p, size_t len)
{
	volatile char *v = p;

	wl_keep_frame();
	for (size_t off = 0; off < len; off += WL_PAGE)
		v[off] = 1;
}

/* Maps @len bytes of anonymous memory and makes every page resident, in the caller's frame. */
static inline __attribute__((always_inline)) char *wl_grow_anon(size_t len)
{
	char *p = wl_map_anon(len);

	wl_write_pages(p, len);
	return p;
}

/* Reads one byte per page; returns their sum so the loads have a use. */
static inline __attribute__((always_inline)) unsigned long wl_read_pages(const char *p, size_t len)
{
	const volatile char *v = p;
	unsigned long sum = 0;

	wl_keep_frame();
	for (size_t off = 0; off < len; off += WL_PAGE)
		sum += (unsigned char)v[off];
	return sum;
}

/* statfs(2) magic of tmpfs, whose mapped pages the kernel counts as shmem, not file. */
#define WL_TMPFS_MAGIC 0x01021994

/*
 * A file of @len bytes in @dir, already unlinked (nothing is left behind if the workload is
 * killed), written with write(2) and fsync'ed.
 */
static inline int wl_temp_file_anywhere(const char *dir, size_t len)
{
	char path[PATH_MAX], buf[64 * 1024];
	int fd;

	if (snprintf(path, sizeof(path), "%s/faultline-wl-XXXXXX", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		wl_die(dir);
	}
	fd = mkstemp(path);
	if (fd < 0)
		wl_die(path);
	if (unlink(path))
		wl_die("unlink");
	memset(buf, 'x', sizeof(buf));
	for (size_t done = 0; done < len;) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);
		ssize_t w = write(fd, buf, n);

		if (w <= 0)
			wl_die("write");
		done += (size_t)w;
	}
	if (fsync(fd))
		wl_die("fsync");
	return fd;
}

/*
 * The same on a file system whose mapped pages count as file pages: the pages are in the page
 * cache, but page cache is not RSS: only mapping them makes them resident in a process.
 */
static inline int wl_temp_file(const char *dir, size_t len)
{
	int fd = wl_temp_file_anywhere(dir, len);
	struct statfs fs;

	if (fstatfs(fd, &fs))
		wl_die("fstatfs");
	if (fs.f_type == WL_TMPFS_MAGIC) {
		fprintf(stderr, "workload: %s is on tmpfs: its pages would count as shmem\n", dir);
		exit(1);
	}
	return fd;
}

/*
 * A system call made from the caller's own code (x86-64). The storm workloads measure their
 * own RSS with these: a libc call would first fault libc's code in (and bind the function,
 * lazily), growth that the caller could not see in its own figures.
 */
static inline __attribute__((always_inline)) long wl_sys(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

#define WL_SYS_READ 0
#define WL_SYS_WRITE 1
#define WL_SYS_OPEN 2
#define WL_SYS_CLOSE 3
#define WL_SYS_CLONE 56
#define WL_SYS_EXECVE 59
#define WL_SYS_EXIT_GROUP 231

/* A process's RSS counters from its /proc/self/status, in bytes. */
struct wl_rss {
	int64_t anon, file, shmem;
};

/* Where wl_rss_read() reads the status: static, so wl_rss_prepare() can make it resident
 * before the measure (a forked child then writes to a copy of its parent's page, which
 * changes no counter). */
static char wl_status_buf[8192];

static inline void wl_rss_prepare(void)
{
	memset(wl_status_buf, 1, sizeof(wl_status_buf));
}

/* The kB figure on the line starting with @key in @text, in bytes (0 when missing). */
static inline __attribute__((always_inline)) int64_t wl_status_field(const char *text,
								     const char *key)
{
	int64_t v = 0;

	for (const char *line = text; *line;) {
		size_t i = 0;

		while (key[i] && line[i] == key[i])
			i++;
		if (!key[i]) {
			for (line += i; *line == ' ' || *line == '\t'; line++)
				;
			for (; *line >= '0' && *line <= '9'; line++)
				v = v * 10 + (*line - '0');
			return v * 1024;
		}
		while (*line && *line != '\n')
			line++;
		if (*line)
			line++;
	}
	return 0;
}

/* Reads the caller's own counters with no library call (see wl_sys()). Exits 1 on failure. */
static inline __attribute__((always_inline)) void wl_rss_read(struct wl_rss *r)
{
	long fd = wl_sys(WL_SYS_OPEN, (long)"/proc/self/status", O_RDONLY, 0);
	long n = fd < 0 ? -1 :
			  wl_sys(WL_SYS_READ, fd, (long)wl_status_buf, sizeof(wl_status_buf) - 1);

	if (n <= 0)
		wl_sys(WL_SYS_EXIT_GROUP, 1, 0, 0);
	wl_sys(WL_SYS_CLOSE, fd, 0, 0);
	wl_status_buf[n] = '\0';
	r->anon = wl_status_field(wl_status_buf, "RssAnon:");
	r->file = wl_status_field(wl_status_buf, "RssFile:");
	r->shmem = wl_status_field(wl_status_buf, "RssShmem:");
}

/* Writes @after - @before to @fd as one struct wl_rss (one pipe write, so atomic). */
static inline __attribute__((always_inline)) void wl_rss_report(int fd, const struct wl_rss *before,
								const struct wl_rss *after)
{
	struct wl_rss d = { after->anon - before->anon, after->file - before->file,
			    after->shmem - before->shmem };

	if (wl_sys(WL_SYS_WRITE, fd, (long)&d, sizeof(d)) != (long)sizeof(d))
		wl_sys(WL_SYS_EXIT_GROUP, 1, 0, 0);
}

#endif /* FAULTLINE_WORKLOAD_H */
