/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Parsers of /proc/PID files that take a FILE *, so tests feed fixtures. */
#ifndef FAULTLINE_PROCFS_H
#define FAULTLINE_PROCFS_H

#include <stdint.h>
#include <stdio.h>

/* The memory figures of /proc/PID/status, in bytes (the file says kB). */
struct proc_status {
	uint64_t vm_rss;
	uint64_t rss_anon;
	uint64_t rss_file;
	uint64_t rss_shmem;
	uint64_t vm_swap;
};

/* Parses /proc/PID/status from @f into @out. Returns 0, or -EINVAL when VmRSS is missing
 * (a kernel thread, or a zombie). */
int procfs__parse_status(FILE *f, struct proc_status *out);

#endif /* FAULTLINE_PROCFS_H */
