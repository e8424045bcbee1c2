/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/mountinfo.h"
#include "base/smaps.h"
#include "base/threadstacks.h"

#define KIB 1024ULL

static int parse_text(const char *text, struct smaps *m)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	cr_assert_not_null(f);
	err = smaps__parse(f, m);
	fclose(f);
	return err;
}

Test(smaps, fixture_fields)
{
	FILE *f = fopen("fixtures/smaps_mixed.txt", "r");
	struct smaps m;

	cr_assert_not_null(f);
	cr_assert_eq(smaps__parse(f, &m), 0);
	fclose(f);
	cr_assert_eq(m.n, 20);
	cr_expect_eq(m.v[0].start, 0x555555554000ULL);
	cr_expect_eq(m.v[0].end, 0x555555556000ULL);
	cr_expect_str_eq(m.v[0].name, "/usr/bin/app");
	cr_expect_eq(m.v[0].inode, 1001);
	cr_expect_eq(m.v[0].dev_major, 0xfe);
	cr_expect_eq(m.v[1].offset, 0x2000);
	cr_expect_eq(m.v[1].perms, SMAPS_READ | SMAPS_EXEC);
	cr_expect_str_eq(m.v[2].name, "[heap]");
	cr_expect_eq(m.v[2].rss, 132 * KIB);
	cr_expect_eq(m.v[2].anonymous, 132 * KIB);
	cr_expect_str_eq(m.v[4].name, "", "an unnamed mapping has an empty name");
	/* the pool: swap, THP, Pss_Dirty not taken for Pss */
	cr_expect_str_eq(m.v[9].name, "[anon:pool]");
	cr_expect_eq(m.v[9].swap, 1024 * KIB);
	cr_expect_eq(m.v[9].swap_pss, 1024 * KIB);
	cr_expect_eq(m.v[9].anon_huge, 2048 * KIB);
	cr_expect_eq(m.v[9].pss, 32768 * KIB);
	cr_expect_str_eq(m.v[10].name, "/memfd:cache (deleted)", "deleted kept: it names shmem");
	cr_expect_eq(m.v[10].perms, SMAPS_READ | SMAPS_WRITE | SMAPS_SHARED);
	cr_expect_eq(m.v[10].pss, 512 * KIB);
	cr_expect(m.v[10].vm_flags & SMAPS_VM_SHARED);
	cr_expect(m.v[13].vm_flags & SMAPS_VM_HUGETLB);
	cr_expect_eq(m.v[13].shared_hugetlb, 4096 * KIB);
	cr_expect(m.v[17].vm_flags & SMAPS_VM_GROWSDOWN);
	cr_expect_not(m.v[16].vm_flags & SMAPS_VM_GROWSDOWN);
	cr_expect(m.v[18].vm_flags & SMAPS_VM_IO);
	smaps__free(&m);
	cr_expect_eq(m.n, 0);
}

Test(smaps, malformed)
{
	struct smaps m;

	cr_expect_eq(parse_text("Rss: 4 kB\n", &m), -EINVAL, "a field before any mapping");
	cr_expect_eq(parse_text("1000-2000 rw-p 0 00:00 0\nRss: four kB\n", &m), -EINVAL);
	cr_expect_eq(parse_text("1000-2000 rw-p 0 00:00 0\nRss: 4 MB\n", &m), -EINVAL);
	cr_expect_eq(parse_text("2000-1000 rw-p 0 00:00 0\n", &m), -EINVAL, "end before start");
	cr_expect_eq(parse_text("1000-2000 rw-p 0 00:00\n", &m), -EINVAL, "no inode");
	cr_expect_eq(parse_text("not a line\n", &m), -EINVAL);
	cr_expect_eq(m.n, 0);
	cr_expect_null(m.v);
}

