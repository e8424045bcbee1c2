/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Output files: checked when opened, written under a temporary name and renamed over the
 * final one only when whole. A write failure is made without root by RLIMIT_FSIZE (the
 * kernel then refuses to grow a file with EFBIG, as a full disk would with ENOSPC).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "formats/output.h"
#include "unit/scratch.h"

static void setup(void)
{
	scratch_setup();
	cr_redirect_stderr();
}

TestSuite(output, .init = setup, .fini = scratch_teardown);

static void in_dir(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/%s", scratch_dir, name);
}

/* The names in the test directory, sorted, one per line. */
static char *listing(void)
{
	struct dirent **names;
	int n = scandir(scratch_dir, &names, NULL, alphasort);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(n >= 0 && f);
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
			fprintf(f, "%s\n", names[i]->d_name);
		free(names[i]);
	}
	free(names);
	fclose(f);
	return buf;
}

static char *contents(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

Test(output, written_under_a_temporary_name_then_renamed)
{
	struct output o;
	char path[PATH_MAX], *names;
	struct stat st;
	FILE *f;
	mode_t mask = umask(022);

	in_dir(path, sizeof(path), "out.folded");
	cr_assert_eq(output__open(&o, path), 0);
	/* until it is whole, only a hidden temporary file is there */
	names = listing();
	cr_expect(!strncmp(names, ".out.folded.", 12) && strchr(names, '\n')[1] == '\0',
		  "listing: %s", names);
	free(names);
	cr_assert_eq(output__file(&o, &f), 0);
	fputs("a;b 1\n", f);
	cr_assert_eq(output__close(&o, 0), 0);
	names = listing();
	cr_expect_str_eq(names, "out.folded\n");
	free(names);
	cr_expect_str_eq(contents(path), "a;b 1\n");
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0644, "a new file gets 0666 less the umask: %o",
		     st.st_mode & 0777);
	umask(mask);
}

Test(output, a_replaced_file_keeps_its_mode_and_a_symlink_stays)
{
	struct output o;
	char path[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	struct stat st;
	FILE *f;

	in_dir(path, sizeof(path), "old.json");
	in_dir(link, sizeof(link), "link.json");
	write_file(path, "old\n", 0640);
	cr_assert_eq(symlink(path, link), 0);
	cr_assert_eq(output__open(&o, link), 0);
	cr_assert_eq(output__file(&o, &f), 0);
	fputs("{}\n", f);
	cr_assert_eq(output__close(&o, 0), 0);
	cr_expect_str_eq(contents(path), "{}\n");
	cr_assert_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the symlink was replaced by a file");
	memset(target, 0, sizeof(target));
	cr_assert_gt(readlink(link, target, sizeof(target) - 1), 0);
	cr_expect_str_eq(target, path);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0640, "mode %o, not the old file's 640", st.st_mode & 0777);
}

/* A file that cannot grow past 4 KiB: the write fails midway, as on a full disk. */
Test(output, a_failed_write_leaves_the_old_file_and_no_temporary)
{
	struct rlimit rl = { .rlim_cur = 4096, .rlim_max = RLIM_INFINITY };
	struct output o;
	char path[PATH_MAX], *names;
	FILE *f;
	int err;

	in_dir(path, sizeof(path), "out.svg");
	write_file(path, "old\n", 0644);
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	cr_assert_eq(output__open(&o, path), 0);
	cr_assert_eq(output__file(&o, &f), 0);
	for (int i = 0; i < 1000; i++)
		fputs("<g>0123456789abcdef</g>\n", f);
	err = output__close(&o, 0);
	cr_expect_eq(err, -EFBIG, "%d (%s)", err, strerror(-err));
	cr_expect_str_eq(contents(path), "old\n");
	names = listing();
	cr_expect_str_eq(names, "out.svg\n");
	free(names);
}

Test(output, a_writer_error_removes_the_new_file)
{
	struct output o;
	char path[PATH_MAX], *names;
	FILE *f;

	in_dir(path, sizeof(path), "out.pb.gz");
	cr_assert_eq(output__open(&o, path), 0);
	cr_assert_eq(output__file(&o, &f), 0);
	fputs("half", f);
	cr_expect_eq(output__close(&o, -EIO), -EIO);
	names = listing();
	cr_expect_str_eq(names, "");
	free(names);
}

Test(output, discarded_leaves_nothing)
{
	struct output o;
	char path[PATH_MAX], *names;

	in_dir(path, sizeof(path), "never");
	cr_assert_eq(output__open(&o, path), 0);
	output__discard(&o);
	names = listing();
	cr_expect_str_eq(names, "");
	free(names);
	output__discard(&o); /* twice is harmless */
}

