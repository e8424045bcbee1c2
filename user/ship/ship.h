/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A session's profile shipped off the machine: to an OTLP/HTTP endpoint (ship__otlp) and to
 * Pyroscope's ingest API (ship__pyroscope), from the pprof model the --pprof file is made of.
 */
#ifndef FAULTLINE_SHIP_H
#define FAULTLINE_SHIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "formats/pprof.h"

#define FL_SHIP_MAX_HEADERS 16 /* the --otlp-header (or --pyroscope-header) given, at most */

/* Where to, and how. */
struct ship_target {
	const char *url;	    /* the endpoint's base, as the user gave it */
	const char *const *headers; /* "Name=value" each, as given */
	size_t nheaders;
	const char *ca_file; /* NULL: the system's CA store */
	long timeout_ms;
};

/* What the profile is of: the resource's attributes, Pyroscope's name and labels. NULL and 0
 * for what is not known (several processes have no one pid). */
struct ship_meta {
	const char *service; /* service.name */
	const char *host;    /* host.name */
	int64_t pid;	     /* process.pid */
	const char *exe_name, *exe_path;
	const char *cgroup;	  /* the target cgroup (--cgroup) */
	const char *container_id; /* --cgroup ID */
	int64_t start_ns, end_ns; /* the session's wall clock */
};

/* What a send cost, for -v and the benchmark: the encoded body, what went on the wire, and
 * the time each took. */
struct ship_cost {
	size_t encoded, sent; /* bytes */
	double encode_ms, send_ms;
};

/* Sends @p as one OTLP request to @t->url/v1development/profiles, its cost into @c. Returns 0,
 * or -EIO with the reason in @why; -ENOMEM. */
int ship__otlp(const struct pprof *p, const struct ship_meta *m, const struct ship_target *t,
	       struct ship_cost *c, char *why, size_t len);

/* Posts @p to @t->url/ingest as Pyroscope's multipart pprof, with a sample type config that
 * names each of its types. Returns as ship__otlp(). */
int ship__pyroscope(const struct pprof *p, const struct ship_meta *m, const struct ship_target *t,
		    struct ship_cost *c, char *why, size_t len);

/* Milliseconds on CLOCK_MONOTONIC, for ship_cost. */
double ship__now_ms(void);

/* The request of a sender: @body (@len bytes, of @type, @encoding or NULL) posted to @url with
 * @t's headers and @extra (a header line, or NULL), its time into @c->send_ms. Returns 0, or
 * -EIO with the reason in @why. */
int ship__post(const struct ship_target *t, const char *url, const char *type, const char *encoding,
	       const char *extra, const void *body, size_t len, struct ship_cost *c, char *why,
	       size_t wlen);

/* The curl header line "Name: value" of "Name=value" into @buf (at most @len bytes, cut). */
void ship__header_line(const char *kv, char *buf, size_t len);

/* @base + @path without a doubled slash, into @buf; false when it does not fit. */
bool ship__join_url(const char *base, const char *path, char *buf, size_t len);

#endif /* FAULTLINE_SHIP_H */
