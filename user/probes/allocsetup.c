// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * --alloc per target: the candidate objects, the allocator among them, its probe plan shown
 * with -v, and the probes attached to that pid.
 */
#include "probes/allocsetup.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "base/grow.h"
#include "base/procfs.h"
#include "probes/launch.h"
#include "symbols/procmaps.h"

/* Every object mapped: a plugin host maps hundreds, and the C library, mapped early, is high
 * in the address space, last in /proc/PID/maps. */
struct candidates {
	char **paths;
	size_t n, cap;
};

static void candidates__add(struct candidates *c, const char *path)
{
	char **v;

	if (!*path)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->paths[i], path))
			return;
	v = grow__reserve(c->paths, &c->cap, c->n, sizeof(*v));
	if (!v)
		return;
	c->paths = v;
	c->paths[c->n] = strdup(path);
	if (c->paths[c->n])
		c->n++;
}

static void candidates__free(struct candidates *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->paths[i]);
	free(c->paths);
	*c = (struct candidates){ 0 };
}

/* Every file with an executable mapping of the process at @procfd, /proc directory @dir
 * (procfs__live_dir()), after @first (the main executable). A file deleted (or replaced) on
 * disk since it was mapped is reached through @dir/map_files, which holds the very inode. */
static int add_mapped(struct candidates *c, int procfd, const char *dir, const char *first)
{
	struct procmaps maps;
	int fd = openat(procfd, "maps", O_RDONLY | O_CLOEXEC), err;
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f) {
		err = errno == ENOENT ? -ESRCH : -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	err = procmaps__parse(f, &maps);
	fclose(f);
	if (err)
		return err;
	if (first)
		candidates__add(c, first);
	for (size_t i = 0; i < maps.nr; i++) {
		const struct procmap_entry *e = &maps.entries[i];
		char path[96];

		if (!(e->perms & PROCMAP_EXEC) || !procmap_entry__is_file(e))
			continue;
		if (e->is_deleted && dir)
			snprintf(path, sizeof(path), "%s/map_files/%" PRIx64 "-%" PRIx64, dir,
				 e->start, e->end);
		candidates__add(c, e->is_deleted && dir ? path : e->path);
	}
	procmaps__free(&maps);
	return 0;
}

/*
 * A launched command has not run yet: what it will load is guessed the way the dynamic
 * loader decides, as far as it matters for malloc: LD_PRELOAD first, then the executable,
 * then the C library (faultline's own: the same system).
 */
static int add_launch(struct candidates *c, const char *command)
{
	const char *preload = getenv("LD_PRELOAD");
	char exe[PATH_MAX], *copy, *tok, *save = NULL;

	if (preload && (copy = strdup(preload))) {
		for (char *p = copy; (tok = strtok_r(p, ": ", &save)); p = NULL)
			candidates__add(c, tok);
		free(copy);
	}
	int self = procfs__open(getpid(), "", O_PATH | O_DIRECTORY), err;

	if (!launch__resolve(command, exe, sizeof(exe)))
		candidates__add(c, exe);
	if (self < 0)
		return self;
	err = add_mapped(c, self, NULL, NULL);
	close(self);
	return err;
}

/* True the first time @path is asked about (for up to 8 allocators; more are told each time). */
static bool first_told(struct alloc_opts *o, const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a; 0 marks a free slot */

	for (const char *c = path; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	h |= 1;
	for (size_t i = 0; i < sizeof(o->told) / sizeof(o->told[0]); i++) {
		if (o->told[i] == h)
			return false;
		if (!o->told[i]) {
			o->told[i] = h;
			return true;
		}
	}
	return true;
}

static void report_plan(struct alloc_opts *o, pid_t pid, const struct alloc_plan *plan)
{
	char missing[1024] = "";
	size_t len = 0;

	for (size_t i = 0; i < plan->nprobes; i++) {
		const struct alloc_probe *p = &plan->probes[i];

		/* glibc defines no operator new: only missing C functions are news (and in churn
		 * mode, only those it would probe) */
		if (p->state == ALLOC_PROBE_MISSING && strncmp(p->symbol, "_Z", 2) &&
		    !(o->churn && alloc_fn__is_free(p->fn)) && len < sizeof(missing))
			len += snprintf(missing + len, sizeof(missing) - len, "%s%s",
					len ? ", " : "", p->symbol);
	}
	if (len && first_told(o, plan->path))
		fprintf(stderr, "faultline: --alloc: %s does not define %s: not probed\n",
			plan->path, missing);
	if (!o->verbose)
		return;
	fprintf(stderr, "faultline: allocator of pid %d: %s\n", pid, plan->path);
	for (size_t i = 0; i < plan->nprobes; i++) {
		const struct alloc_probe *p = &plan->probes[i];

		if (o->churn && alloc_fn__is_free(p->fn)) {
			if (p->state == ALLOC_PROBE_ATTACH || o->verbose > 1)
				fprintf(stderr, "faultline:   %-36s not probed (--alloc=churn)\n",
					p->symbol);
			continue;
		}
		switch (p->state) {
		case ALLOC_PROBE_ATTACH:
			fprintf(stderr, "faultline:   %-36s +%-3u %s%s\n", p->symbol,
				p->site.offset, p->site.reason,
				alloc_fn__is_free(p->fn) || o->churn ? "" :
								       "; return probe there too");
			break;
		case ALLOC_PROBE_ALIAS:
			fprintf(stderr, "faultline:   %-36s same address as a function above\n",
				p->symbol);
			break;
		case ALLOC_PROBE_TAIL_JUMP:
			fprintf(stderr,
				"faultline:   %-36s a jump to another function: counted there\n",
				p->symbol);
			break;
		case ALLOC_PROBE_MISSING:
			if (o->verbose > 1)
				fprintf(stderr, "faultline:   %-36s not defined\n", p->symbol);
			break;
		}
	}
}

/* True when the process at @procfd maps the file @path (under @rootfd): same device and inode. */
static bool maps_file(int procfd, int rootfd, const char *path)
{
	int fd = procfs__open_in_root(rootfd, path), mfd;
	struct procmaps maps;
	bool found = false;
	struct stat st;
	FILE *f;

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return true; /* cannot tell: let the attach say */
	}
	close(fd);
	mfd = openat(procfd, "maps", O_RDONLY | O_CLOEXEC);
	f = mfd >= 0 ? fdopen(mfd, "r") : NULL;
	if (!f || procmaps__parse(f, &maps)) {
		if (f)
			fclose(f);
		else if (mfd >= 0)
			close(mfd);
		return true;
	}
	fclose(f);
	for (size_t i = 0; i < maps.nr && !found; i++)
		found = maps.entries[i].inode == st.st_ino &&
			makedev(maps.entries[i].dev_major, maps.entries[i].dev_minor) == st.st_dev;
	procmaps__free(&maps);
	return found;
}