Test(output, unwritable_paths_fail_at_open_naming_the_path)
{
	struct output o;
	char path[PATH_MAX], want[1024];

	in_dir(path, sizeof(path), "missing/out.folded");
	cr_expect_eq(output__open(&o, path), -ENOENT);
	cr_expect_eq(output__open(&o, scratch_dir), -EISDIR);
	in_dir(path, sizeof(path), "file");
	write_file(path, "", 0644);
	in_dir(path, sizeof(path), "file/out.folded");
	cr_expect_eq(output__open(&o, path), -ENOTDIR);
	fflush(stderr);
	snprintf(want, sizeof(want),
		 "faultline: cannot write %s/missing/out.folded: No such file or directory\n"
		 "faultline: cannot write %s: Is a directory\n"
		 "faultline: cannot write %s/file/out.folded: Not a directory\n",
		 scratch_dir, scratch_dir, scratch_dir);
	cr_expect_stderr_eq_str(want);
}

/* A device is written in place: rename() over /dev/null would replace the device itself. */
Test(output, a_device_is_written_in_place)
{
	struct output o;
	FILE *f;

	cr_assert_eq(output__open(&o, "/dev/null"), 0);
	cr_expect_null(o.tmp);
	cr_assert_eq(output__file(&o, &f), 0);
	fputs("x\n", f);
	cr_expect_eq(output__close(&o, 0), 0);
	cr_assert_eq(output__open(&o, "/dev/full"), 0);
	cr_assert_eq(output__file(&o, &f), 0);
	fputs("x\n", f);
	cr_expect_eq(output__close(&o, 0), -ENOSPC);
}

Test(output, a_fifo_is_opened_when_written)
{
	struct output o;
	char path[PATH_MAX], buf[8] = { 0 };
	FILE *f, *r;

	in_dir(path, sizeof(path), "fifo");
	cr_assert_eq(mkfifo(path, 0600), 0);
	/* no reader yet: opening it must not wait */
	cr_assert_eq(output__open(&o, path), 0);
	cr_expect_null(o.f);
	r = fopen(path, "re+"); /* a reader (O_RDWR: does not wait either) */
	cr_assert_not_null(r);
	cr_assert_eq(output__file(&o, &f), 0);
	fputs("ok\n", f);
	cr_expect_eq(output__close(&o, 0), 0);
	cr_expect_not_null(fgets(buf, sizeof(buf), r));
	cr_expect_str_eq(buf, "ok\n");
	fclose(r);
}

/* A file of proc or sysfs is a control, not storage: /proc/PID/mem is a process's memory. */
Test(output, a_kernel_interface_is_refused_saying_so)
{
	struct output o;

	cr_expect_eq(output__open(&o, "/proc/self/mem"), -EPERM);
	cr_expect_null(o.path);
	cr_expect_eq(output__open_stream(&o, "/proc/self/mem"), -EPERM);
	cr_expect_null(o.f);
	fflush(stderr);
	cr_expect_stderr_eq_str(
		"faultline: cannot write /proc/self/mem: it is a kernel interface (a "
		"proc file), not a file to hold an output\n"
		"faultline: cannot write /proc/self/mem: it is a kernel interface (a "
		"proc file), not a file to hold an output\n");
}

/* Without CAP_DAC_OVERRIDE, so that root too is held to the modes below. */
static void without_dac_override(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	cr_assert_eq(syscall(SYS_capget, &h, d), 0);
	d[0].effective &= ~(1u << CAP_DAC_OVERRIDE);
	cr_assert_eq(syscall(SYS_capset, &h, d), 0);
}

/* The file may be written, its directory not: the message names the directory. */
Test(output, a_directory_that_takes_no_temporary_file_is_named)
{
	struct output o;
	char dir[PATH_MAX], path[PATH_MAX], want[3 * PATH_MAX];

	in_dir(dir, sizeof(dir), "ro");
	cr_assert_eq(mkdir(dir, 0755), 0);
	in_dir(path, sizeof(path), "ro/out.json");
	write_file(path, "old\n", 0666);
	cr_assert_eq(chmod(dir, 0555), 0);
	without_dac_override();
	cr_expect_eq(output__open(&o, path), -EACCES);
	cr_assert_eq(chmod(dir, 0755), 0);
	fflush(stderr);
	snprintf(want, sizeof(want),
		 "faultline: cannot write %s: cannot create a temporary file in %s (Permission "
		 "denied)\n",
		 path, dir);
	cr_expect_stderr_eq_str(want);
	cr_expect_str_eq(contents(path), "old\n");
}

/* ".NAME.XXXXXX" is 8 bytes longer than NAME: a name near NAME_MAX still gets one. */
Test(output, a_long_name_still_gets_a_temporary_file)
{
	struct output o;
	char name[NAME_MAX + 1], path[PATH_MAX], *names;
	FILE *f;

	memset(name, 'n', 250);
	name[250] = '\0';
	in_dir(path, sizeof(path), name);
	cr_assert_eq(output__open(&o, path), 0);
	cr_assert_eq(output__file(&o, &f), 0);
	fputs("a 1\n", f);
	cr_assert_eq(output__close(&o, 0), 0);
	cr_expect_str_eq(contents(path), "a 1\n");
	names = listing();
	cr_expect_eq(strlen(names), 251, "listing: %s", names);
	free(names);
}
