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

#include <errno.h>
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

/* What a server answered that was not the debug file asked for (struct debuginfod_result.err). */
#define DEBUGINFOD_NOT_ELF (-ENOEXEC)	  /* bytes that are not ELF */
#define DEBUGINFOD_OTHER_BUILD (-EBADMSG) /* the debug file of another build-id, or of none */

/* A finished fetch. */
struct debuginfod_result {
	uint8_t id[64];
	size_t len;
	/* 0: @path holds the debug file; -ENOENT: no server has it; DEBUGINFOD_NOT_ELF or
	 * DEBUGINFOD_OTHER_BUILD: a file came that is not it; -ECANCELED: not asked, the servers
	 * had failed; -errno */
	int err;
	char *path; /* the file in the client's cache (malloc'ed; the caller frees it), or NULL */
	uint8_t other[64]; /* DEBUGINFOD_OTHER_BUILD: the build-id the file has */
	size_t other_len;  /* 0: none */
	/* a file that was not it is removed from the client's cache, so that no session takes it
	 * from there: 0 when it was, else -errno and @path names it */
	int uncache_err;
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
 * The error that made the servers count as failed, once, with *@why the fetch that failed (its
 * @path, set when a wrong file could not be removed from the cache, is the caller's to free): a
 * refused connection, a time-out, or an answer that was not the file asked for
 * (DEBUGINFOD_NOT_ELF, DEBUGINFOD_OTHER_BUILD). Later fetches are not tried. 0 when none, or
 * when already returned.
 */
int debuginfod__take_error(struct debuginfod *d, struct debuginfod_result *why);

#endif /* FAULTLINE_DEBUGINFOD_H */
