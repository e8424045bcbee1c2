// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/btfcache.h"
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KERNEL_NOTES "/sys/kernel/notes"
#define KERNEL_BTF "/sys/kernel/btf/vmlinux"
#define NT_GNU_BUILD_ID_TYPE 3
#define MAX_ID 64

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

size_t btf_cache__kernel_id(const uint8_t *buf, size_t len, uint8_t *id, size_t max)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name, desc;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		name = off + 12;
		desc = name + align4(namesz);
		if (desc > len || descsz > len - desc)
			return 0;
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 && !memcmp(buf + name, "GNU", 4) &&
		    descsz && descsz <= max) {
			memcpy(id, buf + desc, descsz);
			return descsz;
		}
		off = desc + align4(descsz);
	}
	return 0;
}

/* FNV-1a over 8-byte words, then the tail: a file name, not a defense */
static uint64_t hash_bytes(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ^ len;
}

void btf_cache__name(const uint8_t *kid, size_t kidlen, const void *obj, size_t objlen, char *out,
		     size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < kidlen && n + 3 < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%02x", kid[i]);
	snprintf(out + n, len - n, "-%016llx.btf", (unsigned long long)hash_bytes(obj, objlen));
}

static const char *cache_dir(void)
{
	const char *d = getenv("FAULTLINE_CACHE");

	return d && d[0] ? d : BTF_CACHE_DIR;
}

/* Ours (root's or this user's), no one else's to write, of type @type (no symlink). */
static bool trusted(const struct stat *st, mode_t type)
{
	return (st->st_mode & S_IFMT) == type && (st->st_uid == 0 || st->st_uid == geteuid()) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* The cache folder and its btf/ folder, trusted: none but us can put a file in either. With
 * @missing_ok, one that is not there yet is trusted too (made as the session ends). */
static bool trusted_dirs(bool missing_ok)
{
	char btf_dir[PATH_MAX];
	const char *dirs[] = { cache_dir(), btf_dir };
	struct stat st;

	snprintf(btf_dir, sizeof(btf_dir), "%s/btf", cache_dir());
	for (size_t i = 0; i < 2; i++)
		if (lstat(dirs[i], &st) ? !(missing_ok && errno == ENOENT) : !trusted(&st, S_IFDIR))
			return false;
	return true;
}

static bool parses(const char *path)
{
	struct btf *btf = btf__parse_raw(path);

	btf__free(btf);
	return btf != NULL;
}

void btf_cache__find(struct btf_cache *c, const void *obj, size_t objlen)
{
	uint8_t notes[4096], id[MAX_ID];
	char name[2 * MAX_ID + 32];
	struct stat st;
	ssize_t n = 0;
	size_t idlen;
	int fd = open(KERNEL_NOTES, O_RDONLY | O_CLOEXEC);

	c->path[0] = '\0';
	c->have = false;
	if (fd >= 0) {
		n = read(fd, notes, sizeof(notes));
		close(fd);
	}
	idlen = n > 0 ? btf_cache__kernel_id(notes, (size_t)n, id, sizeof(id)) : 0;
	if (!idlen)
		return;
	/* a folder others may write to is neither read nor written */
	if (!trusted_dirs(true))
		return;
	btf_cache__name(id, idlen, obj, objlen, name, sizeof(name));
	snprintf(c->path, sizeof(c->path), "%s/btf/%s", cache_dir(), name);
	/* libbpf trusts its offsets, and opens the file by its path: none but us may have
	 * written it or be able to swap it */
	c->have = trusted_dirs(false) && !lstat(c->path, &st) && trusted(&st, S_IFREG);
	/* one cut or spoiled goes without a word from libbpf, and is made again */
	if (c->have && !parses(c->path)) {
		unlink(c->path);
		c->have = false;
	}
}

static const char *const bpftools[] = { "/usr/sbin/bpftool", "/usr/bin/bpftool",
					"/usr/local/sbin/bpftool", "/sbin/bpftool" };

static const char *find_bpftool(void)
{
	for (size_t i = 0; i < sizeof(bpftools) / sizeof(bpftools[0]); i++)
		if (!access(bpftools[i], X_OK))
			return bpftools[i];
	return NULL;
}

static int write_all(int fd, const void *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* In the background process: in a folder of its own in the cache (none but us can enter
 * it), the object to a file, bpftool on it, the result renamed into place (atomic: a session
 * starting meanwhile reads all of it or nothing). Returns the exit status. */
static int make_now(const char *path, const char *bpftool, const void *obj, size_t objlen)
{
	char dir[PATH_MAX], work[PATH_MAX + 16], objpath[PATH_MAX + 32], out[PATH_MAX + 32];
	int fd, status = -1, done = 1;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/btf", cache_dir());
	mkdir(cache_dir(), 0755);
	mkdir(dir, 0755);
	snprintf(work, sizeof(work), "%s/.make-XXXXXX", dir);
	if (!trusted_dirs(false) || !mkdtemp(work))
		return 1;
	snprintf(objpath, sizeof(objpath), "%s/obj.o", work);
	snprintf(out, sizeof(out), "%s/out.btf", work);
	fd = open(objpath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && !write_all(fd, obj, objlen)) {
		close(fd);
		pid = fork();
		if (pid == 0) {
			execl(bpftool, bpftool, "gen", "min_core_btf", KERNEL_BTF, out, objpath,
			      (char *)NULL);
			_exit(127);
		}
		while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		fd = pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status) ?
			     open(out, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) :
			     -1;
		done = fd < 0 || fchmod(fd, 0644) || rename(out, path);
	}
	if (fd >= 0)
		close(fd);
	unlink(objpath);
	unlink(out);
	rmdir(work);
	return done;
}

int btf_cache__make(const struct btf_cache *c, const void *obj, size_t objlen)
{
	const char *bpftool = find_bpftool();
	int status;
	pid_t pid;

	if (!c->path[0])
		return -EINVAL;
	if (!bpftool)
		return -ENOENT;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		sigset_t none;
		int null = open("/dev/null", O_RDWR);

		/* none of faultline's files (BPF links, maps, the target's fds, the pipe a reader
		 * of its output waits on the end of): its probes go when it ends, whatever this
		 * still does */
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		if (close_range(3, ~0U, 0))
			for (int fd = 3; fd < 65536; fd++)
				close(fd);
		/* the signals faultline blocks for its signalfd are bpftool's again */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		setsid();
		/* the grandchild, whom init reaps: faultline waits for no one */
		if (fork() != 0)
			_exit(0);
		setpriority(PRIO_PROCESS, 0, 10);
		_exit(make_now(c->path, bpftool, obj, objlen));
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return 0;
}
