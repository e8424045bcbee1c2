// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * --otlp and --pyroscope: what the profile is of (the service, the host, the one process or
 * the cgroup), and its sends: at the end, or (--every) a window at a time through a queue per
 * endpoint; each bounded in time, each failure said.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/cgroupfs.h"
#include "base/procfs.h"
#include "probes/launch.h"
#include "session_state.h"
#include "ship/http.h"
#include "ship/queue.h"
#include "ship/ship.h"
#include "snapshot.h"

/* A send waits at most this long for the endpoint: a session's end is never held longer. */
#define SHIP_TIMEOUT_MS 20000
/* --every: the windows that wait for an endpoint that is down or slow, at most */
#define SHIP_QUEUE 8

/* The name of the unit or cgroup a --cgroup selector names: its last path element. */
static const char *selector_name(const char *sel)
{
	const char *slash = strrchr(sel, '/');

	return slash && slash[1] ? slash + 1 : sel;
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
		if (cgroupfs__is_container_id(cfg->cgroups[0]))
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

typedef int request_fn(const struct pprof *, const struct ship_meta *, const struct ship_target *,
		       struct ship_request *, struct ship_cost *, char *, size_t);

/* An endpoint given, its request maker, and (--every) its queue. */
struct endpoint {
	const char *what; /* the option */
	request_fn *make;
	struct ship_target target;
};

static size_t endpoints(const struct fl_config *cfg, struct endpoint out[2])
{
	const struct fl_ship_config *c = &cfg->ship;
	size_t n = 0;

	if (c->otlp)
		out[n++] = (struct endpoint){ "--otlp",
					      ship__otlp_request,
					      { .url = c->otlp,
						.headers = c->otlp_headers,
						.nheaders = c->notlp_headers,
						.ca_file = c->ca_file,
						.timeout_ms = SHIP_TIMEOUT_MS } };
	if (c->pyroscope)
		out[n++] = (struct endpoint){ "--pyroscope",
					      ship__pyroscope_request,
					      { .url = c->pyroscope,
						.headers = c->pyroscope_headers,
						.nheaders = c->npyroscope_headers,
						.ca_file = c->ca_file,
						.timeout_ms = SHIP_TIMEOUT_MS } };
	return n;
}

/* Sends @p to @e now; a failure is one line. Returns 0 or -EIO. */
static int send_now(const struct endpoint *e, const struct pprof *p, const struct ship_meta *m,
		    int verbose)
{
	struct ship_request req;
	struct ship_cost c = {};
	char why[320];
	int err = e->make(p, m, &e->target, &req, &c, why, sizeof(why));

	if (!err)
		err = ship__send(&e->target, &req, &c, why, sizeof(why));
	ship__request_free(&req);
	if (err)
		fprintf(stderr, "faultline: %s %s: sending the profile failed: %s\n", e->what,
			e->target.url, why);
	else if (verbose)
		fprintf(stderr,
			"faultline: %s %s: profile sent: %zu samples, %zu KiB (%zu KiB encoded); "
			"encoded in %.1f ms, sent in %.1f ms\n",
			e->what, e->target.url, pprof__nr_samples(p), (c.sent + 1023) / 1024,
			(c.encoded + 1023) / 1024, c.encode_ms, c.send_ms);
	return err ? -EIO : 0;
}

int session__ship_ready(const struct session *s)
{
	struct endpoint e[2];
	char why[256];

	if (!endpoints(s->cfg, e) || !http__ready(why, sizeof(why)))
		return 0;
	fprintf(stderr, "faultline: %s needs an HTTP client: %s\n", e[0].what, why);
	return -ENOSYS;
}

/* A look at the endpoint waits this long at most. */
#define REACH_TIMEOUT_MS 3000

void session__ship_check(const struct session *s)
{
	struct endpoint e[2];
	size_t n = endpoints(s->cfg, e);
	char why[320];

	for (size_t i = 0; i < n; i++)
		if (http__reach(e[i].target.url, e[i].target.ca_file, REACH_TIMEOUT_MS, why,
				sizeof(why)))
			fprintf(stderr, "faultline: warning: %s %s: not reachable now (%s); %s\n",
				e[i].what, e[i].target.url, why,
				s->cfg->ship.every_s > 0 ?
					"each window waits in a queue and is tried again" :
					"the profile is sent at the end all the same");
}

int session__ship(struct session *s, const struct snapshot *snap)
{
	char host[HOST_NAME_MAX + 1], exe[PATH_MAX];
	struct endpoint e[2];
	size_t n = endpoints(s->cfg, e);
	struct ship_meta m = {};
	int err = 0;

	if (!n || !snap->pprof)
		return 0;
	fill_meta(s, &m, host, sizeof(host), exe, sizeof(exe));
	m.end_ns = snapshot__stamp_pprof(snap);
	m.start_ns = m.end_ns - (int64_t)(snap->report.elapsed_s * 1e9);
	for (size_t i = 0; i < n; i++)
		err = send_now(&e[i], snap->pprof, &m, s->cfg->verbose) ?: err;
	return err;
}

int session__ship_window(struct session *s, const struct snapshot *snap, int64_t start_ns,
			 int64_t end_ns)
{
	char host[HOST_NAME_MAX + 1], exe[PATH_MAX], why[320];
	struct endpoint e[2];
	size_t n = endpoints(s->cfg, e);
	struct ship_meta m = { .start_ns = start_ns, .end_ns = end_ns };

	if (!n || !snap->pprof)
		return 0;
	fill_meta(s, &m, host, sizeof(host), exe, sizeof(exe));
	pprof__set_time(snap->pprof, start_ns, end_ns - start_ns);
	for (size_t i = 0; i < n; i++) {
		struct ship_request req;
		struct ship_cost c = {};

		if (!s->queues[i] && !(s->queues[i] = ship_queue__new(&e[i].target, SHIP_QUEUE)))
			return -errno;
		if (e[i].make(snap->pprof, &m, &e[i].target, &req, &c, why, sizeof(why))) {
			fprintf(stderr, "faultline: %s %s: a window not made: %s\n", e[i].what,
				e[i].target.url, why);
			ship__request_free(&req);
			continue;
		}
		if (s->cfg->verbose)
			fprintf(stderr,
				"faultline: %s %s: window of %.1f s: %zu samples, %zu KiB, "
				"encoded in %.1f ms\n",
				e[i].what, e[i].target.url, (end_ns - start_ns) / 1e9,
				pprof__nr_samples(snap->pprof), (c.sent + 1023) / 1024,
				c.encode_ms);
		ship_queue__push(s->queues[i], &req);
	}
	return 0;
}

void session__ship_status(struct session *s, struct fl_report *r)
{
	struct endpoint e[2];
	size_t n = endpoints(s->cfg, e);

	r->nendpoints = 0;
	for (size_t i = 0; i < n; i++) {
		struct report_endpoint *re = &r->endpoints[r->nendpoints];
		struct ship_stats st;

		if (!s->queues[i])
			continue;
		ship_queue__stats(s->queues[i], &st);
		*re = (struct report_endpoint){ .option = e[i].what,
						.url = e[i].target.url,
						.sent = st.sent,
						.lost = st.lost,
						.waiting = st.waiting,
						.retries = st.retries };
		snprintf(re->last_error, sizeof(re->last_error), "%s", st.last_error);
		r->nendpoints++;
	}
}

int session__ship_finish(struct session *s)
{
	struct endpoint e[2];
	size_t n = endpoints(s->cfg, e);
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		struct ship_stats st = {};

		if (!s->queues[i])
			continue;
		ship_queue__finish(s->queues[i], SHIP_TIMEOUT_MS, &st);
		s->queues[i] = NULL;
		fprintf(stderr,
			"faultline: %s %s: %" PRIu64 " windows sent, %" PRIu64 " lost%s%s\n",
			e[i].what, e[i].target.url, st.sent, st.lost,
			st.last_error[0] ? "; last failure: " : "", st.last_error);
		if (st.lost)
			err = -EIO;
	}
	return err;
}
