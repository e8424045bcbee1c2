/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* /proc/PID/status (memory figures, signal sets) and /proc/PID/comm, and files opened inside a
 * process's root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/procfs.h"

struct status_field {
	const char *key; /* with the colon, so "VmRSS" does not match "VmRSSx" */
	size_t off;
};

static const struct status_field status_fields[] = {
	{ "VmRSS:", offsetof(struct proc_status, vm_rss) },
	{ "RssAnon:", offsetof(struct proc_status, rss_anon) },
	{ "RssFile:", offsetof(struct proc_status, rss_file) },
	{ "RssShmem:", offsetof(struct proc_status, rss_shmem) },
	{ "VmSwap:", offsetof(struct proc_status, vm_swap) },
	{ "VmPTE:", offsetof(struct proc_status, vm_pte) },
	{ "HugetlbPages:", offsetof(struct proc_status, hugetlb) },
};

static const struct status_field rollup_fields[] = {
	{ "Pss:", offsetof(struct proc_status, pss) },
	{ "Pss_Anon:", offsetof(struct proc_status, pss_anon) },
	{ "Pss_File:", offsetof(struct proc_status, pss_file) },
	{ "Pss_Shmem:", offsetof(struct proc_status, pss_shmem) },
};

/* Parses "   1234 kB" into bytes. */
static int parse_kb(const char *s, uint64_t *out)
{
	unsigned long long kb;
	char *end;

	errno = 0;
	kb = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	while (*end == ' ' || *end == '\t')
		end++;
	if (strncmp(end, "kB", 2) != 0)
		return -EINVAL;
	if (kb > UINT64_MAX / 1024)
		return -ERANGE;
	*out = (uint64_t)kb * 1024;
	return 0;
}

/*
 * Fills the fields of @fields found in the "Key:   123 kB" lines of @f. Returns a bit mask of
 * the fields found (bit i: @fields[i]), or -EINVAL on a malformed number. A "Tgid:" line fills
 * out->tgid.
 */
static int parse_kb_fields(FILE *f, const struct status_field *fields, size_t n,
			   struct proc_status *out)
{
	char line[256];
	int found = 0;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Tgid: %d", &out->tgid) == 1)
			continue;
		for (size_t i = 0; i < n; i++) {
			size_t klen = strlen(fields[i].key);

			if (strncmp(line, fields[i].key, klen) != 0)
				continue;
			if (parse_kb(line + klen, (uint64_t *)((char *)out + fields[i].off)))
				return -EINVAL;
			found |= 1 << i;
			break;
		}
	}
	return found;
}

int procfs__parse_status(FILE *f, struct proc_status *out)
{
	int found;

	memset(out, 0, sizeof(*out));
	found = parse_kb_fields(f, status_fields, sizeof(status_fields) / sizeof(status_fields[0]),
				out);
	/* VmRSS (field 0) is what every user process has, and kernel threads and zombies lack */
	return found < 0 || !(found & 1) ? -EINVAL : 0;
}

int procfs__parse_smaps_rollup(FILE *f, struct proc_status *out)
{
	int err = parse_kb_fields(f, rollup_fields,
				  sizeof(rollup_fields) / sizeof(rollup_fields[0]), out);

	if (err <= 0)
		return -EINVAL;
	out->have_pss = true;
	return 0;
}

int procfs__open(pid_t pid, const char *name, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return fd;
}

int procfs__fopen(pid_t pid, const char *name, FILE **out)
{
	int fd = procfs__open(pid, name, O_RDONLY), err;

	if (fd < 0)
		return fd;
	*out = fdopen(fd, "r");
	if (*out)
		return 0;
	err = -errno;
	close(fd);
	return err;
}

int procfs__readlink(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	if (!len)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	buf[n] = '\0';
	return 0;
}

/* Reads "@dir/status" (and smaps_rollup when @rollup) of process @pid, @dir "" or
 * "task/TID/". */
static int read_status_in(pid_t pid, const char *dir, bool rollup, struct proc_status *out)
{
	char name[64];
	FILE *f;
	int err;

	snprintf(name, sizeof(name), "%sstatus", dir);
	err = procfs__fopen(pid, name, &f);
	if (err)
		return err;
	err = procfs__parse_status(f, out);
	fclose(f);
	if (err || !rollup)
		return err;
	/* the kernel walks every page table for this file: about 6 ms per GiB resident here */
	snprintf(name, sizeof(name), "%ssmaps_rollup", dir);
	if (!procfs__fopen(pid, name, &f)) {
		procfs__parse_smaps_rollup(f, out);
		fclose(f);
	}
	return 0;
}

