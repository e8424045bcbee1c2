/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Build-ids as debuginfod's answers are checked by: this test binary's own against readelf's,
 * a file that is not ELF, an ELF file without one.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "symbols/buildid.h"
#include "unit/scratch.h"

TestSuite(buildid, .init = scratch_setup, .fini = scratch_teardown);

/* The build-id of the file at @path as buildid__read_fd() gives it, in hex; its return. */
static int hex_of(const char *path, char hex[129])
{
	uint8_t id[64];
	size_t len = 99;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	err = buildid__read_fd(fd, id, sizeof(id), &len);
	close(fd);
	buildid__hex(id, len, hex);
	return err;
}

Test(buildid, read_as_readelf_reads_it)
{
	char cmd[128], hex[129], want[129] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n /proc/%d/exe | awk '/Build ID/ { print $3 }'",
		 getpid());
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(want, sizeof(want), p));
	pclose(p);
	want[strcspn(want, "\n")] = '\0';
	cr_assert_eq(hex_of("/proc/self/exe", hex), 0);
	cr_expect_str_eq(hex, want);
}

Test(buildid, not_elf_and_none)
{
	char path[PATH_MAX], hex[129];

	snprintf(path, sizeof(path), "%s/page.html", scratch_dir);
	scratch_write(path, "<html>not found</html>\n");
	cr_expect_eq(hex_of(path, hex), -ENOEXEC);
	cr_expect_str_eq(hex, "");
	snprintf(path, sizeof(path), "%s/noid", scratch_dir);
	scratch_run("objcopy --remove-section .note.gnu.build-id /proc/%d/exe %s", getpid(), path);
	cr_expect_eq(hex_of(path, hex), 0);
	cr_expect_str_eq(hex, "", "a build-id in a file without one: %s", hex);
}

Test(buildid, hex)
{
	char hex[9];

	buildid__hex((const uint8_t[]){ 0x00, 0x9f, 0xa0, 0xff }, 4, hex);
	cr_expect_str_eq(hex, "009fa0ff");
}
