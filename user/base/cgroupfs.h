/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The cgroup v2 hierarchy as a --cgroup target sees it: where it is mounted, which directory a
 * selector names, the processes under it, and its memory counters (from the v1 memory
 * controller at the same relative path on hybrid hosts, whose v2 tree has no memory files).
 * BPF decides membership by cgroup id; this is the userspace half, on plain files, so tests
 * pass a fake tree in a temporary directory as the v2 root.
 */
#ifndef FAULTLINE_CGROUPFS_H
#define FAULTLINE_CGROUPFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct cgroup_roots {
	char v2[PATH_MAX];	  /* cgroup2 mount point; "" when none */
	char v1_memory[PATH_MAX]; /* v1 memory controller mount point; "" when none */
};

/* The first cgroup2 mount and the first v1 cgroup mount whose super options hold "memory",
 * from the mountinfo text @f, into @r ("" for what is not there). Returns 0, or -ENOMEM. */
int cgroup__parse_roots(FILE *f, struct cgroup_roots *r);

/* cgroup__parse_roots() of /proc/self/mountinfo. Returns 0 or -errno. */
int cgroup__find_roots(struct cgroup_roots *r);

struct cgroup_target {
	char path[PATH_MAX]; /* the v2 directory, symlinks resolved */
	char rel[PATH_MAX];  /* its path below the v2 root: "/" for the root, "/a/b" otherwise */
	uint64_t id;	     /* st_ino of the directory: the cgroup id BPF sees (kn->id), on
			      * 64-bit kernels, whose kernfs inode numbers are the ids */
};

/* True when the --cgroup selector @sel is a container id: 12 to 64 lowercase hex digits. */
bool cgroupfs__is_container_id(const char *sel);

/*
 * The v2 directory that the --cgroup selector @sel names, under the root @r->v2, into @out:
 *  - an absolute path: a directory in the v2 hierarchy that holds cgroup.procs;
 *  - a path relative to the v2 root ("system.slice/foo.service", or "fltest" when the root
 *    has such a directory);
 *  - a container id (12 to 64 lowercase hex digits): the one directory whose name is the
 *    full id or docker-ID.scope, cri-containerd-ID.scope, crio-ID.scope, libpod-ID.scope, a
 *    short id matching as the prefix of a full one;
 *  - a systemd unit ("mysql.service", "user@1000.service", "x.slice"): the one directory of
 *    that name; a bare word without a dot is taken as WORD.service.
 * Names are searched depth-first, CGROUP_SEARCH_DEPTH levels down and through at most
 * CGROUP_SEARCH_DIRS directories. Returns 0, or -errno with a one-line reason in @why:
 * -ENOENT when nothing matches or cgroup v2 is not mounted, -EINVAL for a path that is not a
 * v2 cgroup (a v1 one, one outside the hierarchy, a directory without cgroup.procs),
 * -ENOTUNIQ when two directories match (@why names them), -ENAMETOOLONG, or another -errno.
 */
int cgroup__resolve(const struct cgroup_roots *r, const char *sel, struct cgroup_target *out,
		    char *why, size_t whylen);

#define CGROUP_SEARCH_DEPTH 12
#define CGROUP_SEARCH_DIRS 100000

/* The pids in the cgroup.procs of @dir and of every directory below it, sorted and each
 * once, into *@pids (malloc'ed, *@n of them; NULL when none). Directories removed during
 * the walk are skipped. Returns 0, -ENOENT when @dir is gone, -ENOMEM, or another -errno. */
int cgroup__pids(const char *dir, pid_t **pids, size_t *n);

/* Whether the cgroup @t still exists: its directory is there with the same id (a cgroup
 * removed and made again under the name is another cgroup to BPF). */
bool cgroup__exists(const struct cgroup_target *t);

struct cgroup_mem {
	int version;	       /* 2: the v2 directory's files; 1: the v1 memory cgroup at the
				* same relative path; 0: neither has memory.stat */
	char source[PATH_MAX]; /* the directory read */
	uint64_t current;      /* v2 memory.current (0 at the root, which has none); v1
				* memory.usage_in_bytes */
	uint64_t anon;	       /* v2 anon; v1 total_rss, or rss */
	uint64_t file;	       /* v2 file; v1 total_cache, or cache (both count shmem) */
	uint64_t shmem;	       /* v2 shmem; v1 total_shmem, or shmem */
	uint64_t file_mapped;  /* v2 file_mapped; v1 total_mapped_file, or mapped_file */
	uint64_t kernel;       /* v2 kernel (5.18), or else kernel_stack + pagetables + slab +
				* percpu; v1 memory.kmem.usage_in_bytes */
	bool have_kernel;      /* kernel was read (v1 kmem accounting may be off) */
	uint64_t swap;	       /* v2 memory.swap.current; v1 total_swap, or swap */
};

/* Parses a memory.stat text @f of cgroup @version (1 or 2) into @m: sets version, anon,
 * file, shmem, file_mapped, and kernel and have_kernel (v2) or swap (v1); leaves the other
 * fields. Returns 0, or -EINVAL for another version, a malformed line, or a text without
 * anon (v2) or rss (v1). */
int cgroup__parse_memstat(FILE *f, int version, struct cgroup_mem *m);

/* The memory counters of @t into @m: its v2 directory's when it has memory.stat, else those
 * of the directory at the same relative path under @r->v1_memory when there is one, else
 * version 0. Returns 0, -ENOENT when @t is gone, or another -errno. */
int cgroup__read_mem(const struct cgroup_roots *r, const struct cgroup_target *t,
		     struct cgroup_mem *m);

/* The v2 path (the "0::PATH" line) of a /proc/PID/cgroup text @f into @rel. Returns 0,
 * -ENOENT when there is no such line (a v1-only host), or -ENAMETOOLONG. */
int cgroup__parse_pid_cgroup(FILE *f, char *rel, size_t len);

/* ... of /proc/@pid/cgroup. Returns 0, -ESRCH when the process is gone, or -errno as above. */
int cgroup__of_pid(pid_t pid, char *rel, size_t len);

#endif /* FAULTLINE_CGROUPFS_H */
