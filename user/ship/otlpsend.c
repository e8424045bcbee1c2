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

int ship__otlp(const struct pprof *p, const struct ship_meta *m, const struct ship_target *t,
	       struct ship_cost *c, char *why, size_t len)
{
	char url[2048];
	struct otlp_attr attrs[MAX_ATTRS];
	struct pb_buf body = {};
	uint8_t *gz = NULL;
	size_t gz_len = 0;
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
	err = ship__post(t, url, "application/x-protobuf", "gzip",
			 "otlp-profiles-development-version: 1", gz, gz_len, c, why, len);
	free(gz);
	return err;
}
