// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The profile as one OTLP/HTTP request: protobuf, gzip, the resource's attributes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/gzip.h"
#include "formats/otlp.h"
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

int ship__otlp_request(const struct pprof *p, const struct ship_meta *m,
		       const struct ship_target *t, struct ship_request *req, struct ship_cost *c,
		       char *why, size_t len)
{
	struct otlp_attr attrs[MAX_ATTRS];
	struct pb_buf body = {};
	uint8_t *gz = NULL;
	size_t gz_len = 0;
	int err;

	*req = (struct ship_request){ .type = "application/x-protobuf",
				      .encoding = "gzip",
				      .extra = "otlp-profiles-development-version: 1" };
	if (!ship__join_url(t->url, "/v1development/profiles", req->url, sizeof(req->url))) {
		snprintf(why, len, "the URL is too long");
		return -ENAMETOOLONG;
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
	req->body = gz;
	req->len = gz_len;
	return 0;
}