Test(smaps, lenient_where_the_kernel_varies)
{
	struct smaps m;

	cr_assert_eq(parse_text("", &m), 0);
	cr_expect_eq(m.n, 0);
	/* fields this parser does not know, and no VmFlags line (before 3.8) */
	cr_assert_eq(parse_text("1000-3000 rw-p 00000000 00:00 0 \nRss: 8 kB\nNewField: x\n"
				"THPeligible:    1\n\n4000-5000 r--p 0 08:01 12 /a b (deleted)\n",
				&m),
		     0);
	cr_assert_eq(m.n, 2);
	cr_expect_eq(m.v[0].rss, 8 * KIB);
	cr_expect_str_eq(m.v[0].name, "");
	cr_expect_eq(m.v[0].vm_flags, 0);
	cr_expect_str_eq(m.v[1].name, "/a b (deleted)", "spaces in a path kept");
	smaps__free(&m);
}

Test(threadstacks, syscall_file)
{
	uint64_t sp = 0;

	cr_expect_eq(threadstacks__parse_syscall("0 0x3 0x7ffd1000 0x1 0x0 0x0 0x0 "
						 "0x7ffc00020000 0x7f00deadbeef\n",
						 &sp),
		     0);
	cr_expect_eq(sp, 0x7ffc00020000ULL);
	/* blocked outside a system call: "-1 SP PC" */
	cr_expect_eq(threadstacks__parse_syscall("-1 0x7ffd5000 0x401000\n", &sp), 0);
	cr_expect_eq(sp, 0x7ffd5000ULL);
	cr_expect_eq(threadstacks__parse_syscall("running\n", &sp), -EAGAIN);
	cr_expect_eq(threadstacks__parse_syscall("", &sp), -EINVAL);
	cr_expect_eq(threadstacks__parse_syscall("0x10\n", &sp), -EINVAL);
	cr_expect_eq(threadstacks__parse_syscall("1 zz 0x10\n", &sp), -EINVAL);
}

Test(threadstacks, stat_file)
{
	/* a comm with a space and a ')' in it; kstkesp (29) is 140720308486144 */
	const char *stat = "42 (a b) c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 "
			   "12345 1000000 200 18446744073709551615 4194304 4198400 "
			   "140720308490000 140720308486144 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
	uint64_t sp = 0;

	cr_expect_eq(threadstacks__parse_stat(stat, &sp), 0);
	cr_expect_eq(sp, 140720308486144ULL);
	cr_expect_eq(threadstacks__parse_stat("42 (x) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 "
					      "20 0 3 0 12345 1000000 200 1 2 3 4 0 0\n",
					      &sp),
		     -ENOENT, "kstkesp hidden (0)");
	cr_expect_eq(threadstacks__parse_stat("42 (x) S 1", &sp), -EINVAL);
	cr_expect_eq(threadstacks__parse_stat("no parens", &sp), -EINVAL);
}

Test(threadstacks, self)
{
	struct thread_sp *v = NULL;
	size_t n = 0;

	cr_assert_eq(threadstacks__read(getpid(), &v, &n), 0);
	cr_expect_geq(n, 1);
	cr_expect_neq(v[0].tid, 0);
	cr_expect_neq(v[0].comm[0], '\0');
	free(v);
}

Test(mountinfo, tmpfs_devices)
{
	const char *text = "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
			   "24 22 0:26 / /run rw,nosuid shared:5 - tmpfs tmpfs rw,size=1024k\n"
			   "25 22 0:5 / /dev rw shared:2 master:9 - devtmpfs udev rw\n"
			   "26 25 0:27 / /dev/shm rw - tmpfs tmpfs rw\n"
			   "27 22 0:28 / /mnt/x rw - tmpfsx weird rw\n"
			   "garbage\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct shmem_dev *v = NULL;
	size_t n = 0;

	cr_assert_not_null(f);
	cr_assert_eq(mountinfo__parse_tmpfs(f, &v, &n), 0);
	fclose(f);
	cr_assert_eq(n, 2);
	cr_expect_eq(v[0].major, 0);
	cr_expect_eq(v[0].minor, 26);
	cr_expect_eq(v[1].minor, 27);
	free(v);
}
