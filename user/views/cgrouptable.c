// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "views/cgrouptable.h"
#include "base/units.h"

#define LABEL 24

static const int members[3] = { FL_ANON, FL_FILE, FL_SHMEM };

/* One row of anon, file, shmem (signed or not), and with @kernel, kernel and total. */
static void row(FILE *out, unsigned width, const char *label, const int64_t v[3], bool sign,
		const int64_t *kernel, const int64_t *total)
{
	char b[5][UNITS_BUF] = { "", "", "", "", "" };

	for (int i = 0; i < 5; i++) {
		const int64_t *x = i < 3 ? &v[i] : i == 3 ? kernel : total;

		if (!x)
			continue;
		if (sign)
			units__sbytes(b[i], sizeof(b[i]), *x);
		else
			units__bytes(b[i], sizeof(b[i]), *x < 0 ? 0 : (uint64_t)*x);
	}
	if (!kernel && !total)
		units__emit(out, width, "  %-*s%11s%11s%11s", LABEL, label, b[0], b[1], b[2]);
	else
		units__emit(out, width, "  %-*s%11s%11s%11s%11s%11s", LABEL, label, b[0], b[1],
			    b[2], b[3], b[4]);
}

void cgrouptable__render(FILE *out, unsigned width, const struct cgroup_recon *r)
{
	int64_t start[3], now[3], change[3], kern[3], net[3], rest[3], k0, k1, dk, t0, t1, dt;

	units__emit(out, width, "cgroup %s: %zu processes traced, %zu alive%s%s", r->rel, r->nprocs,
		    r->alive,
		    r->have_now ? ", counters of " :
				  " (no memory counters: no memory controller "
				  "on it)",
		    r->have_now ? r->now.source : "");
	for (int i = 0; i < 3; i++) {
		kern[i] = r->procs_kern[members[i]];
		net[i] = r->procs_net[members[i]];
	}
	units__emit(out, width, "  %-*s%11s%11s%11s%11s%11s", LABEL, "", "anon", "file", "shmem",
		    "kernel", "total");
	if (r->have_start && r->have_now) {
		k0 = (int64_t)r->start.kernel;
		k1 = (int64_t)r->now.kernel;
		t0 = (int64_t)r->start.current;
		t1 = (int64_t)r->now.current;
		dk = k1 - k0;
		dt = t1 - t0;
		for (int i = 0; i < 3; i++) {
			start[i] = (int64_t)cgroup_mem__member(&r->start, members[i]);
			now[i] = (int64_t)cgroup_mem__member(&r->now, members[i]);
			change[i] = cgroup_recon__change(r, members[i]);
			rest[i] = change[i] - net[i];
		}
		row(out, width, "cgroup at start", start, false, r->start.have_kernel ? &k0 : NULL,
		    &t0);
		row(out, width, "cgroup now", now, false, r->now.have_kernel ? &k1 : NULL, &t1);
		row(out, width, "cgroup change", change, true,
		    r->start.have_kernel && r->now.have_kernel ? &dk : NULL, &dt);
	}
	row(out, width, "living processes' RSS", kern, true, NULL, NULL);
	row(out, width, "faultline net", net, true, NULL, NULL);
	if (!r->have_start || !r->have_now)
		return;
	row(out, width, "cgroup - faultline", rest, true, NULL, NULL);
	units__emit(
		out, width,
		"  (beyond its processes' RSS: page cache no process maps, kernel memory, pages "
		"of processes not traced or gone)");
}
