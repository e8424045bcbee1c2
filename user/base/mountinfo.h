/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The devices of a process's tmpfs mounts, from /proc/PID/mountinfo: a file mapped from one
 * is shared memory (the kernel counts its pages as RssShmem), whatever its path. */
#ifndef FAULTLINE_MOUNTINFO_H
#define FAULTLINE_MOUNTINFO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct shmem_dev {
	uint32_t major;
	uint32_t minor;
};

/* The devices of the tmpfs mounts listed in the mountinfo text @f into *@out (malloc'ed, *@n
 * of them). Lines that do not parse are skipped. Returns 0 or -ENOMEM. */
int mountinfo__parse_tmpfs(FILE *f, struct shmem_dev **out, size_t *n);

/* ... of /proc/@pid/mountinfo. Returns 0, -ESRCH when the process is gone, or -errno. */
int mountinfo__read_tmpfs(pid_t pid, struct shmem_dev **out, size_t *n);

#endif /* FAULTLINE_MOUNTINFO_H */
