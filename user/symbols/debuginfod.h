/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Debug files by build-id from the debuginfod servers of DEBUGINFOD_URLS, through elfutils'
 * client library (libdebuginfod.so.1, the one gdb, perf and systemtap use, with its cache in
 * $DEBUGINFOD_CACHE_PATH or ~/.cache/debuginfod_client), loaded at run time. Fetches run one
 * at a time on a thread of their own, so nothing waits for a server: the caller queues
 * build-ids and takes the files that arrived at its next refresh.
 */
#ifndef FAULTLINE_DEBUGINFOD_H
#define FAULTLINE_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One fetch is given up after this long, whatever the server does. */
#define DEBUGINFOD_MAX_FETCH_S 120

struct debuginfod;

/*
 * A fetcher for the servers of @urls (DEBUGINFOD_URLS' value; libdebuginfod reads the variable
 * itself, with DEBUGINFOD_TIMEOUT and its other knobs). Returns 0 with *@out set, -ENOENT when
 * @urls is NULL or blank, -ENOSYS when libdebuginfod.so.1 cannot be loaded, or -errno.
 */
int debuginfod__new(const char *urls, struct debuginfod **out);

/* Stops the thread: a fetch under way is aborted; what it left is forgotten. Never waits more
 * than a fraction of a second. Accepts NULL. */
void debuginfod__free(struct debuginfod *d);

/* Queues build-id @id (@len bytes) unless it was already. 0 or -ENOMEM. */
int debuginfod__request(struct debuginfod *d, const uint8_t *id, size_t len);

/* A finished fetch. */
struct debuginfod_result {
	uint8_t id[64];
	size_t len;
	int err;    /* 0: @path holds the debug file; -ENOENT: no server has it; -errno */
	char *path; /* the file in the client's cache (malloc'ed; the caller frees it) */
};

/* Takes the next finished fetch not taken yet: 1 with *@r filled, 0 when none. */
int debuginfod__take(struct debuginfod *d, struct debuginfod_result *r);

/* Waits until every queued fetch has finished or @ms passed; true when all have. */
bool debuginfod__wait(struct debuginfod *d, unsigned ms);

/* How many fetches were queued and not finished yet. */
size_t debuginfod__pending(struct debuginfod *d);

/* True once a server answered (a file or a "not found"): the servers are there. */
bool debuginfod__answered(struct debuginfod *d);

/*
 * The error that made the servers count as unreachable (a refused connection, a time-out),
 * once: later fetches are not tried and fail with it. 0 when none, or when already returned.
 */
int debuginfod__take_error(struct debuginfod *d);

#endif /* FAULTLINE_DEBUGINFOD_H */
