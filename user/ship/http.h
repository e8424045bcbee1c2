/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * HTTP POST through libcurl: TLS with the system's CA store (or a bundle given), proxies from
 * the environment (https_proxy, no_proxy) as curl takes them, and a bound on every request,
 * so that a slow or silent server costs a known time and never a hang.
 */
#ifndef FAULTLINE_HTTP_H
#define FAULTLINE_HTTP_H

#include <stdbool.h>
#include <stddef.h>

struct http_post {
	const char *url;
	const char *content_type;
	const char *content_encoding; /* NULL: the body is sent as it is */
	const char *const *headers;   /* "Name: value" each, NULL-terminated; NULL: none */
	const void *body;
	size_t len;
	const char *ca_file; /* a CA bundle to verify https with; NULL: the system's */
	long timeout_ms;     /* the whole request, connection included */
};

struct http_result {
	long status;	 /* the HTTP status; 0 when no answer came */
	char error[256]; /* why it failed: curl's words, or the status and the answer's start */
};

/* Whether the HTTP client is there (libcurl, loaded on the first call): 0, or -ENOSYS with
 * the reason in @why. */
int http__ready(char *why, size_t len);

/* Sends @req. Returns 0 when the server answered 2xx, else -EIO with @res saying why. */
int http__post(const struct http_post *req, struct http_result *res);

/* Connects to @url's host (and shakes hands for https, with @ca_file), sending nothing, within
 * @timeout_ms. Returns 0, or -EIO with curl's words in @why. */
int http__reach(const char *url, const char *ca_file, long timeout_ms, char *why, size_t len);

/* True when @url is one http__post() can send to: http:// or https://, then a host. Else
 * false with the reason in @why. */
bool http__url_ok(const char *url, char *why, size_t len);

#endif /* FAULTLINE_HTTP_H */
