/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The cache of kernel types: the kernel's build-id among its notes, and the file's name. */
#include <bpf/btf.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "probes/btfcache.h"

/* An ELF note: namesz, descsz, type, the name and the description, each padded to 4 bytes. */
static size_t note(uint8_t *at, const char *name, uint32_t type, const uint8_t *desc,
		   uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	size_t n = 12;

	memcpy(at, &namesz, 4);
	memcpy(at + 4, &descsz, 4);
	memcpy(at + 8, &type, 4);
	memcpy(at + n, name, namesz);
	n += (namesz + 3) & ~3u;
	memcpy(at + n, desc, descsz);
	return n + ((descsz + 3) & ~3u);
}

/* As /sys/kernel/notes holds them: Xen's notes around the GNU build-id. */
Test(btfcache, kernel_build_id_among_the_notes)
{
	static const uint8_t xen[] = { 1, 1, 0, 0 }, id[20] = { 0x48, 0xdc, 0x54, 0x0c, 9, 9 };
	uint8_t buf[256] = { 0 }, got[64];
	size_t n = 0;

	n += note(buf + n, "Xen", 6, xen, sizeof(xen));
	n += note(buf + n, "GNU", 3, id, sizeof(id));
	n += note(buf + n, "Linux", 0x100, xen, 1);
	cr_assert_eq(btf_cache__kernel_id(buf, n, got, sizeof(got)), 20);
	cr_expect_eq(memcmp(got, id, 20), 0);
	cr_expect_eq(btf_cache__kernel_id(buf, 40, got, sizeof(got)), 0, "cut in the build-id");
	cr_expect_eq(btf_cache__kernel_id(buf, n, got, 16), 0, "longer than the room for it");
	n = note(buf, "Xen", 6, xen, sizeof(xen));
	cr_expect_eq(btf_cache__kernel_id(buf, n, got, sizeof(got)), 0, "no build-id");
}

/* The name tells kernels and objects apart: a new build's object never reads an old cache. */
Test(btfcache, named_by_kernel_and_object)
{
	static const uint8_t kid[] = { 0xab, 0x01 };
	char a[64], b[64], c[64];

	btf_cache__name(kid, sizeof(kid), "object one", 10, a, sizeof(a));
	btf_cache__name(kid, sizeof(kid), "object two", 10, b, sizeof(b));
	btf_cache__name(kid, 1, "object one", 10, c, sizeof(c));
	cr_expect_eq(strncmp(a, "ab01-", 5), 0, "%s", a);
	cr_expect_eq(strlen(a), strlen("ab01-") + 16 + strlen(".btf"), "%s", a);
	cr_expect_str_neq(a, b);
	cr_expect_str_neq(a, c);
}

/* A small BTF that parses: one int type. */
static void write_btf(const char *path)
{
	struct btf *b = btf__new_empty();
	const void *raw;
	uint32_t len;
	FILE *f = fopen(path, "w");

	cr_assert(b && f);
	cr_assert_gt(btf__add_int(b, "int", 4, BTF_INT_SIGNED), 0);
	raw = btf__raw_data(b, &len);
	cr_assert_eq(fwrite(raw, 1, len, f), len);
	fclose(f);
	btf__free(b);
}

/* The cache is read only from folders and a file none but us may write; a file that does not
 * parse is removed. */
Test(btfcache, trusted_files_only)
{
	char dir[] = "/tmp/faultline-btfcache-XXXXXX", btf_dir[64];
	struct btf_cache c;

	cr_assert_not_null(mkdtemp(dir));
	setenv("FAULTLINE_CACHE", dir, 1);
	btf_cache__find(&c, "object", 6);
	if (!c.path[0]) /* a kernel without a build-id note: nothing to test */
		cr_skip_test("no build-id in /sys/kernel/notes");
	cr_expect_not(c.have, "nothing made yet");
	snprintf(btf_dir, sizeof(btf_dir), "%s/btf", dir);
	cr_assert_eq(mkdir(btf_dir, 0755), 0);
	write_btf(c.path);
	chmod(c.path, 0644);
	btf_cache__find(&c, "object", 6);
	cr_expect(c.have, "%s", c.path);
	chmod(c.path, 0666);
	btf_cache__find(&c, "object", 6);
	cr_expect_not(c.have, "a file others may write");
	chmod(c.path, 0644);
	chmod(btf_dir, 0777);
	btf_cache__find(&c, "object", 6);
	cr_expect_eq(c.path[0], '\0', "a folder others may write: no cache at all");
	chmod(btf_dir, 0755);
	btf_cache__find(&c, "another object", 14);
	cr_expect_not(c.have, "another build's object");
	btf_cache__find(&c, "object", 6);
	cr_expect(c.have);
	cr_assert_eq(truncate(c.path, 5), 0);
	btf_cache__find(&c, "object", 6);
	cr_expect_not(c.have, "cut short");
	cr_expect_neq(access(c.path, F_OK), 0, "removed, to be made again");
	rmdir(btf_dir);
	rmdir(dir);
	unsetenv("FAULTLINE_CACHE");
}
