// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* What both senders share: headers as curl takes them, URLs joined. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ship/http.h"
#include "ship/ship.h"

void ship__header_line(const char *kv, char *buf, size_t len)
{
	const char *eq = strchr(kv, '=');
	int klen = eq ? (int)(eq - kv) : (int)strlen(kv);

	snprintf(buf, len, "%.*s: %s", klen, kv, eq ? eq + 1 : "");
}

double ship__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int ship__send(const struct ship_target *t, const struct ship_request *req, struct ship_cost *c,
	       char *why, size_t wlen)
{
	char lines[FL_SHIP_MAX_HEADERS][512];
	const char *headers[FL_SHIP_MAX_HEADERS + 2];
	struct http_result res;
	size_t nh = 0;
	int err;

	for (size_t i = 0; i < t->nheaders && i < FL_SHIP_MAX_HEADERS; i++) {
		ship__header_line(t->headers[i], lines[i], sizeof(lines[i]));
		headers[nh++] = lines[i];
	}
	if (req->extra)
		headers[nh++] = req->extra;
	headers[nh] = NULL;
	c->send_ms = ship__now_ms();
	err = http__post(&(struct http_post){ .url = req->url,
					      .content_type = req->type,
					      .content_encoding = req->encoding,
					      .headers = headers,
					      .body = req->body,
					      .len = req->len,
					      .ca_file = t->ca_file,
					      .timeout_ms = t->timeout_ms },
			 &res);
	c->send_ms = ship__now_ms() - c->send_ms;
	if (err)
		snprintf(why, wlen, "%s", res.error);
	return err;
}

void ship__request_free(struct ship_request *req)
{
	free(req->body);
	req->body = NULL;
	req->len = 0;
}

bool ship__join_url(const char *base, const char *path, char *buf, size_t len)
{
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	return (size_t)snprintf(buf, len, "%.*s%s", (int)n, base, path) < len;
}
