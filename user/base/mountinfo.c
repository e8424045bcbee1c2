// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "base/mountinfo.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "base/procfs.h"

/* "36 35 0:48 / /dev/shm rw,nosuid master:1 - tmpfs tmpfs rw": the device is the third
 * field, the file system type the first after the lone "-". */
static bool tmpfs_line(const char *line, struct shmem_dev *d)
{
	const char *sep = strstr(line, " - ");
	unsigned major, minor;

	if (!sep || sscanf(line, "%*u %*u %u:%u", &major, &minor) != 2)
		return false;
	if (strncmp(sep + 3, "tmpfs ", 6))
		return false;
	d->major = major;
	d->minor = minor;
	return true;
}

int mountinfo__parse_tmpfs(FILE *f, struct shmem_dev **out, size_t *n)
{
	struct shmem_dev *v = NULL, d;
	size_t cap = 0, nr = 0, len = 0;
	char *line = NULL;

	while (getline(&line, &len, f) > 0) {
		struct shmem_dev *grown;

		if (!tmpfs_line(line, &d))
			continue;
		grown = grow__reserve(v, &cap, nr, sizeof(*v));
		if (!grown) {
			free(line);
			free(v);
			return -ENOMEM;
		}
		v = grown;
		v[nr++] = d;
	}
	free(line);
	*out = v;
	*n = nr;
	return 0;
}

int mountinfo__read_tmpfs(pid_t pid, struct shmem_dev **out, size_t *n)
{
	FILE *f;
	int err = procfs__fopen(pid, "mountinfo", &f);

	if (err)
		return err;
	err = mountinfo__parse_tmpfs(f, out, n);
	fclose(f);
	return err;
}
