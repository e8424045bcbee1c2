// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The profile as one OTLP/HTTP request: protobuf, gzip, the resource's attributes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/gzip.h"
#include "formats/otlp.h"
#include "ship/http.h"
#include "ship/ship.h"

#define MAX_ATTRS 8

/* The resource attributes of @m that are known, into @a; returns how many. */
static size_t resource_attrs(const struct ship_meta *m, struct otlp_attr *a)
{
	size_t n = 0;

	a[n++] = (struct otlp_attr){ "service.name", m->service ? m->service : "faultline", 0 };
	if (m->host)
		a[n++] = (struct otlp_attr){ "host.name", m->host, 0 };
	if (m->pid > 0)
		a[n++] = (struct otlp_attr){ "process.pid", NULL, m->pid };
	if (m->exe_name)
		a[n++] = (struct otlp_attr){ "process.executable.name", m->exe_name, 0 };
	if (m->exe_path)
		a[n++] = (struct otlp_attr){ "process.executable.path", m->exe_path, 0 };
	if (m->container_id)
		a[n++] = (struct otlp_attr){ "container.id", m->container_id, 0 };
	if (m->cgroup)
		a[n++] = (struct otlp_attr){ "process.linux.cgroup", m->cgroup, 0 };
	return n;
}

int ship__otlp(const struct pprof *p, const struct ship_meta *m, const struct ship_target *t,
	       struct ship_cost *c, char *why, size_t len)
{
	char url[2048], lines[FL_SHIP_MAX_HEADERS][512];
	const char *headers[FL_SHIP_MAX_HEADERS + 2];
	struct otlp_attr attrs[MAX_ATTRS];
	struct pb_buf body = {};
	struct http_result res;
	uint8_t *gz = NULL;
	size_t gz_len = 0, nh = 0;
	int err;

	if (!ship__join_url(t->url, "/v1development/profiles", url, sizeof(url))) {
		snprintf(why, len, "the URL is too long");
		return -EIO;
	}
	c->encode_ms = ship__now_ms();
	err = otlp__encode(p, attrs, resource_attrs(m, attrs), &body);
	if (!err)
		err = gzip__compress(body.data, body.len, &gz, &gz_len);
	c->encoded = body.len;
	c->sent = gz_len;
	c->encode_ms = ship__now_ms() - c->encode_ms;
	pb__reset(&body);
	if (err) {
		snprintf(why, len, "encoding the profile: %s", strerror(-err));
		return err;
	}
	for (size_t i = 0; i < t->nheaders && i < FL_SHIP_MAX_HEADERS; i++) {
		ship__header_line(t->headers[i], lines[i], sizeof(lines[i]));
		headers[nh++] = lines[i];
	}
	headers[nh++] = "otlp-profiles-development-version: 1";
	headers[nh] = NULL;
	c->send_ms = ship__now_ms();
	err = http__post(&(struct http_post){ .url = url,
					      .content_type = "application/x-protobuf",
					      .content_encoding = "gzip",
					      .headers = headers,
					      .body = gz,
					      .len = gz_len,
					      .ca_file = t->ca_file,
					      .timeout_ms = t->timeout_ms },
			 &res);
	c->send_ms = ship__now_ms() - c->send_ms;
	free(gz);
	if (err)
		snprintf(why, len, "%s", res.error);
	return err;
}
