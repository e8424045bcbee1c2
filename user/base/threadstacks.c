// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "base/threadstacks.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/grow.h"
#include "base/procfs.h"

int threadstacks__parse_syscall(const char *text, uint64_t *sp)
{
	const char *fields[2] = { NULL, NULL }; /* the last two fields' starts */
	const char *p = text;
	unsigned long long v;
	char *end;

	if (!strncmp(text, "running", 7))
		return -EAGAIN;
	while (*p) {
		p += strspn(p, " \t\n");
		if (!*p)
			break;
		fields[0] = fields[1];
		fields[1] = p;
		p += strcspn(p, " \t\n");
	}
	if (!fields[0])
		return -EINVAL;
	errno = 0;
	v = strtoull(fields[0], &end, 16);
	if (errno || end == fields[0] || (*end != ' ' && *end != '\t'))
		return -EINVAL;
	*sp = v;
	return 0;
}

int threadstacks__parse_stat(const char *stat, uint64_t *sp)
{
	int err = procfs__stat_field(stat, 29, sp); /* kstkesp */

	return err ?: *sp ? 0 : -ENOENT;
}

/* Reads the small file @name under @dir into @buf (NUL-terminated). Returns its length or
 * -errno. */
static ssize_t read_small(int dir, const char *name, char *buf, size_t len)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* The name and stack pointer of thread @tid, whose /proc directory is @dir. */
static void read_thread(int dir, struct thread_sp *t)
{
	char buf[1024];

	if (read_small(dir, "comm", buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(t->comm, sizeof(t->comm), "%.15s", buf);
	}
	/* the kernel reads a blocked thread's registers for syscall; a running one says so */
	if (read_small(dir, "syscall", buf, sizeof(buf)) > 0 &&
	    !threadstacks__parse_syscall(buf, &t->sp))
		return;
	if (read_small(dir, "stat", buf, sizeof(buf)) > 0 && !threadstacks__parse_stat(buf, &t->sp))
		return;
	t->sp = 0;
}

int threadstacks__read(pid_t pid, struct thread_sp **out, size_t *n)
{
	int fd = procfs__open(pid, "task", O_RDONLY | O_DIRECTORY), err = 0;
	struct thread_sp *v = NULL;
	size_t cap = 0, nr = 0;
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	while (nr < THREADSTACKS_MAX && (e = readdir(d))) {
		struct thread_sp *grown;
		int dir;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		dir = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0)
			continue; /* it exited meanwhile */
		grown = grow__reserve(v, &cap, nr, sizeof(*v));
		if (!grown) {
			close(dir);
			err = -ENOMEM;
			break;
		}
		v = grown;
		memset(&v[nr], 0, sizeof(v[nr]));
		v[nr].tid = atoi(e->d_name);
		read_thread(dir, &v[nr++]);
		close(dir);
	}
	closedir(d);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*n = nr;
	return 0;
}
