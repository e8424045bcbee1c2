// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The cgroup v2 tree: a --cgroup selector resolved to a directory, the processes below it. */
#include "base/cgroupfs.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "base/grow.h"

/* How deep cgroup__pids() descends: each level holds a directory open. */
#define CGROUP_WALK_DEPTH 64

static int say(char *why, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Writes the reason for @err into @why; returns @err, so callers return say(...). */
static int say(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	if (!len)
		return err;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

/* The part of @path below @root ("/" for @root itself), or NULL when @path is not in it. A
 * prefix alone is not enough: /sys/fs/cgroup/unifiedx is not under /sys/fs/cgroup/unified. */
static const char *below(const char *root, const char *path)
{
	size_t n = strlen(root);

	while (n && root[n - 1] == '/')
		n--;
	if (!root[0] || strncmp(path, root, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path[n] ? path + n : "/";
}

/* Whether @dir is a directory with a cgroup.procs: what every cgroup directory has. */
static bool is_cgroup_dir(const char *dir)
{
	char procs[PATH_MAX + 16];
	struct stat st;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	return !stat(dir, &st) && S_ISDIR(st.st_mode) && !access(procs, F_OK);
}

/* A path in a v1 hierarchy: under the memory controller's mount, or on any cgroup (v1) file
 * system (cpu, pids, name=systemd) whose mount point cgroup_roots does not keep. */
static bool in_v1(const struct cgroup_roots *r, const char *real)
{
	char mem[PATH_MAX];
	struct statfs fs;

	if (r->v1_memory[0] && realpath(r->v1_memory, mem) && below(mem, real))
		return true;
	return !statfs(real, &fs) && fs.f_type == CGROUP_SUPER_MAGIC;
}

/* A v1 path refused, saying where its v2 twin is when the v2 tree has the same relative path
 * (systemd keeps the two parallel on hybrid hosts), or else where the v2 hierarchy is. */
static int refuse_v1(const struct cgroup_roots *r, const char *root, const char *real, char *why,
		     size_t len)
{
	char mem[PATH_MAX], twin[2 * PATH_MAX];
	const char *rel = NULL;

	if (r->v1_memory[0] && realpath(r->v1_memory, mem))
		rel = below(mem, real);
	if (rel) {
		snprintf(twin, sizeof(twin), "%s%s", root, strcmp(rel, "/") ? rel : "");
		if (is_cgroup_dir(twin))
			return say(why, len, -EINVAL,
				   "%s is a cgroup v1 directory: give the v2 path, %s", real, twin);
	}
	return say(why, len, -EINVAL,
		   "%s is a cgroup v1 directory: give the v2 path (the v2 hierarchy is at %s here)",
		   real, r->v2);
}

/* @path, absolute, as a cgroup of the v2 hierarchy whose root is @root (symlinks resolved). */
static int resolve_path(const struct cgroup_roots *r, const char *root, const char *path,
			struct cgroup_target *out, char *why, size_t len)
{
	char real[PATH_MAX];
	const char *rel;
	struct stat st;

	if (!realpath(path, real)) {
		if (errno == ENOENT || errno == ENOTDIR)
			return say(why, len, -ENOENT, "no cgroup v2 directory %s", path);
		return say(why, len, -errno, "%s: %s", path, strerror(errno));
	}
	rel = below(root, real);
	if (!rel && in_v1(r, real))
		return refuse_v1(r, root, real, why, len);
	if (!rel)
		return say(why, len, -EINVAL, "%s is outside the cgroup v2 hierarchy (%s)", real,
			   r->v2);
	if (stat(real, &st))
		return say(why, len, -errno, "%s: %s", real, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return say(why, len, -EINVAL, "%s is not a directory", real);
	if (!is_cgroup_dir(real))
		return say(why, len, -EINVAL,
			   "%s is not a cgroup directory (it has no cgroup.procs)", real);
	if (strlen(real) >= sizeof(out->path) || strlen(rel) >= sizeof(out->rel))
		return say(why, len, -ENAMETOOLONG, "%s: path too long", real);
	strcpy(out->path, real);
	strcpy(out->rel, rel);
	out->id = st.st_ino;
	return 0;
}

/* A depth-first search of the v2 tree for directories a name test picks. */
struct search {
	const char *want;	 /* a unit name, or a container id */
	bool container;		 /* @want is an id: match names_container() */
	size_t dirs;		 /* directories seen, up to CGROUP_SEARCH_DIRS */
	int found;		 /* matches so far; the search stops at 2 */
	char match[2][PATH_MAX]; /* the first two, relative to the root */
};

bool cgroupfs__is_container_id(const char *sel)
{
	size_t n = strlen(sel);

	return n >= 12 && n <= 64 && strspn(sel, "0123456789abcdef") == n;
}

/* A cgroup named after the container @id: the full id alone (cgroupfs drivers: /docker/ID,
 * /kubepods/.../ID) or in a runtime's systemd scope. The prefix must be exact so that
 * crio-conmon-ID.scope and libpod-conmon-ID.scope, the monitors beside a container, do not
 * match too and make every id ambiguous. A short @id matches a full one's start. */
static bool names_container(const char *name, const char *id)
{
	static const char *const prefixes[] = { "docker-", "cri-containerd-", "crio-", "libpod-",
						"" };
	size_t idlen = strlen(id);

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t plen = strlen(prefixes[i]);
		const char *full = name + plen, *rest;

		if (strncmp(name, prefixes[i], plen) || strncmp(full, id, idlen))
			continue;
		rest = full + strspn(full, "0123456789abcdef");
		if (!*rest || !strcmp(rest, ".scope"))
			return true;
	}
	return false;
}

static bool is_dir_entry(int dfd, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return !fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
}

/* Searches the directory @dfd (closed here), at @rel (a buffer of PATH_MAX) @depth below the
 * root. Directories that cannot be opened (removed meanwhile, not ours) are passed over. */
static void search_dir(int dfd, char *rel, int depth, struct search *s)
{
	size_t rlen = strlen(rel);
	struct dirent *e;
	DIR *d = fdopendir(dfd);

	if (!d) {
		close(dfd);
		return;
	}
	while (s->found < 2 && s->dirs < CGROUP_SEARCH_DIRS && (e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !is_dir_entry(dfd, e))
			continue;
		s->dirs++;
		if (rlen + 1 + strlen(e->d_name) >= PATH_MAX)
			continue;
		snprintf(rel + rlen, PATH_MAX - rlen, "/%s", e->d_name);
		if (s->container ? names_container(e->d_name, s->want) :
				   !strcmp(e->d_name, s->want))
			strcpy(s->match[s->found++], rel);
		if (depth + 1 < CGROUP_SEARCH_DEPTH && s->found < 2) {
			sub = openat(dirfd(d), e->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				search_dir(sub, rel, depth + 1, s);
		}
		rel[rlen] = '\0';
	}
	closedir(d);
}

/* A unit name or container id @s->want searched under @root, then resolved as a path. */
static int resolve_search(const struct cgroup_roots *r, const char *root, struct search *s,
			  struct cgroup_target *out, char *why, size_t len)
{
	char rel[PATH_MAX] = "", path[2 * PATH_MAX];
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return say(why, len, -errno, "%s: %s", r->v2, strerror(errno));
	search_dir(dfd, rel, 0, s);
	if (s->found > 1)
		return say(why, len, -ENOTUNIQ, "%s names more than one cgroup: %s%s and %s%s",
			   s->want, r->v2, s->match[0], r->v2, s->match[1]);
	/* a search cut short says so: the cgroup may be further on */
	if (!s->found && s->dirs >= CGROUP_SEARCH_DIRS)
		return say(why, len, -ENOENT, "no cgroup %s in the first %d directories under %s",
			   s->want, CGROUP_SEARCH_DIRS, r->v2);
	if (!s->found && s->container)
		return say(why, len, -ENOENT, "no container %s (no cgroup names it)", s->want);
	if (!s->found)
		return say(why, len, -ENOENT,
			   "no running unit %s (no cgroup of that name under %s)", s->want, r->v2);
	snprintf(path, sizeof(path), "%s%s", root, s->match[0]);
	return resolve_path(r, root, path, out, why, len);
}

int cgroup__resolve(const struct cgroup_roots *r, const char *sel, struct cgroup_target *out,
		    char *why, size_t whylen)
{
	char root[PATH_MAX], path[2 * PATH_MAX], unit[NAME_MAX + 1];
	struct search s = { .want = sel };
	size_t n = strlen(sel);

	if (!r->v2[0])
		return say(why, whylen, -ENOENT, "cgroup v2 is not mounted");
	if (!realpath(r->v2, root))
		return say(why, whylen, -errno, "%s: %s", r->v2, strerror(errno));
	if (!n)
		return say(why, whylen, -EINVAL, "an empty cgroup selector");
	if (sel[0] == '/')
		return resolve_path(r, root, sel, out, why, whylen);
	/* a path below the root, "a/b" or a top-level "fltest", before any name is searched */
	if (snprintf(path, sizeof(path), "%s/%s", r->v2, sel) >= PATH_MAX)
		return say(why, whylen, -ENAMETOOLONG, "%s: path too long", sel);
	if (strchr(sel, '/') || !access(path, F_OK))
		return resolve_path(r, root, path, out, why, whylen);
	if (cgroupfs__is_container_id(sel)) {
		s.container = true;
	} else if (!strchr(sel, '.')) {
		if (n + sizeof(".service") > sizeof(unit))
			return say(why, whylen, -ENAMETOOLONG, "%s: name too long", sel);
		snprintf(unit, sizeof(unit), "%s.service", sel);
		s.want = unit;
	}
	return resolve_search(r, root, &s, out, why, whylen);
}

/* The pids gathered by cgroup__pids(). */
struct pid_set {
	pid_t *v;
	size_t n, cap;
};

/* Adds the pids of the cgroup.procs in @dfd. Returns 0, -ENOMEM, or -errno of opening or
 * reading it (-ENOENT: not there; -ENODEV: the cgroup was removed since @dfd was opened;
 * -EOPNOTSUPP: a threaded cgroup, whose processes its domain lists). */
static int read_procs(int dfd, struct pid_set *s)
{
	int fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC), err = 0, pid;
	FILE *f;

	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	errno = 0;
	while (fscanf(f, "%d", &pid) == 1) {
		pid_t *grown = grow__reserve(s->v, &s->cap, s->n, sizeof(*s->v));

		if (!grown) {
			err = -ENOMEM;
			break;
		}
		s->v = grown;
		s->v[s->n++] = pid;
	}
	if (!err && ferror(f))
		err = errno ? -errno : -EIO;
	fclose(f);
	return err;
}

/* Adds the pids of @dfd (closed here) and of the directories below it. */
static int walk_pids(int dfd, int depth, struct pid_set *s)
{
	int err = read_procs(dfd, s);
	struct dirent *e;
	DIR *d;

	/* below the top, a cgroup removed during the walk is one with no process left */
	if (err && (depth == 0 || err == -ENOMEM)) {
		close(dfd);
		return err == -ENODEV ? -ENOENT : err;
	}
	if (depth + 1 >= CGROUP_WALK_DEPTH || !(d = fdopendir(dfd))) {
		close(dfd);
		return 0;
	}
	err = 0;
	while (!err && (e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !is_dir_entry(dfd, e))
			continue;
		sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			err = walk_pids(sub, depth + 1, s);
	}
	closedir(d);
	return err;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

int cgroup__pids(const char *dir, pid_t **pids, size_t *n)
{
	struct pid_set s = { 0 };
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;
	size_t w = 0;

	*pids = NULL;
	*n = 0;
	if (fd < 0)
		return -errno;
	err = walk_pids(fd, 0, &s);
	if (err) {
		free(s.v);
		return err;
	}
	/* a process that moved between two cgroups during the walk was read in both */
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), cmp_pid);
	for (size_t i = 0; i < s.n; i++)
		if (!w || s.v[w - 1] != s.v[i])
			s.v[w++] = s.v[i];
	*pids = s.v;
	*n = w;
	return 0;
}

bool cgroup__exists(const struct cgroup_target *t)
{
	struct stat st;

	return !stat(t->path, &st) && S_ISDIR(st.st_mode) && (uint64_t)st.st_ino == t->id;
}
