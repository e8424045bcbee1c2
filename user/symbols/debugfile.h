/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Where the separate debug file of an ELF file may be: by build-id under the debug directory,
 * then by its .gnu_debuglink name beside the file, in the file's .debug/ subdirectory and under
 * the debug directory (gdb's order). Every path is resolved under a root directory (a
 * container's /proc/PID/root).
 */
#ifndef FAULTLINE_DEBUGFILE_H
#define FAULTLINE_DEBUGFILE_H

#include <stddef.h>
#include <stdint.h>

/* The longest build-id looked up (GNU build-ids are 20 bytes, a SHA-1, by default). */
#define DEBUGFILE_MAX_BUILD_ID 64

struct debugfile_query {
	int rootfd;		 /* paths are under it (AT_FDCWD: the host's root) */
	const char *path;	 /* the file's path under @rootfd, or NULL: no debuglink search */
	const char *debug_dir;	 /* e.g. /usr/lib/debug, under @rootfd */
	const uint8_t *build_id; /* the file's GNU build-id */
	size_t build_id_len;	 /* 0: none */
	const char *debuglink;	 /* the file's .gnu_debuglink name, or NULL */
};

/*
 * Opens the candidates for the file open at @fd in order, skipping the file itself, and calls
 * @try(candidate fd, @arg) on each until it returns non-zero (1: the candidate was used;
 * -errno: stop). Sets *@found to a copy of the used candidate's path. Returns 1 when one was
 * used, 0 when none was, or -errno.
 */
int debugfile__find(int fd, const struct debugfile_query *q, int (*try)(int fd, void *arg),
		    void *arg, char **found);

#endif /* FAULTLINE_DEBUGFILE_H */
