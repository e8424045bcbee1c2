/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/cgroupfs.h"
#include "unit/scratch.h"

/* Above any pid_max (at most 2^22), so /proc has no such directory. */
#define NO_SUCH_PID 1073741823

/* Container ids as runtimes write them: 64 hex digits. ID_A and ID_B share their first 12. */
#define ID_DOCKER "4fe6fffedaf189d81924e5ef870a8c8d0b6b2a1c95e7d3f4a8b9c0d1e2f30415"
#define ID_CGROUPFS "a4ce6fb5aacfdff05bc241430f43b5d8e9f0a1b2c3d4e5f60718293a4b5c6d7e"
#define ID_CONTAINERD "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID_CRIO "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define ID_LIBPOD "5e5e5e5e5e5e1111222233334444555566667777888899990000aaaabbbbcccc"
#define ID_A "abcabcabcabc0000000000000000000000000000000000000000000000000001"
#define ID_B "abcabcabcabc0000000000000000000000000000000000000000000000000002"

static FILE *text_file(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	cr_assert_not_null(f);
	return f;
}

static int parse_roots(const char *text, struct cgroup_roots *r)
{
	FILE *f = text_file(text);
	int err = cgroup__parse_roots(f, r);

	fclose(f);
	return err;
}

/* A host with only cgroup2, as systemd mounts it (its super options name memory too). */
Test(cgroup_roots, pure_v2)
{
	struct cgroup_roots r;

	cr_assert_eq(parse_roots("22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
				 "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime "
				 "shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
				 "31 23 0:27 / /sys/fs/pstore rw - pstore pstore rw\n",
				 &r),
		     0);
	cr_expect_str_eq(r.v2, "/sys/fs/cgroup");
	cr_expect_str_eq(r.v1_memory, "");
}

/* This machine's mounts: v2 at unified, v1 memory beside cpu, cpuacct and name=systemd. */
Test(cgroup_roots, hybrid)
{
	struct cgroup_roots r;

	cr_assert_eq(
		parse_roots("31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
			    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
			    "33 31 0:30 / /sys/fs/cgroup/cpu,cpuacct rw shared:9 - cgroup "
			    "cgroup rw,cpu,cpuacct\n"
			    "34 31 0:31 / /sys/fs/cgroup/systemd rw - cgroup cgroup "
			    "rw,xattr,name=systemd\n"
			    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup "
			    "rw,memory\n"
			    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 "
			    "rw\n",
			    &r),
		0);
	cr_expect_str_eq(r.v2, "/sys/fs/cgroup/unified");
	cr_expect_str_eq(r.v1_memory, "/sys/fs/cgroup/memory");
}

/* A v1-only host has no v2 root; the memory controller may share a mount with others. */
Test(cgroup_roots, no_cgroup2)
{
	struct cgroup_roots r = { .v2 = "stale" };

	cr_assert_eq(parse_roots("35 31 0:32 / /sys/fs/cgroup/memory,blkio rw - cgroup cgroup "
				 "rw,blkio,memory\n"
				 "garbage\n",
				 &r),
		     0);
	cr_expect_str_eq(r.v2, "");
	cr_expect_str_eq(r.v1_memory, "/sys/fs/cgroup/memory,blkio");
	cr_assert_eq(parse_roots("", &r), 0);
	cr_expect_str_eq(r.v2, "");
	cr_expect_str_eq(r.v1_memory, "");
}

/* The kernel writes a space in a mount point as \040; the first cgroup2 mount is the one. */
Test(cgroup_roots, escaped_and_first)
{
	struct cgroup_roots r;

	cr_assert_eq(parse_roots("41 31 0:38 / /mnt/my\\040cgroups rw - cgroup2 none rw\n"
				 "42 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
				 &r),
		     0);
	cr_expect_str_eq(r.v2, "/mnt/my cgroups");
}

