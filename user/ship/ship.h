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

/* A request made, to be posted (now, or later from a queue). */
struct ship_request {
	char url[4096];
	char type[96];	      /* Content-Type */
	const char *encoding; /* Content-Encoding, or NULL */
	const char *extra;    /* a header line of the format's own, or NULL */
	void *body;	      /* owned */
	size_t len;
};

/* Makes the OTLP request of @p: to @t->url/v1development/profiles, protobuf, gzip. Returns 0,
 * or -errno with the reason in @why; the encoding's cost into @c. */
int ship__otlp_request(const struct pprof *p, const struct ship_meta *m,
		       const struct ship_target *t, struct ship_request *req, struct ship_cost *c,
		       char *why, size_t len);

/* Makes Pyroscope's request of @p: to @t->url/ingest, the multipart pprof with a sample type
 * config that names each of its types. Returns as ship__otlp_request(). */
int ship__pyroscope_request(const struct pprof *p, const struct ship_meta *m,
			    const struct ship_target *t, struct ship_request *req,
			    struct ship_cost *c, char *why, size_t len);

/* Posts @req with @t's headers, its time into @c->send_ms. Returns 0, or -EIO with the reason
 * in @why. */
int ship__send(const struct ship_target *t, const struct ship_request *req, struct ship_cost *c,
	       char *why, size_t len);

void ship__request_free(struct ship_request *req);

/* Milliseconds on CLOCK_MONOTONIC, for ship_cost. */
double ship__now_ms(void);

/* The curl header line "Name: value" of "Name=value" into @buf (at most @len bytes, cut). */
void ship__header_line(const char *kv, char *buf, size_t len);

/* @base + @path without a doubled slash, into @buf; false when it does not fit. */
bool ship__join_url(const char *base, const char *path, char *buf, size_t len);

#endif /* FAULTLINE_SHIP_H */