/* /proc/@pid/task as a directory stream, or NULL with -errno in *@err. */
static DIR *open_tasks(pid_t pid, int *err)
{
	int fd = procfs__open(pid, "task", O_RDONLY | O_DIRECTORY);
	DIR *d;

	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		*err = -errno;
		close(fd);
	}
	return d;
}

/* A leader that called pthread_exit() is a zombie whose status has no memory figures while
 * the process lives on: any live thread's status has them. -EINVAL when none does. */
static int read_status_of_a_thread(pid_t pid, bool rollup, struct proc_status *out)
{
	int err = -EINVAL;
	struct dirent *e;
	DIR *d = open_tasks(pid, &err);

	if (!d)
		return err;
	while (err && (e = readdir(d))) {
		char dir[sizeof(e->d_name) + 8];

		if (e->d_name[0] == '.' || atoi(e->d_name) == pid)
			continue;
		snprintf(dir, sizeof(dir), "task/%s/", e->d_name);
		err = read_status_in(pid, dir, rollup, out) ? -EINVAL : 0;
	}
	closedir(d);
	return err;
}

int procfs__live_dir(pid_t pid, char *buf, size_t len)
{
	int fd = procfs__open(pid, "", O_PATH | O_DIRECTORY), task, found = 0;
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return fd;
	snprintf(buf, len, "/proc/%d", (int)pid);
	/* a zombie leader's root is gone (and its maps empty) while its threads run */
	task = faccessat(fd, "root", F_OK, 0) ?
		       openat(fd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC) :
		       -1;
	close(fd);
	d = task >= 0 ? fdopendir(task) : NULL;
	while (d && !found && (e = readdir(d))) {
		char root[sizeof(e->d_name) + 8];

		snprintf(root, sizeof(root), "%s/root", e->d_name);
		if (e->d_name[0] != '.' && atoi(e->d_name) != pid &&
		    faccessat(task, root, F_OK, 0) == 0)
			found = snprintf(buf, len, "/proc/%d/task/%s", (int)pid, e->d_name) > 0;
	}
	if (d)
		closedir(d);
	else if (task >= 0)
		close(task);
	return 0; /* none alive: the leader's, where the caller finds out */
}

bool procfs__is_map_file(const char *path)
{
	return !strncmp(path, "/proc/", 6) && strstr(path, "/map_files/");
}

int procfs__open_live(pid_t pid)
{
	char dir[64];
	int err = procfs__live_dir(pid, dir, sizeof(dir)), fd;

	if (err)
		return err;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? (errno == ENOENT ? -ESRCH : -errno) : fd;
}

static int read_status(pid_t pid, bool rollup, struct proc_status *out)
{
	int err = read_status_in(pid, "", rollup, out);

	return err == -EINVAL ? read_status_of_a_thread(pid, rollup, out) : err;
}

int procfs__read_status(pid_t pid, struct proc_status *out)
{
	return read_status(pid, true, out);
}

int procfs__read_status_keep_rollup(pid_t pid, struct proc_status *out)
{
	struct proc_status now;
	int err = read_status(pid, false, &now);

	if (err)
		return err;
	now.have_pss = out->have_pss;
	now.pss = out->pss;
	now.pss_anon = out->pss_anon;
	now.pss_file = out->pss_file;
	now.pss_shmem = out->pss_shmem;
	*out = now;
	return 0;
}

int procfs__read_rollup_keep_status(pid_t pid, struct proc_status *out)
{
	struct proc_status now;
	int err = read_status(pid, true, &now);

	if (err)
		return err;
	out->have_pss = now.have_pss;
	out->pss = now.pss;
	out->pss_anon = now.pss_anon;
	out->pss_file = now.pss_file;
	out->pss_shmem = now.pss_shmem;
	return 0;
}

int procfs__parse_signals(FILE *f, struct proc_signals *out)
{
	static const struct {
		const char *key;
		size_t off;
	} sets[] = {
		{ "SigPnd:", offsetof(struct proc_signals, pending) },
		{ "ShdPnd:", offsetof(struct proc_signals, shared_pending) },
		{ "SigBlk:", offsetof(struct proc_signals, blocked) },
		{ "SigIgn:", offsetof(struct proc_signals, ignored) },
	};
	char line[256];
	unsigned found = 0;

	memset(out, 0, sizeof(*out));
	while (fgets(line, sizeof(line), f)) {
		for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
			size_t klen = strlen(sets[i].key);
			char *end;

			if (strncmp(line, sets[i].key, klen))
				continue;
			errno = 0;
			*(uint64_t *)((char *)out + sets[i].off) = strtoull(line + klen, &end, 16);
			if (errno || end == line + klen || (*end != '\n' && *end != '\0'))
				return -EINVAL;
			found |= 1u << i;
		}
	}
	return found == (1u << (sizeof(sets) / sizeof(sets[0]))) - 1 ? 0 : -EINVAL;
}

