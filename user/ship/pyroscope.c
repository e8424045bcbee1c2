// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * Pyroscope's ingest API: POST /ingest?name=APP{labels}&from=&until=&format=pprof with a
 * multipart body, the gzip'd pprof as the "profile" part and a "sample_type_config" part that
 * tells it the units of faultline's own sample types (it knows Go's alone). Both parts carry a
 * filename: Pyroscope reads them as files.
 */
#include "ship/pyroscope.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ship/ship.h"

/* @s percent-encoded (all but RFC 3986's unreserved characters) onto @out. */
static void url_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~", c))
			fputc(c, out);
		else
			fprintf(out, "%%%02X", c);
	}
}

int pyroscope__url(const struct ship_meta *m, const char *base, char *buf, size_t len)
{
	char *text = NULL, name[512];
	size_t n = 0;
	FILE *f;

	if (!ship__join_url(base, "/ingest?name=", buf, len))
		return -ENAMETOOLONG;
	snprintf(name, sizeof(name), "%s{%s%s}", m->service ? m->service : "faultline",
		 m->host ? "hostname=" : "", m->host ? m->host : "");
	f = open_memstream(&text, &n);
	if (!f)
		return -ENOMEM;
	fputs(buf, f);
	url_escape(f, name);
	fprintf(f, "&from=%" PRId64 "&until=%" PRId64 "&format=pprof&spyName=faultline",
		m->start_ns / 1000000000, (m->end_ns + 999999999) / 1000000000);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	if (n >= len) {
		free(text);
		return -ENAMETOOLONG;
	}
	memcpy(buf, text, n + 1);
	free(text);
	return 0;
}

/* One part of the form: its headers, @len bytes of @data, the line that ends it. */
static void part(FILE *f, const char *boundary, const char *name, const void *data, size_t len)
{
	fprintf(f,
		"--%s\r\nContent-Disposition: form-data; name=\"%s\"; filename=\"%s\"\r\n"
		"Content-Type: application/octet-stream\r\n\r\n",
		boundary, name, name);
	fwrite(data, 1, len, f);
	fputs("\r\n", f);
}

int pyroscope__body(const struct pprof *p, const char *boundary, char **body, size_t *len)
{
	char *pb = NULL, *cfg = NULL;
	size_t pb_len = 0, cfg_len = 0;
	FILE *f = open_memstream(&pb, &pb_len), *c;
	int err = f ? pprof__write_fast(f, p) : -ENOMEM;

	if (f && fclose(f) && !err)
		err = -ENOMEM;
	c = err ? NULL : open_memstream(&cfg, &cfg_len);
	if (c) {
		fputc('{', c);
		for (size_t i = 0; i < pprof__nr_types(p); i++) {
			const char *type, *unit;

			pprof__type(p, i, &type, &unit);
			fprintf(c,
				"%s\"%s\":{\"units\":\"%s\",\"aggregation\":\"sum\","
				"\"display-name\":\"%s\",\"sampled\":false}",
				i ? "," : "", type, strcmp(unit, "bytes") ? "objects" : "bytes",
				type);
		}
		fputc('}', c);
		if (fclose(c))
			err = -ENOMEM;
	} else if (!err) {
		err = -ENOMEM;
	}
	f = err ? NULL : open_memstream(body, len);
	if (f) {
		part(f, boundary, "profile", pb, pb_len);
		part(f, boundary, "sample_type_config", cfg, cfg_len);
		fprintf(f, "--%s--\r\n", boundary);
		if (fclose(f)) {
			free(*body);
			err = -ENOMEM;
		}
	} else if (!err) {
		err = -ENOMEM;
	}
	free(pb);
	free(cfg);
	return err;
}

int ship__pyroscope_request(const struct pprof *p, const struct ship_meta *m,
			    const struct ship_target *t, struct ship_request *req,
			    struct ship_cost *c, char *why, size_t len)
{
	char boundary[48], *body = NULL;
	size_t body_len = 0;
	int err;

	*req = (struct ship_request){ .len = 0 };
	snprintf(boundary, sizeof(boundary), "faultline-%016" PRIx64,
		 (uint64_t)m->end_ns ^ (uint64_t)0x9e3779b97f4a7c15);
	err = pyroscope__url(m, t->url, req->url, sizeof(req->url));
	if (err) {
		snprintf(why, len, "the URL is too long");
		return err;
	}
	c->encode_ms = ship__now_ms();
	err = pyroscope__body(p, boundary, &body, &body_len);
	c->encode_ms = ship__now_ms() - c->encode_ms;
	c->encoded = c->sent = body_len;
	if (err) {
		snprintf(why, len, "encoding the profile: %s", strerror(-err));
		return err;
	}
	snprintf(req->type, sizeof(req->type), "multipart/form-data; boundary=%s", boundary);
	req->body = body;
	req->len = body_len;
	return 0;
}
