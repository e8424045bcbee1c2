// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "scope.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/grow.h"
#include "base/procfs.h"
#include "faultline.h"
#include "probes/scope.h"

int scope__resolve(const struct fl_config *cfg, struct scope *sc)
{
	char why[512];
	int err;

	memset(sc, 0, sizeof(*sc));
	if (cfg->all) {
		sc->kind = FL_SCOPE_ALL;
		return 0;
	}
	if (!cfg->ncgroups)
		return 0;
	sc->kind = FL_SCOPE_CGROUPS;
	err = cgroup__find_roots(&sc->roots);
	if (!err && !sc->roots.v2[0])
		err = -ENOENT;
	if (err) {
		fprintf(stderr, "faultline: --cgroup: cgroup v2 is not mounted (mount -t cgroup2 "
				"none /sys/fs/cgroup, or /sys/fs/cgroup/unified beside v1)\n");
		return err;
	}
	for (size_t i = 0; i < cfg->ncgroups; i++) {
		why[0] = '\0';
		err = cgroup__resolve(&sc->roots, cfg->cgroups[i], &sc->cg[sc->ncg], why,
				      sizeof(why));
		if (err) {
			fprintf(stderr, "faultline: --cgroup %s: %s\n", cfg->cgroups[i],
				why[0] ? why : strerror(-err));
			return err;
		}
		sc->recon[sc->ncg].rel = sc->cg[sc->ncg].rel;
		sc->ncg++;
	}
	return 0;
}

int scope__give(const struct scope *sc, struct tracer *t)
{
	for (size_t i = 0; i < sc->ncg; i++) {
		int err = tracer__scope_cgroup(t, sc->cg[i].id);

		if (err) {
			fprintf(stderr, "faultline: cannot select cgroup %s: %s\n", sc->cg[i].rel,
				strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Every process of the host but faultline: the numeric entries of /proc. */
static int host_pids(pid_t **out, size_t *n)
{
	DIR *d = opendir("/proc");
	size_t cap = 0;
	struct dirent *e;
	pid_t *v;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		pid_t pid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)strtol(e->d_name, NULL, 10);
		if (pid == getpid())
			continue;
		v = grow__reserve(*out, &cap, *n, sizeof(*v));
		if (!v) {
			closedir(d);
			return -ENOMEM;
		}
		*out = v;
		v[(*n)++] = pid;
	}
	closedir(d);
	return 0;
}

/* Adds @pid, found in the scope now; a kernel thread (no VmRSS) or one gone is skipped. */
static bool admit(struct tracer *t, pid_t pid)
{
	struct proc_status st = { 0 };
	uint64_t ticks;

	if (pid == getpid() || procfs__read_status_keep_rollup(pid, &st) ||
	    procfs__read_start(pid, &ticks))
		return false;
	/* a thread id lists its process's status: only the process is a target */
	if (st.tgid && st.tgid != pid)
		return false;
	return tracer__admit(t, pid, &st, procfs__ns_of_ticks(ticks)) == 0;
}

size_t scope__admit_present(struct scope *sc, struct tracer *t, int verbose)
{
	pid_t *pids = NULL;
	size_t n = 0, added = 0;

	for (size_t i = 0; i < (sc->kind == FL_SCOPE_ALL ? 1 : sc->ncg); i++) {
		int err = sc->kind == FL_SCOPE_ALL ? host_pids(&pids, &n) :
						     cgroup__pids(sc->cg[i].path, &pids, &n);

		if (err && verbose)
			fprintf(stderr, "faultline: listing the processes of %s: %s\n",
				sc->kind == FL_SCOPE_ALL ? "/proc" : sc->cg[i].path,
				strerror(-err));
		for (size_t k = 0; k < n; k++)
			added += admit(t, pids[k]);
		free(pids);
		pids = NULL;
		n = 0;
	}
	sc->present = added;
	return added;
}

bool scope__still_there(struct scope *sc)
{
	for (size_t i = 0; i < sc->ncg && !sc->gone; i++) {
		if (cgroup__exists(&sc->cg[i]))
			continue;
		fprintf(stderr, "faultline: cgroup %s was removed: the session ends\n",
			sc->cg[i].rel);
		sc->gone = true;
	}
	return !sc->gone;
}

void scope__describe(const struct scope *sc, char *buf, size_t len)
{
	if (sc->kind == FL_SCOPE_ALL)
		snprintf(buf, len, "every process on the host");
	else if (sc->ncg > 1)
		snprintf(buf, len, "cgroup %s and %zu more", sc->cg[0].rel, sc->ncg - 1);
	else if (sc->ncg)
		snprintf(buf, len, "cgroup %s", sc->cg[0].rel);
	else
		snprintf(buf, len, "nothing");
}

void scope__read_start(struct scope *sc)
{
	for (size_t i = 0; i < sc->ncg; i++) {
		struct cgroup_recon *r = &sc->recon[i];

		r->have_start = !cgroup__read_mem(&sc->roots, &sc->cg[i], &r->start) &&
				r->start.version;
	}
}

void scope__reconcile(struct scope *sc, const struct fl_proc_summary *procs, size_t n,
		      const struct forgotten *forgotten)
{
	for (size_t i = 0; i < sc->ncg; i++) {
		struct cgroup_recon *r = &sc->recon[i];

		/* once removed, its last counters stay */
		if (!cgroup__read_mem(&sc->roots, &sc->cg[i], &r->now))
			r->have_now = r->now.version != 0;
		cgroup_recon__sum(r, procs, n, forgotten);
	}
}
