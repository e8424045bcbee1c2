// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "formats/output.h"
#include <errno.h>
#include <string.h>

int output_open(const char *path, FILE **f)
{
	int err;

	*f = strcmp(path, "-") ? fopen(path, "we") : stdout;
	if (*f)
		return 0;
	err = -errno;
	fprintf(stderr, "faultline: cannot write %s: %s\n", path, strerror(-err));
	return err;
}

int output_close(FILE *f, const char *path, int err)
{
	errno = 0;
	if ((f == stdout ? fflush(f) : fclose(f)) && !err)
		err = errno ? -errno : -EIO;
	if (err)
		fprintf(stderr, "faultline: writing %s failed: %s\n", path, strerror(-err));
	return err;
}
