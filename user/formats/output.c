// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "formats/output.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* Why an output could not be opened, for its message. */
enum open_fail {
	FAIL_ERRNO,  /* the error says it */
	FAIL_KERNEL, /* a file of the kernel's own file systems */
	FAIL_TMP,    /* no temporary file could be made beside it */
};

const char *output__name(const struct output *o)
{
	return strcmp(o->path, "-") ? o->path : "stdout";
}

/* `--folded /dev/stdout > FILE`: FILE is written through, not replaced under our stdout. */
static bool std_stream_file(const struct stat *st)
{
	struct stat s;

	for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
		if (!fstat(fd, &s) && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
			return true;
	return false;
}

/* Gives the temporary file the mode and owner of the file it replaces, or the mode fopen()
 * would give a new one; best effort, like cp. */
static void set_mode(int fd, const struct stat *old)
{
	mode_t mask = umask(0);

	umask(mask);
	if (!old) {
		fchmod(fd, 0666 & ~mask);
		return;
	}
	if (fchown(fd, old->st_uid, old->st_gid)) {
		/* not root: the file becomes ours */
	}
	fchmod(fd, old->st_mode & 07777);
}

/*
 * The file system of the file at @path when it is one of the kernel's interfaces, whose files
 * are controls that hold nothing (writing /proc/PID/mem writes into a process), or NULL.
 */
static const char *kernel_fs(const char *path)
{
	static const struct {
		long magic;
		const char *name;
	} fs[] = {
		{ PROC_SUPER_MAGIC, "proc" },
		{ SYSFS_MAGIC, "sysfs" },
		{ CGROUP_SUPER_MAGIC, "cgroup" },
		{ CGROUP2_SUPER_MAGIC, "cgroup2" },
	};
	struct statfs sf;

	if (statfs(path, &sf))
		return NULL;
	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if (sf.f_type == fs[i].magic)
			return fs[i].name;
	return NULL;
}

/* The length of the directory part of @path, its last slash included (0: none). */
static int dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (int)(slash - path + 1) : 0;
}

/* The directory of @path in @dir ("." for a bare name); true when it is one. */
static bool dir_of(const char *path, char dir[PATH_MAX])
{
	int len = dir_len(path);
	struct stat st;

	if (len > PATH_MAX - 1)
		return false;
	if (len > 1)
		len--; /* the slash, unless it is the root */
	memcpy(dir, len ? path : ".", len ? (size_t)len : 1);
	dir[len ? len : 1] = '\0';
	return !stat(dir, &st) && S_ISDIR(st.st_mode);
}

/* ".NAME.XXXXXX" beside @o->final: hidden, and on the same file system, so rename() is
 * atomic. NAME is cut so that a final name near NAME_MAX still has a temporary one. */
static int open_tmp(struct output *o, const struct stat *old)
{
	int dirlen = dir_len(o->final), fd;

	if (asprintf(&o->tmp, "%.*s.%.*s.XXXXXX", dirlen, o->final, NAME_MAX - 8,
		     o->final + dirlen) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		free(o->tmp);
		o->tmp = NULL;
		return err;
	}
	set_mode(fd, old);
	o->f = fdopen(fd, "w");
	if (o->f)
		return 0;
	close(fd);
	return -ENOMEM;
}

static int open_whole(struct output *o, const char *path, enum open_fail *why)
{
	struct stat st;
	bool exists = !stat(path, &st);
	int err;

	if (!exists && errno != ENOENT)
		return -errno;
	if (exists && S_ISREG(st.st_mode) && kernel_fs(path)) {
		*why = FAIL_KERNEL;
		return -EPERM;
	}
	if (exists && (!S_ISREG(st.st_mode) || std_stream_file(&st))) {
		/* a device, a pipe, our own stdout: written in place; a FIFO is opened when
		 * written, since opening it waits for a reader */
		if (S_ISFIFO(st.st_mode))
			return access(path, W_OK) ? -errno : 0;
		o->f = fopen(path, "we");
		return o->f ? 0 : -errno;
	}
	o->existed = exists;
	/* a symlink's file is replaced, not the link */
	o->final = exists ? realpath(path, NULL) : strdup(path);
	if (!o->final)
		return -errno;
	err = open_tmp(o, exists ? &st : NULL);
	if (err && err != -ENOMEM)
		*why = FAIL_TMP;
	return err;
}

/* Says why @o cannot be written ("cannot write PATH: CAUSE") and drops it. */
static int opened(struct output *o, int err, enum open_fail why)
{
	char dir[PATH_MAX];

	if (!err)
		return 0;
	if (why == FAIL_KERNEL)
		fprintf(stderr,
			"faultline: cannot write %s: it is a kernel interface (a %s file), not a "
			"file to hold an output\n",
			output__name(o), kernel_fs(o->path) ?: "kernel");
	/* a directory that is there but takes no new file: the file itself may well be writable */
	else if (why == FAIL_TMP && dir_of(o->final, dir))
		fprintf(stderr,
			"faultline: cannot write %s: cannot create a temporary file in %s (%s)\n",
			output__name(o), dir, strerror(-err));
	else
		fprintf(stderr, "faultline: cannot write %s: %s\n", output__name(o),
			strerror(-err));
	output__discard(o);
	return err;
}

int output__open(struct output *o, const char *path)
{
	enum open_fail why = FAIL_ERRNO;
	int err;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	err = open_whole(o, path, &why);
	return opened(o, err, why);
}

int output__open_stream(struct output *o, const char *path)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	/* written in place: a kernel interface would take each line as a command */
	if (!stat(path, &st) && S_ISREG(st.st_mode) && kernel_fs(path))
		return opened(o, -EPERM, FAIL_KERNEL);
	o->f = fopen(path, "we");
	return opened(o, o->f ? 0 : -errno, FAIL_ERRNO);
}

int output__file(struct output *o, FILE **f)
{
	if (!o->f && !o->tmp && !(o->f = fopen(o->path, "we")))
		return -errno;
	*f = o->f;
	return 0;
}

int output__stream_error(FILE *f)
{
	errno = 0;
	if (fflush(f) == EOF)
		return errno ? -errno : -EIO;
	return ferror(f) ? -EIO : 0;
}

/* Flushes, checks and closes @o's stream; the temporary file is synced first, so that what is
 * renamed is on disk (a file system may only find it full then). */
static int finish(struct output *o, int err)
{
	int ferr = output__stream_error(o->f);

	err = err ?: ferr;
	if (!err && o->tmp && fsync(fileno(o->f)))
		err = -errno;
	if (o->f != stdout && fclose(o->f) && !err)
		err = errno ? -errno : -EIO;
	o->f = NULL;
	return err;
}

int output__close(struct output *o, int err)
{
	if (!o->path)
		return err;
	if (o->f)
		err = finish(o, err);
	if (!err && o->tmp) {
		if (rename(o->tmp, o->final))
			err = -errno;
		else
			free(o->tmp), o->tmp = NULL;
	}
	if (err)
		fprintf(stderr, "faultline: writing %s failed: %s%s\n", output__name(o),
			strerror(-err),
			!o->tmp	   ? "" :
			o->existed ? " (the file there is left as it was)" :
				     " (no file left there)");
	output__discard(o);
	return err;
}

void output__discard(struct output *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->final);
	memset(o, 0, sizeof(*o));
}
