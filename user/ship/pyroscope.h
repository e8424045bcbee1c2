/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The pieces of a Pyroscope ingest request (pyroscope.c), apart for the unit tests. */
#ifndef FAULTLINE_PYROSCOPE_H
#define FAULTLINE_PYROSCOPE_H

#include <stddef.h>
#include "formats/pprof.h"
#include "ship/ship.h"

/* @base/ingest?name=SERVICE{hostname=HOST}&from=&until=&format=pprof&spyName=faultline, the
 * name percent-encoded, into @buf. Returns 0, -ENAMETOOLONG or -ENOMEM. */
int pyroscope__url(const struct ship_meta *m, const char *base, char *buf, size_t len);

/* The multipart body (parts "profile": the gzip'd pprof, "sample_type_config": JSON) with
 * @boundary, into a new *@body (free() it) of *@len bytes. Returns 0 or -ENOMEM. */
int pyroscope__body(const struct pprof *p, const char *boundary, char **body, size_t *len);

#endif /* FAULTLINE_PYROSCOPE_H */
