// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The text files of cgroups: the mounts of the hierarchies, memory.stat, /proc/PID/cgroup. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/cgroupfs.h"
#include "base/procfs.h"

/* Copies the mountinfo field @s (up to a space) into @out, undoing the kernel's octal escapes
 * of space, tab, newline and backslash ("\040"). Returns false when it does not fit. */
static bool unescape(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && *s != ' ' && *s != '\n'; s++) {
		char c = *s;

		if (c == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			c = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		}
		if (n + 1 >= len)
			return false;
		out[n++] = c;
	}
	out[n] = '\0';
	return n > 0;
}

/* Whether the comma-separated @opts (up to a space or the end) holds the option @opt. */
static bool has_opt(const char *opts, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = opts; *p && *p != ' ' && *p != '\n'; p += strcspn(p, ", \n")) {
		if (*p == ',')
			p++;
		if (!strncmp(p, opt, n) && (!p[n] || strchr(", \n", p[n])))
			return true;
	}
	return false;
}

/* "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw": the mount point is
 * the fifth field; after the lone "-", the type, the source and the super options. */
static void root_line(const char *line, struct cgroup_roots *r)
{
	const char *sep = strstr(line, " - "), *p = line;
	char type[16], *dst = NULL;
	int opts = 0;

	if (!sep || sscanf(sep + 3, "%15s %*s %n", type, &opts) != 1 || !opts)
		return;
	if (!strcmp(type, "cgroup2") && !r->v2[0])
		dst = r->v2;
	else if (!strcmp(type, "cgroup") && !r->v1_memory[0] && has_opt(sep + 3 + opts, "memory"))
		dst = r->v1_memory;
	if (!dst)
		return;
	for (int i = 0; i < 4 && p; i++) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	if (!p || !unescape(p, dst, PATH_MAX))
		dst[0] = '\0';
}

int cgroup__parse_roots(FILE *f, struct cgroup_roots *r)
{
	size_t len = 0;
	char *line = NULL;

	r->v2[0] = r->v1_memory[0] = '\0';
	errno = 0;
	while (getline(&line, &len, f) > 0)
		root_line(line, r);
	free(line);
	return errno == ENOMEM ? -ENOMEM : 0;
}

int cgroup__find_roots(struct cgroup_roots *r)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int err;

	if (!f)
		return -errno;
	err = cgroup__parse_roots(f, r);
	fclose(f);
	return err;
}

/* The fields of cgroup_mem that memory.stat fills; MEM_KERNEL_PART: one of the figures whose
 * sum stands for v2's "kernel" on kernels before 5.18. */
enum mem_field {
	MEM_ANON,
	MEM_FILE,
	MEM_SHMEM,
	MEM_MAPPED,
	MEM_SWAP,
	MEM_KERNEL,
	MEM_KERNEL_PART
};
#define MEM_NR (MEM_KERNEL_PART + 1)

struct stat_key {
	const char *key;
	enum mem_field field;
};

/* v1 gives a cgroup's own figures under these names, and those of its subtree (what v2
 * always gives) under total_NAME, which win when the file has them. */
static const struct stat_key v1_keys[] = {
	{ "rss", MEM_ANON },	       { "cache", MEM_FILE }, { "shmem", MEM_SHMEM },
	{ "mapped_file", MEM_MAPPED }, { "swap", MEM_SWAP },
};

/* v2's "kernel" is the kmem counter (v1's memory.kmem.usage_in_bytes): slab, stacks, page
 * tables, percpu and every other __GFP_ACCOUNT allocation, but not socket buffers ("sock"),
 * which the fallback leaves out too so that the figure means one thing on every kernel. */
static const struct stat_key v2_keys[] = {
	{ "anon", MEM_ANON },
	{ "file", MEM_FILE },
	{ "shmem", MEM_SHMEM },
	{ "file_mapped", MEM_MAPPED },
	{ "kernel", MEM_KERNEL },
	{ "kernel_stack", MEM_KERNEL_PART },
	{ "pagetables", MEM_KERNEL_PART },
	{ "slab", MEM_KERNEL_PART },
	{ "percpu", MEM_KERNEL_PART },
};

static int field_of(const struct stat_key *keys, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(keys[i].key, key))
			return (int)keys[i].field;
	return -1;
}

/* A figure of memory.stat, "123\n". Returns 0 or -EINVAL. */
static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || end == s || *s == '-' || (*end && *end != '\n') ? -EINVAL : 0;
}

