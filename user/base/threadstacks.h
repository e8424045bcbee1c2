/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Where each thread of a process has its stack: its stack pointer as /proc/PID/task/TID
 * shows it (syscall while it is blocked; stat's kstkesp, which the kernel gives for an
 * exiting task only), with its name, so that the inventory names the mapping that holds it.
 */
#ifndef FAULTLINE_THREADSTACKS_H
#define FAULTLINE_THREADSTACKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* At most so many threads are read: a stack beyond them is told by its shape alone. */
#define THREADSTACKS_MAX 4096

struct thread_sp {
	pid_t tid;
	char comm[16]; /* TASK_COMM_LEN */
	uint64_t sp;   /* 0: unknown (the thread was running, or the file unreadable) */
};

/* The stack pointer of a /proc/PID/task/TID/syscall text ("NR ARGS... SP PC", "-1 SP PC"):
 * its second-to-last field. Returns 0, or -EAGAIN for "running", -EINVAL when malformed. */
int threadstacks__parse_syscall(const char *text, uint64_t *sp);

/* The kstkesp field (29) of a /proc/PID/task/TID/stat line. Returns 0, or -ENOENT when it
 * is 0 (the kernel hides it but for exiting tasks), -EINVAL when malformed. */
int threadstacks__parse_stat(const char *stat, uint64_t *sp);

/* The threads of process @pid with their names and stack pointers, into *@out (malloc'ed,
 * *@n of them, in /proc's order). Returns 0, -ESRCH when the process is gone, or -errno. */
int threadstacks__read(pid_t pid, struct thread_sp **out, size_t *n);

#endif /* FAULTLINE_THREADSTACKS_H */
