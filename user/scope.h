/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * -a and --cgroup: a session whose targets are every process of the host, or of some cgroups,
 * including those that start or join during it (the BPF side decides: bpf/scope.bpf.h).
 */
#ifndef FAULTLINE_SCOPE_H
#define FAULTLINE_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include "base/cgroupfs.h"
#include "cli.h"
#include "model/cgroupmem.h"

struct tracer;

struct scope {
	uint32_t kind; /* enum fl_scope */
	struct cgroup_roots roots;
	struct cgroup_target cg[FL_MAX_CGROUP_SELECTORS];
	size_t ncg;
	struct cgroup_recon recon[FL_MAX_CGROUP_SELECTORS]; /* their counters beside their
							      * processes' */
	size_t present;					    /* processes found in it at the start */
	bool gone; /* a selected cgroup was removed: the session ends */
};

/* Resolves the selectors of @cfg into @sc. Returns 0, or -errno after one line on stderr
 * saying what is wrong (no such cgroup, not cgroup v2, no such unit or container). */
int scope__resolve(const struct fl_config *cfg, struct scope *sc);

/* Gives the tracer (loaded, not attached) the selected cgroups. Returns 0 or -errno. */
int scope__give(const struct scope *sc, struct tracer *t);

/* Makes the processes in the scope now targets (after the attach: one that forks or moves
 * meanwhile is the BPF side's already). Returns how many were added. */
size_t scope__admit_present(struct scope *sc, struct tracer *t, int verbose);

/* Reads each selected cgroup's memory counters as the session starts. */
void scope__read_start(struct scope *sc);

/* Reads them now and sums beside them the processes of @procs (@n), and the count of those
 * @forgotten (NULL: none), in each cgroup. */
void scope__reconcile(struct scope *sc, const struct fl_proc_summary *procs, size_t n,
		      const struct forgotten *forgotten);

/* True while every selected cgroup exists; says so once on stderr when one is removed. */
bool scope__still_there(struct scope *sc);

/* "every process on the host" or "cgroup /a/b (and N more)", for the header. */
void scope__describe(const struct scope *sc, char *buf, size_t len);

#endif /* FAULTLINE_SCOPE_H */
