// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "ship/http.h"
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The start of the server's answer, for the error line of a refused request. */
struct answer {
	char text[160];
	size_t len;
};

static size_t keep_answer(char *data, size_t size, size_t n, void *ctx)
{
	struct answer *a = ctx;
	size_t room = sizeof(a->text) - 1 - a->len, len = size * n;

	if (room) {
		memcpy(a->text + a->len, data, len < room ? len : room);
		a->len += len < room ? len : room;
		a->text[a->len] = '\0';
	}
	return len;
}

/* @s with control characters (newlines of an HTML page) as spaces, for one line of output. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (iscntrl((unsigned char)*s))
			*s = ' ';
}

int http__post(const struct http_post *req, struct http_result *res)
{
	char curl_err[CURL_ERROR_SIZE] = "", encoding[96], type[128];
	struct curl_slist *headers = NULL, *h;
	struct answer a = { .len = 0 };
	CURL *c = curl_easy_init();
	CURLcode rc;

	res->status = 0;
	res->error[0] = '\0';
	if (!c) {
		snprintf(res->error, sizeof(res->error), "the HTTP client could not start");
		return -EIO;
	}
	snprintf(type, sizeof(type), "Content-Type: %s", req->content_type);
	headers = curl_slist_append(headers, type);
	if (req->content_encoding) {
		snprintf(encoding, sizeof(encoding), "Content-Encoding: %s", req->content_encoding);
		headers = headers ? curl_slist_append(headers, encoding) : NULL;
	}
	/* no "Expect: 100-continue" round trip before the body */
	headers = headers ? curl_slist_append(headers, "Expect:") : NULL;
	for (size_t i = 0; headers && req->headers && req->headers[i]; i++)
		headers = (h = curl_slist_append(headers, req->headers[i])) ? h : NULL;
	if (!headers) {
		curl_easy_cleanup(c);
		snprintf(res->error, sizeof(res->error), "out of memory");
		return -EIO;
	}
	curl_easy_setopt(c, CURLOPT_URL, req->url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "faultline/" FAULTLINE_VERSION);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, req->timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, req->timeout_ms);
	/* a thread of a multi-threaded program: no signals for timeouts */
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_answer);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &a);
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85 */
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	if (req->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, req->ca_file);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
	curl_slist_free_all(headers);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK) {
		snprintf(res->error, sizeof(res->error), "%s",
			 curl_err[0] ? curl_err : curl_easy_strerror(rc));
		return -EIO;
	}
	if (res->status >= 200 && res->status < 300)
		return 0;
	one_line(a.text);
	snprintf(res->error, sizeof(res->error), "HTTP %ld%s%s", res->status, a.len ? ": " : "",
		 a.text);
	return -EIO;
}

int http__reach(const char *url, const char *ca_file, long timeout_ms, char *why, size_t len)
{
	char curl_err[CURL_ERROR_SIZE] = "";
	CURL *c = curl_easy_init();
	CURLcode rc;

	if (!c) {
		snprintf(why, len, "the HTTP client could not start");
		return -EIO;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	if (ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, ca_file);
	rc = curl_easy_perform(c);
	curl_easy_cleanup(c);
	if (rc == CURLE_OK)
		return 0;
	snprintf(why, len, "%s", curl_err[0] ? curl_err : curl_easy_strerror(rc));
	return -EIO;
}

bool http__url_ok(const char *url, char *why, size_t len)
{
	const char *host = NULL;

	if (!strncmp(url, "http://", 7))
		host = url + 7;
	else if (!strncmp(url, "https://", 8))
		host = url + 8;
	if (!host) {
		snprintf(why, len, "it needs a scheme: http://%s or https://%s", url, url);
		return false;
	}
	if (!*host || *host == '/') {
		snprintf(why, len, "no host after the scheme");
		return false;
	}
	return true;
}
