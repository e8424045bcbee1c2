// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * The end of a session with --otlp or --pyroscope: what the profile is of (the service, the
 * host, the one process or the cgroup) and the sends, each bounded in time, each failure said.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/procfs.h"
#include "probes/launch.h"
#include "session_state.h"
#include "ship/http.h"
#include "ship/ship.h"
#include "snapshot.h"

/* A send waits at most this long for the endpoint: a session's end is never held longer. */
#define SHIP_TIMEOUT_MS 20000

/* The name of the unit or cgroup a --cgroup selector names: its last path element. */
static const char *selector_name(const char *sel)
{
	const char *slash = strrchr(sel, '/');

	return slash && slash[1] ? slash + 1 : sel;
}

/* True when @sel is a container id (--cgroup ID: hex digits only). */
static bool is_container_id(const char *sel)
{
	size_t n = strspn(sel, "0123456789abcdef");

	return n >= 12 && !sel[n];
}

static void fill_meta(const struct session *s, struct ship_meta *m, char *host, size_t hlen,
		      char *exe, size_t elen)
{
	const struct fl_config *cfg = s->cfg;
	/* one process: the one -p gave, or the command launched, with no -f's children */
	bool one = s->targets.n == 1 && !cfg->children && !cfg->all && !cfg->ncgroups;
	const struct target *t = s->targets.n ? &s->targets.v[0] : NULL;

	if (!gethostname(host, hlen))
		m->host = host;
	if (cfg->ncgroups) {
		m->cgroup = s->scope.ncg ? s->scope.cg[0].rel : NULL;
		if (is_container_id(cfg->cgroups[0]))
			m->container_id = cfg->cgroups[0];
	}
	if (one) {
		char path[PATH_MAX];

		m->pid = t->sum.pid;
		m->exe_name = t->sum.comm[0] ? t->sum.comm : NULL;
		m->exe_path = procfs__readlink(t->sum.pid, "exe", exe, elen) ? NULL : exe;
		/* a launched command gone by now: the file it was started from */
		if (!m->exe_path && cfg->command &&
		    !launch__resolve(cfg->command[0], path, sizeof(path)) && realpath(path, exe))
			m->exe_path = exe;
	}
	m->service = cfg->ship.service;
	if (!m->service && cfg->ncgroups)
		m->service = selector_name(cfg->cgroups[0]);
	else if (!m->service && t && t->sum.comm[0])
		m->service = t->sum.comm;
	else if (!m->service)
		m->service = cfg->all ? "host" : "faultline";
}

typedef int sender(const struct pprof *, const struct ship_meta *, const struct ship_target *,
		   struct ship_cost *, char *, size_t);

static int send_one(const char *what, sender *send, const struct pprof *p,
		    const struct ship_meta *m, const struct ship_target *t, int verbose)
{
	struct ship_cost c = {};
	char why[320];
	int err = send(p, m, t, &c, why, sizeof(why));

	if (err)
		fprintf(stderr, "faultline: %s %s: sending the profile failed: %s\n", what, t->url,
			why);
	else if (verbose)
		fprintf(stderr,
			"faultline: %s %s: profile sent: %zu samples, %zu KiB (%zu KiB encoded); "
			"encoded in %.1f ms, sent in %.1f ms\n",
			what, t->url, pprof__nr_samples(p), (c.sent + 1023) / 1024,
			(c.encoded + 1023) / 1024, c.encode_ms, c.send_ms);
	return err ? -EIO : 0;
}

/* A look at the endpoint waits this long at most. */
#define REACH_TIMEOUT_MS 3000

static void check_one(const char *what, const char *url, const char *ca_file)
{
	char why[320];

	if (url && http__reach(url, ca_file, REACH_TIMEOUT_MS, why, sizeof(why)))
		fprintf(stderr,
			"faultline: warning: %s %s: not reachable now (%s); the profile is sent at "
			"the end all the same\n",
			what, url, why);
}

void session__ship_check(const struct session *s)
{
	const struct fl_ship_config *c = &s->cfg->ship;

	check_one("--otlp", c->otlp, c->ca_file);
	check_one("--pyroscope", c->pyroscope, c->ca_file);
}

int session__ship(struct session *s, const struct snapshot *snap)
{
	const struct fl_ship_config *c = &s->cfg->ship;
	char host[HOST_NAME_MAX + 1], exe[PATH_MAX];
	struct ship_meta m = {};
	int err = 0;

	if ((!c->otlp && !c->pyroscope) || !snap->pprof)
		return 0;
	fill_meta(s, &m, host, sizeof(host), exe, sizeof(exe));
	m.end_ns = snapshot__stamp_pprof(snap);
	m.start_ns = m.end_ns - (int64_t)(snap->report.elapsed_s * 1e9);
	if (c->otlp)
		err = send_one("--otlp", ship__otlp, snap->pprof, &m,
			       &(struct ship_target){ .url = c->otlp,
						      .headers = c->otlp_headers,
						      .nheaders = c->notlp_headers,
						      .ca_file = c->ca_file,
						      .timeout_ms = SHIP_TIMEOUT_MS },
			       s->cfg->verbose);
	if (c->pyroscope)
		err = send_one("--pyroscope", ship__pyroscope, snap->pprof, &m, &(struct ship_target){ .url = c->pyroscope, .headers = c->pyroscope_headers, .nheaders = c->npyroscope_headers, .ca_file = c->ca_file, .timeout_ms = SHIP_TIMEOUT_MS }, s->cfg->verbose) ?:
			      err;
	return err;
}