int cgroup__parse_memstat(FILE *f, int version, struct cgroup_mem *m)
{
	const struct stat_key *keys = version == 1 ? v1_keys : v2_keys;
	size_t nkeys = version == 1 ? sizeof(v1_keys) / sizeof(v1_keys[0]) :
				      sizeof(v2_keys) / sizeof(v2_keys[0]);
	uint64_t own[MEM_NR] = { 0 }, total[MEM_NR] = { 0 }, v;
	unsigned own_seen = 0, total_seen = 0;
	char line[256], key[64];

	if (version != 1 && version != 2)
		return -EINVAL;
	while (fgets(line, sizeof(line), f)) {
		bool is_total;
		int field, off = 0;

		if (sscanf(line, "%63s %n", key, &off) != 1 || !off)
			continue;
		is_total = version == 1 && !strncmp(key, "total_", 6);
		field = field_of(keys, nkeys, key + (is_total ? 6 : 0));
		if (field < 0)
			continue;
		if (parse_u64(line + off, &v))
			return -EINVAL;
		if (is_total) {
			total[field] = v;
			total_seen |= 1u << field;
		} else {
			own[field] += v; /* only the kernel parts repeat: they add up */
			own_seen |= 1u << field;
		}
	}
	if (!(own_seen & (1u << MEM_ANON))) /* anon (v2) or rss (v1): every memory.stat has it */
		return -EINVAL;
	for (int i = 0; i < MEM_NR; i++)
		if (total_seen & (1u << i))
			own[i] = total[i];
	m->version = version;
	m->anon = own[MEM_ANON];
	m->file = own[MEM_FILE];
	m->shmem = own[MEM_SHMEM];
	m->file_mapped = own[MEM_MAPPED];
	if (version == 1) {
		m->swap = own[MEM_SWAP];
		return 0;
	}
	m->have_kernel = own_seen & (1u << MEM_KERNEL | 1u << MEM_KERNEL_PART);
	m->kernel = own_seen & (1u << MEM_KERNEL) ? own[MEM_KERNEL] : own[MEM_KERNEL_PART];
	return 0;
}

/* The number in the file @dir/@name into *@out. Returns 0 or -errno (-EINVAL: no number). */
static int read_u64(const char *dir, const char *name, uint64_t *out)
{
	char path[PATH_MAX + 32], buf[64], *end;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	errno = 0;
	*out = strtoull(buf, &end, 10);
	return errno || end == buf ? -EINVAL : 0;
}

/* cgroup__parse_memstat() of @dir/memory.stat, @dir noted as the source. */
static int read_memstat(const char *dir, int version, struct cgroup_mem *m)
{
	char path[PATH_MAX + 16];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = cgroup__parse_memstat(f, version, m);
	fclose(f);
	if (!err)
		snprintf(m->source, sizeof(m->source), "%s", dir);
	return err;
}

int cgroup__read_mem(const struct cgroup_roots *r, const struct cgroup_target *t,
		     struct cgroup_mem *m)
{
	char v1[2 * PATH_MAX];
	struct stat st;
	int err;

	memset(m, 0, sizeof(*m));
	if (stat(t->path, &st))
		return -errno;
	err = read_memstat(t->path, 2, m);
	if (!err) {
		/* the root has no memory.current, and memory.swap.current needs swap accounting */
		read_u64(t->path, "memory.current", &m->current);
		read_u64(t->path, "memory.swap.current", &m->swap);
		return 0;
	}
	if (err != -ENOENT || !r->v1_memory[0])
		return err == -ENOENT ? 0 : err;
	/* a hybrid host: the v2 tree has no memory controller, the v1 one the same paths */
	snprintf(v1, sizeof(v1), "%s%s", r->v1_memory, strcmp(t->rel, "/") ? t->rel : "");
	if (strlen(v1) >= PATH_MAX)
		return -ENAMETOOLONG;
	err = read_memstat(v1, 1, m);
	if (err)
		return err == -ENOENT ? 0 : err;
	err = read_u64(v1, "memory.usage_in_bytes", &m->current);
	m->have_kernel = !read_u64(v1, "memory.kmem.usage_in_bytes", &m->kernel);
	return err;
}

int cgroup__parse_pid_cgroup(FILE *f, char *rel, size_t len)
{
	size_t cap = 0;
	char *line = NULL;
	int err = -ENOENT;

	while (err == -ENOENT && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		err = strlen(line + 3) < len ? 0 : -ENAMETOOLONG;
		if (!err)
			strcpy(rel, line + 3);
	}
	free(line);
	return err;
}

int cgroup__of_pid(pid_t pid, char *rel, size_t len)
{
	FILE *f;
	int err = procfs__fopen(pid, "cgroup", &f);

	if (err)
		return err;
	err = cgroup__parse_pid_cgroup(f, rel, len);
	fclose(f);
	return err;
}
