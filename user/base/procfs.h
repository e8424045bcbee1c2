/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Parsers of /proc/PID files that take a FILE *, so tests feed fixtures. */
#ifndef FAULTLINE_PROCFS_H
#define FAULTLINE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The memory figures of /proc/PID/status, in bytes (the file says kB). */
struct proc_status {
	uint64_t vm_rss;
	uint64_t rss_anon;
	uint64_t rss_file;
	uint64_t rss_shmem;
	uint64_t vm_swap;
	uint64_t vm_pte;  /* page tables: part of a process's private cost, not of RSS */
	uint64_t hugetlb; /* HugetlbPages: hugetlbfs pages, never in RSS */
	/* /proc/PID/smaps_rollup: shared pages split among the processes that map them */
	bool have_pss; /* the kernel has smaps_rollup (4.14) and it was readable */
	uint64_t pss;
	uint64_t pss_anon; /* Pss_Anon, Pss_File, Pss_Shmem: Linux 5.1 and later */
	uint64_t pss_file;
	uint64_t pss_shmem;
	int tgid; /* Tgid: the process a thread id belongs to (0 when the file has none) */
};

/* Parses /proc/PID/status from @f into @out. Returns 0, or -EINVAL when VmRSS is missing
 * (a kernel thread, or a zombie). Fields the kernel does not print (RssAnon before 4.5) are 0. */
int procfs__parse_status(FILE *f, struct proc_status *out);

/* Opens /proc/@pid/@name with @flags (O_CLOEXEC added). Returns the fd, -ESRCH when the
 * process is gone, or another -errno. */
int procfs__open(pid_t pid, const char *name, int flags);

/* The starttime of a /proc/PID/stat line @stat (clock ticks since boot): with the pid, a
 * process's identity. Returns 0 or -EINVAL. */
int procfs__parse_start(const char *stat, uint64_t *ticks);
/* Field @field (proc(5)'s numbering, 4 on: the numbers after the state) of a
 * /proc/PID/stat line @stat into *@out. Returns 0 or -EINVAL. */
int procfs__stat_field(const char *stat, int field, uint64_t *out);

/* True when process @pid has exited or is exiting: no /proc entry, a zombie, or its main
 * thread in do_exit() (its mappings and root go with it). */
bool procfs__gone(pid_t pid);

/* procfs__parse_start() of /proc/@pid/stat. Returns 0, -ESRCH when the process is gone, or
 * another -errno. */
int procfs__read_start(pid_t pid, uint64_t *ticks);

/* A start_boottime of the kernel's (ns) in the clock ticks of /proc/PID/stat's starttime. */
uint64_t procfs__ticks_of_ns(uint64_t ns);

/* ... and back: clock ticks since boot in nanoseconds (procfs__ticks_of_ns() undoes it). */
uint64_t procfs__ns_of_ticks(uint64_t ticks);

/* Opens @path under @rootfd (AT_FDCWD: the caller's own root; a target's is /proc/PID/root)
 * with symlinks resolved inside that root (openat2 RESOLVE_IN_ROOT, or a relative openat on
 * kernels before 5.6). Returns an fd (O_RDONLY | O_CLOEXEC) or -errno. */
int procfs__open_in_root(int rootfd, const char *path);

/* The /proc directory that shows process @pid's memory, root and files: /proc/@pid, or
 * /proc/@pid/task/TID of a live thread when the leader called pthread_exit() (a zombie leader
 * has no root and no maps while the process lives on), into @buf. Returns 0, -ESRCH when the
 * process is gone, or another -errno. */
int procfs__live_dir(pid_t pid, char *buf, size_t len);

/* True for a /proc/PID/map_files/START-END path: a file mapped by a process, reached through
 * the mapping itself (a deleted one too), never under a target's root. */
bool procfs__is_map_file(const char *path);

/* procfs__live_dir() opened as an O_PATH directory: the fd, or -errno as above. */
int procfs__open_live(pid_t pid);

/* procfs__open() for reading, as a stdio stream in *@out. Returns 0 or -errno as above. */
int procfs__fopen(pid_t pid, const char *name, FILE **out);

/* The target of the link /proc/@pid/@name ("exe", "cwd") into @buf, NUL-terminated. Returns
 * 0, -ESRCH when the process is gone, -EINVAL when @len is 0, or another -errno. */
int procfs__readlink(pid_t pid, const char *name, char *buf, size_t len);

/* Parses /proc/PID/smaps_rollup from @f into the Pss fields of @out (the others stay).
 * Returns 0 with have_pss set, or -EINVAL when there is no Pss line. */
int procfs__parse_smaps_rollup(FILE *f, struct proc_status *out);

/* Reads /proc/@pid/status, then smaps_rollup (have_pss stays false when it cannot), into
 * @out; those of a live thread when the leader's have no memory figures (it called
 * pthread_exit() and is a zombie while the process lives on). Returns 0, -ESRCH when the
 * process is gone, -EINVAL as procfs__parse_status (a kernel thread, or a process that is
 * all zombie), or another -errno from open. */
int procfs__read_status(pid_t pid, struct proc_status *out);

/* procfs__read_status() but for smaps_rollup, whose figures stay those @out holds; @out is
 * left as it was on failure. */
int procfs__read_status_keep_rollup(pid_t pid, struct proc_status *out);

/* procfs__read_status() but for status, whose figures stay those @out holds: smaps_rollup's
 * only are new; @out is left as it was on failure. */
int procfs__read_rollup_keep_status(pid_t pid, struct proc_status *out);

/* The signal sets of /proc/PID/status: bit N - 1 stands for signal N. */
struct proc_signals {
	uint64_t pending;	 /* SigPnd: sent to this thread */
	uint64_t shared_pending; /* ShdPnd: sent to the process */
	uint64_t blocked;	 /* SigBlk */
	uint64_t ignored;	 /* SigIgn */
};

/* Parses the signal sets of /proc/PID/status from @f into @out. Returns 0, or -EINVAL when
 * one of the four is missing or malformed. */
int procfs__parse_signals(FILE *f, struct proc_signals *out);

/* Reads the signal sets of /proc/@pid/status (its main thread's). Returns 0, -ESRCH when the
 * process is gone, -EINVAL as procfs__parse_signals, or another -errno from open. */
int procfs__read_signals(pid_t pid, struct proc_signals *out);

/* Copies /proc/@pid/comm, newline stripped, into @buf (NUL-terminated, truncated to @len - 1).
 * Returns 0, -ESRCH when the process is gone, -EINVAL when @len is 0, or another -errno. */
int procfs__read_comm(pid_t pid, char *buf, size_t len);

/* The threads of process @pid (entries of /proc/@pid/task, the exiting ones included), or
 * -errno (-ESRCH when the process is gone). */
int procfs__threads(pid_t pid);

#endif /* FAULTLINE_PROCFS_H */