/* Whatever this host mounts, the reader finds a v2 root that is a directory, if any. */
Test(cgroup_roots, this_host)
{
	struct cgroup_roots r;
	struct stat st;

	cr_assert_eq(cgroup__find_roots(&r), 0);
	if (r.v2[0])
		cr_expect(!stat(r.v2, &st) && S_ISDIR(st.st_mode), "%s", r.v2);
}

static int parse_memstat(const char *text, int version, struct cgroup_mem *m)
{
	FILE *f = text_file(text);
	int err = cgroup__parse_memstat(f, version, m);

	fclose(f);
	return err;
}

/* Linux 6.x: the "kernel" key is the kmem counter; its parts and sock are not added again. */
Test(cgroup_memstat, v2_kernel_key)
{
	struct cgroup_mem m = { .current = 7, .source = "kept" };

	cr_assert_eq(parse_memstat("anon 1000\nfile 2000\nkernel 300\nkernel_stack 16\n"
				   "pagetables 32\nsec_pagetables 0\npercpu 8\nsock 4096\n"
				   "vmalloc 0\nshmem 500\nfile_mapped 600\nslab_reclaimable 10\n"
				   "slab_unreclaimable 20\nslab 30\nanon_thp 0\nfile_thp 0\n"
				   "pgfault 12345\n",
				   2, &m),
		     0);
	cr_expect_eq(m.version, 2);
	cr_expect_eq(m.anon, 1000);
	cr_expect_eq(m.file, 2000);
	cr_expect_eq(m.shmem, 500);
	cr_expect_eq(m.file_mapped, 600);
	cr_expect(m.have_kernel);
	cr_expect_eq(m.kernel, 300);
	cr_expect_eq(m.current, 7, "memory.stat has no current");
	cr_expect_str_eq(m.source, "kept");
}

/* Before 5.18 the parts stand for "kernel": stacks, page tables, slab, percpu; not sock. */
Test(cgroup_memstat, v2_kernel_parts)
{
	struct cgroup_mem m = { 0 };

	cr_assert_eq(parse_memstat("anon 4096\nfile 8192\nkernel_stack 16384\npagetables 4096\n"
				   "percpu 512\nsock 65536\nshmem 0\nfile_mapped 4096\n"
				   "slab_reclaimable 100\nslab_unreclaimable 200\nslab 300\n",
				   2, &m),
		     0);
	cr_expect(m.have_kernel);
	cr_expect_eq(m.kernel, 16384 + 4096 + 512 + 300);
	cr_assert_eq(parse_memstat("anon 4096\nfile 8192\nanon_thp 0\n", 2, &m), 0);
	cr_expect_not(m.have_kernel, "no part of the kernel figure");
	cr_expect_eq(m.kernel, 0);
}

/* total_* (the subtree) wins over the cgroup's own figures, wherever it comes. */
Test(cgroup_memstat, v1_total)
{
	struct cgroup_mem m = { 0 };

	cr_assert_eq(parse_memstat("cache 100\nrss 200\nrss_huge 0\nshmem 10\nmapped_file 20\n"
				   "swap 30\nhierarchical_memory_limit 9223372036854771712\n"
				   "total_cache 1100\ntotal_rss 1200\ntotal_rss_huge 0\n"
				   "total_shmem 1010\ntotal_mapped_file 1020\ntotal_swap 1030\n",
				   1, &m),
		     0);
	cr_expect_eq(m.version, 1);
	cr_expect_eq(m.anon, 1200);
	cr_expect_eq(m.file, 1100);
	cr_expect_eq(m.shmem, 1010);
	cr_expect_eq(m.file_mapped, 1020);
	cr_expect_eq(m.swap, 1030);
	cr_expect_not(m.have_kernel, "v1 kmem is a file of its own");
}

Test(cgroup_memstat, v1_own_only)
{
	struct cgroup_mem m = { 0 };

	cr_assert_eq(
		parse_memstat("cache 100\nrss 200\nshmem 10\nmapped_file 20\nswap 30\n", 1, &m), 0);
	cr_expect_eq(m.anon, 200);
	cr_expect_eq(m.file, 100);
	cr_expect_eq(m.shmem, 10);
	cr_expect_eq(m.file_mapped, 20);
	cr_expect_eq(m.swap, 30);
}

