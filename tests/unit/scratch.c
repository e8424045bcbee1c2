// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "unit/scratch.h"
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char scratch_dir[64];

void scratch_setup(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/faultline-unit-XXXXXX");
	cr_assert(mkdtemp(scratch_dir), "mkdtemp: %s", strerror(errno));
}

void scratch_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch_dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", scratch_dir);
}

void scratch_run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "command failed: %s", cmd);
}

void scratch_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

uint64_t scratch_symbol(const char *bin, const char *name)
{
	char cmd[512];
	uint64_t v = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm %s | awk '$3 == \"%s\" { print $1 }'", bin, name);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%" SCNx64, &v), 1, "no %s in %s", name, bin);
	pclose(f);
	return v;
}