/* Says what is wrong with --alloc-lib and what to give instead; returns -ENOENT (reported). */
static int explain_lib(const struct alloc_opts *o, pid_t pid, int err)
{
	const char *why;

	switch (err) {
	case -ENOENT:
		why = "no such file (paths are looked up in the target's root, /proc/PID/root)";
		break;
	case -EISDIR:
		why = "a directory, not the allocator's shared object";
		break;
	case -ENOEXEC:
		why = "not an ELF file: give the allocator's shared object";
		break;
	case -ENODATA:
		why = o->prefix ?
			      "defines no malloc with that --alloc-prefix" :
			      "defines no malloc: not an allocator (a prefixed build such as je_ "
			      "needs --alloc-prefix)";
		break;
	case -ESRCH:
		fprintf(stderr,
			"faultline: --alloc-lib %s: pid %d does not map it, so none of its "
			"allocations would be seen; leave --alloc-lib out to probe the allocator "
			"it maps\n",
			o->lib, pid);
		return -ENOENT;
	default:
		why = strerror(-err);
	}
	fprintf(stderr, "faultline: --alloc-lib %s: %s\n", o->lib, why);
	return -ENOENT;
}

static int find_allocator(const struct alloc_opts *o, pid_t pid, const char *launched, int procfd,
			  const char *dir, int rootfd, struct alloc_plan *plan)
{
	/* the churn probe walks the stack from its site: the caller's rbp must be intact */
	unsigned keep = o->churn ? PLACE_RBP : 0;
	struct candidates c = { 0 };
	char exe[PATH_MAX];
	int err, i;

	if (o->lib) {
		err = allocator__plan(rootfd, o->lib, o->prefix ?: "", keep, plan);
		if (!err && procfd >= 0 && !maps_file(procfd, rootfd, o->lib))
			err = -ESRCH;
		return err ? explain_lib(o, pid, err) : 0;
	}
	if (launched) {
		err = add_launch(&c, launched);
	} else {
		ssize_t n = readlinkat(procfd, "exe", exe, sizeof(exe) - 1);

		exe[n > 0 ? n : 0] = '\0';
		err = add_mapped(&c, procfd, dir, n > 0 ? exe : NULL);
	}
	i = err ? err :
		  allocator__choose(rootfd, (const char *const *)c.paths, c.n, o->prefix ?: "");
	if (i >= 0)
		err = allocator__plan(rootfd, c.paths[i], o->prefix ?: "", keep, plan);
	/* a followed child that is exiting maps nothing any more */
	else if (!err && c.n && !procfs__gone(pid))
		fprintf(stderr,
			"faultline: --alloc: pid %d maps no object that defines %smalloc "
			"(try --alloc-lib)\n",
			pid, o->prefix ?: "");
	candidates__free(&c);
	return i < 0 ? i : err;
}

int allocsetup__attach(struct tracer *t, struct alloc_opts *o, pid_t pid, const char *launched)
{
	struct alloc_plan *plan = malloc(sizeof(*plan));
	int procfd = -1, rootfd = AT_FDCWD, err;
	char dir[64] = "";

	if (!plan)
		return -ENOMEM;
	/* a live thread's view when the leader called pthread_exit() */
	if (!launched) {
		err = procfs__live_dir(pid, dir, sizeof(dir));
		procfd = err ? err : open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (procfd < 0 && !err)
			procfd = errno == ENOENT ? -ESRCH : -errno;
		rootfd = procfd < 0 ? procfd :
				      openat(procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (rootfd < 0 && procfd >= 0)
			rootfd = errno == ENOENT ? -ESRCH : -errno;
	}
	if (rootfd < 0 && rootfd != AT_FDCWD) {
		if (!procfs__gone(pid))
			fprintf(stderr, "faultline: --alloc: cannot open /proc/%d/root: %s\n", pid,
				strerror(-rootfd));
		if (procfd >= 0)
			close(procfd);
		free(plan);
		return rootfd;
	}
	err = find_allocator(o, pid, launched, procfd, dir, rootfd, plan);
	if (!err) {
		report_plan(o, pid, plan);
		err = tracer__attach_alloc(t, pid, plan);
	} else if (err != -ENOENT && !procfs__gone(pid)) {
		fprintf(stderr, "faultline: --alloc: reading the allocator of pid %d failed: %s\n",
			pid, strerror(-err));
	}
	if (rootfd >= 0)
		close(rootfd);
	if (procfd >= 0)
		close(procfd);
	free(plan);
	return err;
}
