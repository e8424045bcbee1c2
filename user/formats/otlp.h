/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * OpenTelemetry's profiles signal (opentelemetry-proto v1.11.0, profiles.v1development): the
 * pprof model (pprof.h) encoded as an ExportProfilesServiceRequest, what an OTLP receiver
 * (an OpenTelemetry Collector, Pyroscope) takes at POST /v1development/profiles.
 */
#ifndef FAULTLINE_OTLP_H
#define FAULTLINE_OTLP_H

#include <stddef.h>
#include <stdint.h>
#include "formats/pprof.h"
#include "formats/protobuf.h"

/* A resource attribute (service.name, host.name...): a string, or an integer when @str is
 * NULL. */
struct otlp_attr {
	const char *key;
	const char *str;
	int64_t num;
};

/*
 * Encodes @p into @out (not compressed): one resource holding @attrs, one scope (faultline and
 * its version), one Profile per sample type of @p with the samples whose value of that type is
 * not 0, and the dictionary they all index: mappings, locations, functions, stacks, strings,
 * and the samples' attributes (process.pid, thread.id, thread.name, process.executable.name,
 * process.linux.cgroup). Entry 0 of every table is the zero value, as the format requires.
 * Returns 0 or -ENOMEM.
 */
int otlp__encode(const struct pprof *p, const struct otlp_attr *attrs, size_t nattrs,
		 struct pb_buf *out);

#endif /* FAULTLINE_OTLP_H */