Test(cgroup_memstat, refused)
{
	struct cgroup_mem m = { 0 };

	cr_expect_eq(parse_memstat("", 2, &m), -EINVAL, "empty");
	cr_expect_eq(parse_memstat("anon 12x\n", 2, &m), -EINVAL);
	cr_expect_eq(parse_memstat("anon -1\n", 2, &m), -EINVAL);
	cr_expect_eq(parse_memstat("total_rss 5\n", 1, &m), -EINVAL, "v1 without rss");
	cr_expect_eq(parse_memstat("anon 1\n", 3, &m), -EINVAL, "no such version");
	cr_expect_eq(parse_memstat("rss 1\n", 2, &m), -EINVAL, "a v1 text read as v2");
}

static int parse_pid_cgroup(const char *text, char *rel, size_t len)
{
	FILE *f = text_file(text);
	int err = cgroup__parse_pid_cgroup(f, rel, len);

	fclose(f);
	return err;
}

Test(cgroup_pid, v2_only)
{
	char rel[PATH_MAX];

	cr_assert_eq(parse_pid_cgroup("0::/user.slice/user-1000.slice/session-2.scope\n", rel,
				      sizeof(rel)),
		     0);
	cr_expect_str_eq(rel, "/user.slice/user-1000.slice/session-2.scope");
}

/* A hybrid host lists every v1 hierarchy too; the v2 line may come anywhere. */
Test(cgroup_pid, hybrid)
{
	char rel[PATH_MAX];

	cr_assert_eq(parse_pid_cgroup("12:pids:/system.slice/mysql.service\n"
				      "11:memory:/system.slice/mysql.service\n"
				      "10:cpu,cpuacct:/system.slice/mysql.service\n"
				      "1:name=systemd:/system.slice/mysql.service\n"
				      "0::/system.slice/mysql.service\n",
				      rel, sizeof(rel)),
		     0);
	cr_expect_str_eq(rel, "/system.slice/mysql.service");
	cr_assert_eq(parse_pid_cgroup("9:name=systemd:/\n4:memory:/process_api/4fe6\n0::/\n"
				      "3:cpuset:/\n",
				      rel, sizeof(rel)),
		     0);
	cr_expect_str_eq(rel, "/");
}

Test(cgroup_pid, refused)
{
	char rel[8];

	cr_expect_eq(parse_pid_cgroup("4:memory:/a\n1:name=systemd:/a\n", rel, sizeof(rel)),
		     -ENOENT, "v1 only");
	cr_expect_eq(parse_pid_cgroup("0::/a/long/path\n", rel, sizeof(rel)), -ENAMETOOLONG);
	cr_expect_eq(parse_pid_cgroup("0::/a/b/c\n", rel, sizeof(rel)), 0, "7 bytes fit in 8");
}

Test(cgroup_pid, self)
{
	char rel[PATH_MAX];

	cr_assert_eq(cgroup__of_pid(getpid(), rel, sizeof(rel)), 0);
	cr_expect_eq(rel[0], '/', "%s", rel);
	cr_expect_eq(cgroup__of_pid(NO_SUCH_PID, rel, sizeof(rel)), -ESRCH);
}

/* A fake tree: scratch/v2 the v2 root, scratch/v1 the v1 memory root. */
static struct cgroup_roots roots;

static void tree_setup(void)
{
	scratch_setup();
	snprintf(roots.v2, sizeof(roots.v2), "%s/v2", scratch_dir);
	snprintf(roots.v1_memory, sizeof(roots.v1_memory), "%s/v1", scratch_dir);
}

/* Makes @rel below scratch/@top, each directory on the way with a cgroup.procs as a cgroup
 * file system has (left as it is when there). */