int procfs__read_signals(pid_t pid, struct proc_signals *out)
{
	FILE *f;
	int err = procfs__fopen(pid, "status", &f);

	if (err)
		return err;
	err = procfs__parse_signals(f, out);
	fclose(f);
	return err;
}

int procfs__read_comm(pid_t pid, char *buf, size_t len)
{
	char tmp[64]; /* TASK_COMM_LEN is 16; leave room for a longer future one */
	ssize_t n;
	int fd, err = 0;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	fd = procfs__open(pid, "comm", O_RDONLY);
	if (fd < 0)
		return fd;
	n = read(fd, tmp, sizeof(tmp) - 1);
	if (n < 0) {
		/* reading the comm of a task that just exited fails with ESRCH already */
		err = -errno;
		goto cleanup;
	}
	tmp[n] = '\0';
	tmp[strcspn(tmp, "\n")] = '\0';
	snprintf(buf, len, "%s", tmp);
cleanup:
	close(fd);
	return err;
}

int procfs__stat_field(const char *stat, int field, uint64_t *out)
{
	/* the comm, in parentheses, may hold spaces and parentheses: fields count from the last */
	const char *p = strrchr(stat, ')');
	unsigned long long v;
	char *end;

	if (!p || field < 3)
		return -EINVAL;
	p++;
	/* the state (3) is a letter; from 4 on, numbers (some signed: read as they are) */
	for (int f = 3; f < field; f++) {
		p += strspn(p, " ");
		if (!*p)
			return -EINVAL;
		p += strcspn(p, " ");
	}
	p += strspn(p, " ");
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || end == p || (*end && *end != ' ' && *end != '\n'))
		return -EINVAL;
	*out = v;
	return 0;
}

int procfs__parse_start(const char *stat, uint64_t *ticks)
{
	return procfs__stat_field(stat, 22, ticks); /* starttime */
}

int procfs__read_start(pid_t pid, uint64_t *ticks)
{
	char buf[1024];
	ssize_t n;
	int fd = procfs__open(pid, "stat", O_RDONLY), err;

	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf) - 1);
	err = n < 0 ? (errno == ESRCH ? -ESRCH : -errno) : 0;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	return procfs__parse_start(buf, ticks);
}

/* include/linux/sched.h: the task is in do_exit(), its mappings going */
#define PF_EXITING 0x4

bool procfs__gone(pid_t pid)
{
	unsigned flags;
	char buf[1024];
	ssize_t n;
	int fd = procfs__open(pid, "stat", O_RDONLY);
	const char *p;

	if (fd < 0)
		return fd == -ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	/* the comm may hold ") ": the state follows the last one, the flags 6 fields on */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return true;
	return sscanf(p + 3, " %*d %*d %*d %*d %*d %u", &flags) == 1 && (flags & PF_EXITING);
}

uint64_t procfs__ticks_of_ns(uint64_t ns)
{
	long hz = sysconf(_SC_CLK_TCK);

	/* the kernel's nsec_to_clock_t(): an exact division for USER_HZ 100 */
	return ns / (1000000000ULL / (uint64_t)(hz > 0 ? hz : 100));
}

uint64_t procfs__ns_of_ticks(uint64_t ticks)
{
	long hz = sysconf(_SC_CLK_TCK);

	return ticks * (1000000000ULL / (uint64_t)(hz > 0 ? hz : 100));
}

int procfs__open_in_root(int rootfd, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT,
	};
	long fd;

	if (rootfd == AT_FDCWD) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		return fd < 0 ? -errno : (int)fd;
	}
	/* RESOLVE_IN_ROOT keeps absolute symlinks inside the container's root */
	fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
		while (*path == '/')
			path++;
		fd = openat(rootfd, path, O_RDONLY | O_CLOEXEC);
	}
	return fd < 0 ? -errno : (int)fd;
}

int procfs__threads(pid_t pid)
{
	int n = 0;
	struct dirent *e;
	DIR *d = open_tasks(pid, &n);

	if (!d)
		return n;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}
