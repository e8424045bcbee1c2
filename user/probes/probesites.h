/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The legacy programs' stand-in for attach cookies (Linux 5.15): each allocator probe's
 * cookie by the address it stops at in its process (bpf/alloc.bpf.c, probe_sites), written
 * as its probes are attached.
 */
#ifndef FAULTLINE_PROBESITES_H
#define FAULTLINE_PROBESITES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "symbols/procmaps.h"

/*
 * The address, in a process whose mappings are @m, of the byte at file offset @off of
 * @path: as /proc/PID/maps names it, or /proc/PID/map_files/START-END (a deleted file, named
 * by its mapping's range). Returns 0 and sets *@vaddr, or -ENOENT when no executable mapping
 * of it covers @off.
 */
int probesites__vaddr(const struct procmaps *m, const char *path, uint64_t off, uint64_t *vaddr);

/* One target's probes: their file offsets in @path, cookies, and the addresses written (0:
 * not mapped when last written). */
struct probe_site_set {
	pid_t pid;
	char *path;
	uint64_t *offs, *cookies, *addrs;
	size_t n;
};

/* Every target's, kept to write again as its code is mapped (a launched command's libraries
 * after its exec), in the probe_sites map @fd. Locked: --sample-time's windows attach from
 * a thread of their own. */
struct probe_sites {
	int fd;
	pthread_mutex_t lock;
	struct probe_site_set *v;
	size_t n, cap;
};

/* An empty set of sites for the map @fd (-1: none, every call below then does nothing but
 * probesites__free()). */
void probesites__init(struct probe_sites *s, int fd);

/* Keeps @pid's @n probes (replacing what it had) and writes those its maps hold now; a probe
 * in code not mapped yet is written by probesites__refresh(). Returns 0, or -errno (out of
 * memory, its maps unreadable, the map full). */
int probesites__add(struct probe_sites *s, pid_t pid, const char *path, const uint64_t *offs,
		    const uint64_t *cookies, size_t n);

/* Writes @pid's probes again from its maps now (nothing when it has none kept). */
void probesites__refresh(struct probe_sites *s, pid_t pid);

/* @pid is gone: its entries leave the map. */
void probesites__forget(struct probe_sites *s, pid_t pid);

/* Frees what @s keeps (the map's entries stay: it goes with the object). */
void probesites__free(struct probe_sites *s);

#endif /* FAULTLINE_PROBESITES_H */