static void mkcg(const char *top, const char *rel)
{
	char path[PATH_MAX], procs[PATH_MAX + 16], *p;
	size_t base;
	FILE *f;

	base = (size_t)snprintf(path, sizeof(path), "%s/%s", scratch_dir, top);
	snprintf(path + base, sizeof(path) - base, "%s", rel);
	for (p = path + base;; p = strchr(p + 1, '/') ?: path + strlen(path)) {
		char c = *p;

		*p = '\0';
		cr_assert(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s", path);
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
		f = fopen(procs, "a");
		cr_assert_not_null(f, "%s", procs);
		fclose(f);
		*p = c;
		if (!c)
			break;
	}
}

/* scratch/@top@rel/@name holding @text. */
static void put(const char *top, const char *rel, const char *name, const char *text)
{
	char path[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s%s/%s", scratch_dir, top, rel, name);
	scratch_write(path, text);
}

static void make_tree(void)
{
	static const char *const cgroups[] = {
		"",
		"/init.scope",
		"/system.slice/mysql.service",
		"/system.slice/dbus.service",
		"/system.slice/docker-" ID_DOCKER ".scope",
		"/user.slice/user-1000.slice/user@1000.service/app.slice/foo.scope",
		"/user.slice/user-1000.slice/user@1000.service/dbus.service",
		"/docker/" ID_CGROUPFS,
		"/docker/" ID_CGROUPFS "-init", /* made up: a name that only starts with an id */
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/"
		"cri-containerd-" ID_CONTAINERD ".scope",
		"/kubepods.slice/kubepods-besteffort.slice/crio-" ID_CRIO ".scope",
		"/kubepods.slice/kubepods-besteffort.slice/crio-conmon-" ID_CRIO ".scope",
		"/machine.slice/libpod-" ID_LIBPOD ".scope/container",
		"/machine.slice/libpod-conmon-" ID_LIBPOD ".scope",
		"/machine.slice/libpod-" ID_A ".scope",
		"/machine.slice/libpod-" ID_B ".scope",
	};

	for (size_t i = 0; i < sizeof(cgroups) / sizeof(cgroups[0]); i++)
		mkcg("v2", cgroups[i]);
	mkcg("v1", "/system.slice/mysql.service");
	mkcg("v1", "/system.slice/v1only.service");
	scratch_run("mkdir '%s/system.slice/notcg' && touch '%s/system.slice/afile'", roots.v2,
		    roots.v2);
}

TestSuite(cgroup_resolve, .init = tree_setup, .fini = scratch_teardown);

/* Resolves @sel, asserting success, and checks the relative path and the id. */
static void expect_resolves(const char *sel, const char *rel)
{
	struct cgroup_target t;
	char why[512] = "", path[2 * PATH_MAX];
	struct stat st;

	cr_assert_eq(cgroup__resolve(&roots, sel, &t, why, sizeof(why)), 0, "%s: %s", sel, why);
	cr_expect_str_eq(t.rel, rel, "%s", sel);
	snprintf(path, sizeof(path), "%s%s", roots.v2, strcmp(rel, "/") ? rel : "");
	cr_expect_str_eq(t.path, path, "%s", sel);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(t.id, st.st_ino, "%s", sel);
}

/* Resolves @sel, asserting @err and a reason that holds @part. */
static void expect_refused(const char *sel, int err, const char *part)
{
	struct cgroup_target t;
	char why[2 * PATH_MAX] = "";

	cr_expect_eq(cgroup__resolve(&roots, sel, &t, why, sizeof(why)), err, "%s: %s", sel, why);
	cr_expect(strstr(why, part), "%s: \"%s\" lacks \"%s\"", sel, why, part);
}

Test(cgroup_resolve, paths)
{
	char path[PATH_MAX + 64];

	make_tree();
	expect_resolves(roots.v2, "/");
	snprintf(path, sizeof(path), "%s/system.slice/mysql.service", roots.v2);
	expect_resolves(path, "/system.slice/mysql.service");
	snprintf(path, sizeof(path), "%s/system.slice//mysql.service/", roots.v2);
	expect_resolves(path, "/system.slice/mysql.service");
	expect_resolves("system.slice/mysql.service", "/system.slice/mysql.service");
	expect_resolves("system.slice", "/system.slice");
	/* a top-level directory is a relative path before it is a unit */
	expect_resolves("init.scope", "/init.scope");
	/* the path that a link names is resolved to the cgroup's own */
	scratch_run("ln -s '%s/system.slice' '%s/link'", roots.v2, scratch_dir);
	snprintf(path, sizeof(path), "%s/link/mysql.service", scratch_dir);
	expect_resolves(path, "/system.slice/mysql.service");
}

Test(cgroup_resolve, units)
{
	make_tree();
	expect_resolves("mysql.service", "/system.slice/mysql.service");
	expect_resolves("mysql", "/system.slice/mysql.service");
	expect_resolves("user@1000.service", "/user.slice/user-1000.slice/user@1000.service");
	expect_resolves("foo.scope", "/user.slice/user-1000.slice/user@1000.service/app.slice/"
				     "foo.scope");
	expect_resolves("kubepods-besteffort.slice", "/kubepods.slice/kubepods-besteffort.slice");
}

Test(cgroup_resolve, containers)
{
	make_tree();
	expect_resolves(ID_DOCKER, "/system.slice/docker-" ID_DOCKER ".scope");
	expect_resolves("4fe6fffedaf1", "/system.slice/docker-" ID_DOCKER ".scope");
	expect_resolves(ID_CGROUPFS, "/docker/" ID_CGROUPFS);
	expect_resolves("a4ce6fb5aacfdff0", "/docker/" ID_CGROUPFS);
	expect_resolves("0123456789ab",
			"/kubepods.slice/kubepods-burstable.slice/"
			"kubepods-burstable-pod1.slice/cri-containerd-" ID_CONTAINERD ".scope");
	/* the conmon scopes beside the container are not it */
	expect_resolves("fedcba987654",
			"/kubepods.slice/kubepods-besteffort.slice/crio-" ID_CRIO ".scope");
	expect_resolves(ID_LIBPOD, "/machine.slice/libpod-" ID_LIBPOD ".scope");
	expect_resolves(ID_A, "/machine.slice/libpod-" ID_A ".scope");
}

/* Two matches name both, in the order found. */
Test(cgroup_resolve, ambiguous)
{
	make_tree();
	expect_refused("dbus", -ENOTUNIQ, "dbus.service names more than one cgroup: ");
	expect_refused("dbus.service", -ENOTUNIQ, "/system.slice/dbus.service");
	expect_refused("dbus.service", -ENOTUNIQ, "/user@1000.service/dbus.service");
	expect_refused("abcabcabcabc", -ENOTUNIQ, "libpod-" ID_A ".scope");
	expect_refused("abcabcabcabc", -ENOTUNIQ, "libpod-" ID_B ".scope");
}

Test(cgroup_resolve, missing)
{
	char path[PATH_MAX + 64], why[PATH_MAX + 128];

	make_tree();
	snprintf(why, sizeof(why),
		 "no running unit nosuch.service (no cgroup of that name under %s)", roots.v2);
	expect_refused("nosuch.service", -ENOENT, why);
	expect_refused("nosuch", -ENOENT, "no running unit nosuch.service");
	expect_refused("0123456789aa", -ENOENT, "no container 0123456789aa (no cgroup names it)");
	snprintf(path, sizeof(path), "%s/x", roots.v2);
	snprintf(why, sizeof(why), "no cgroup v2 directory %s", path);
	expect_refused(path, -ENOENT, why);
	expect_refused("system.slice/x", -ENOENT, "no cgroup v2 directory");
	roots.v2[0] = '\0';
	expect_refused("mysql", -ENOENT, "cgroup v2 is not mounted");
}

Test(cgroup_resolve, not_v2_cgroups)
{
	char path[PATH_MAX + 64], why[3 * PATH_MAX];

	make_tree();
	snprintf(path, sizeof(path), "%s/system.slice/mysql.service", roots.v1_memory);
	snprintf(why, sizeof(why),
		 "%s is a cgroup v1 directory: give the v2 path, %s/system.slice/mysql.service",
		 path, roots.v2);
	expect_refused(path, -EINVAL, why);
	snprintf(path, sizeof(path), "%s/system.slice/v1only.service", roots.v1_memory);
	snprintf(why, sizeof(why), "(the v2 hierarchy is at %s here)", roots.v2);
	expect_refused(path, -EINVAL, why);
	expect_refused(scratch_dir, -EINVAL, "is outside the cgroup v2 hierarchy");
	/* a name that starts like the root is not below it */
	scratch_run("mkdir '%s/v2x'", scratch_dir);
	snprintf(path, sizeof(path), "%s/v2x", scratch_dir);
	expect_refused(path, -EINVAL, "is outside the cgroup v2 hierarchy");
	expect_refused("..", -EINVAL, "is outside the cgroup v2 hierarchy");
	expect_refused("system.slice/notcg", -EINVAL, "notcg is not a cgroup directory");
	expect_refused("system.slice/afile", -EINVAL, "afile is not a directory");
	expect_refused("", -EINVAL, "empty");
}

/* Names are searched CGROUP_SEARCH_DEPTH levels down, and no further. */
Test(cgroup_resolve, depth_bound)
{
	char rel[512] = "";

	make_tree();
	for (int i = 1; i < CGROUP_SEARCH_DEPTH; i++)
		snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/d%d", i);
	mkcg("v2", rel);
	snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/deep.service");
	mkcg("v2", rel);
	expect_resolves("deep.service", rel);
	snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/deeper.service");
	mkcg("v2", rel);
	expect_refused("deeper", -ENOENT, "no running unit deeper.service");
}

TestSuite(cgroup_tree, .init = tree_setup, .fini = scratch_teardown);

Test(cgroup_tree, pids_of_a_subtree)
{
	pid_t *pids = (pid_t *)1;
	size_t n = 9;

	make_tree();
	put("v2", "/system.slice", "cgroup.procs", "40\n10\n");
	put("v2", "/system.slice/mysql.service", "cgroup.procs", "300\n301\n");
	put("v2", "/system.slice/docker-" ID_DOCKER ".scope", "cgroup.procs", "10\n");
	put("v2", "/init.scope", "cgroup.procs", "1\n");
	cr_assert_eq(cgroup__pids(roots.v2, &pids, &n), 0);
	cr_assert_eq(n, 5, "10 once, though two cgroups list it");
	cr_expect_arr_eq(pids, ((pid_t[]){ 1, 10, 40, 300, 301 }), 5 * sizeof(pid_t));
	free(pids);
	put("v2", "/user.slice/user-1000.slice/user@1000.service/app.slice/foo.scope",
	    "cgroup.procs", "7\n");
	scratch_run("rm '%s/user.slice/cgroup.procs'", roots.v2);
	cr_assert_eq(cgroup__pids(roots.v2, &pids, &n), 0, "a directory with no cgroup.procs");
	cr_expect_eq(n, 6);
	free(pids);
}

Test(cgroup_tree, pids_none_and_gone)
{
	char path[PATH_MAX + 64];
	pid_t *pids = (pid_t *)1;
	size_t n = 9;

	make_tree();
	snprintf(path, sizeof(path), "%s/system.slice", roots.v2);
	cr_assert_eq(cgroup__pids(path, &pids, &n), 0);
	cr_expect_eq(n, 0);
	cr_expect_null(pids);
	snprintf(path, sizeof(path), "%s/gone", roots.v2);
	cr_expect_eq(cgroup__pids(path, &pids, &n), -ENOENT);
	snprintf(path, sizeof(path), "%s/system.slice/notcg", roots.v2);
	cr_expect_eq(cgroup__pids(path, &pids, &n), -ENOENT, "not a cgroup");
}

/* A cgroup removed is gone, and stays gone when a new one takes its name. */
Test(cgroup_tree, exists)
{
	struct cgroup_target t;
	char why[512] = "";

	make_tree();
	cr_assert_eq(cgroup__resolve(&roots, "mysql", &t, why, sizeof(why)), 0, "%s", why);
	cr_expect(cgroup__exists(&t));
	scratch_run("mv '%s' '%s/moved'", t.path, scratch_dir);
	cr_expect_not(cgroup__exists(&t));
	mkcg("v2", "/system.slice/mysql.service");
	cr_expect_not(cgroup__exists(&t), "another cgroup of the same name");
}

static struct cgroup_target target_of(const char *sel)
{
	struct cgroup_target t;
	char why[512] = "";

	cr_assert_eq(cgroup__resolve(&roots, sel, &t, why, sizeof(why)), 0, "%s", why);
	return t;
}

Test(cgroup_tree, mem_v2)
{
	struct cgroup_target t;
	struct cgroup_mem m;

	make_tree();
	t = target_of("mysql");
	put("v2", t.rel, "memory.stat", "anon 100\nfile 200\nkernel 30\nshmem 5\nfile_mapped 6\n");
	put("v2", t.rel, "memory.current", "4096\n");
	put("v2", t.rel, "memory.swap.current", "8192\n");
	cr_assert_eq(cgroup__read_mem(&roots, &t, &m), 0);
	cr_expect_eq(m.version, 2);
	cr_expect_str_eq(m.source, t.path);
	cr_expect_eq(m.current, 4096);
	cr_expect_eq(m.swap, 8192);
	cr_expect_eq(m.anon, 100);
	cr_expect_eq(m.kernel, 30);
}

/* A hybrid host: the v1 memory cgroup at the same relative path, when there is one. */
Test(cgroup_tree, mem_v1)
{
	struct cgroup_target t;
	struct cgroup_mem m;
	char v1[2 * PATH_MAX];

	make_tree();
	t = target_of("mysql");
	put("v1", t.rel, "memory.stat", "rss 1\ncache 2\ntotal_rss 10\ntotal_cache 20\n");
	put("v1", t.rel, "memory.usage_in_bytes", "65536\n");
	cr_assert_eq(cgroup__read_mem(&roots, &t, &m), 0);
	cr_expect_eq(m.version, 1);
	snprintf(v1, sizeof(v1), "%s%s", roots.v1_memory, t.rel);
	cr_expect_str_eq(m.source, v1);
	cr_expect_eq(m.current, 65536);
	cr_expect_eq(m.anon, 10);
	cr_expect_eq(m.file, 20);
	cr_expect_not(m.have_kernel, "no memory.kmem.usage_in_bytes");
	put("v1", t.rel, "memory.kmem.usage_in_bytes", "12288\n");
	cr_assert_eq(cgroup__read_mem(&roots, &t, &m), 0);
	cr_expect(m.have_kernel);
	cr_expect_eq(m.kernel, 12288);
	/* the root of the one is the root of the other */
	t = target_of(roots.v2);
	put("v1", "", "memory.stat", "rss 1\ncache 2\n");
	put("v1", "", "memory.usage_in_bytes", "3\n");
	cr_assert_eq(cgroup__read_mem(&roots, &t, &m), 0);
	cr_expect_eq(m.version, 1);
	cr_expect_str_eq(m.source, roots.v1_memory);
}

Test(cgroup_tree, mem_none_and_gone)
{
	struct cgroup_target t;
	struct cgroup_mem m;

	make_tree();
	t = target_of("init.scope");
	cr_assert_eq(cgroup__read_mem(&roots, &t, &m), 0);
	cr_expect_eq(m.version, 0, "no memory.stat in v2 nor a v1 twin");
	roots.v1_memory[0] = '\0';
	t = target_of("mysql");
	cr_assert_eq(cgroup__read_mem(&roots, &t, &m), 0);
	cr_expect_eq(m.version, 0, "no v1 memory hierarchy");
	scratch_run("rm -rf '%s'", t.path);
	cr_expect_eq(cgroup__read_mem(&roots, &t, &m), -ENOENT);
}
