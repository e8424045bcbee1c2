// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * libcurl is loaded with dlopen when a session first ships, as libdebuginfod is: linked in,
 * it and the 30 libraries it brings (TLS, Kerberos, LDAP, IDN) cost every start-up 5 ms,
 * and most sessions send nothing. Its header gives the functions' types.
 */
#include "ship/http.h"
#include <ctype.h>
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static struct {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
	bool loaded;
	char why[160]; /* why not */
} curl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void load_curl(void)
{
	static const char *const names[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };
	void *h = NULL;

	for (size_t i = 0; !h && i < sizeof(names) / sizeof(names[0]); i++) {
		h = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
		if (!h && !i) /* the first's reason: the package installed with faultline's */
			snprintf(curl.why, sizeof(curl.why), "%s", dlerror());
	}
	if (!h)
		return;
	snprintf(curl.why, sizeof(curl.why), "a function is missing or its setup failed");
	*(void **)&curl.global_init = dlsym(h, "curl_global_init");
	*(void **)&curl.easy_init = dlsym(h, "curl_easy_init");
	*(void **)&curl.easy_setopt = dlsym(h, "curl_easy_setopt");
	*(void **)&curl.easy_perform = dlsym(h, "curl_easy_perform");
	*(void **)&curl.easy_getinfo = dlsym(h, "curl_easy_getinfo");
	*(void **)&curl.easy_cleanup = dlsym(h, "curl_easy_cleanup");
	*(void **)&curl.easy_strerror = dlsym(h, "curl_easy_strerror");
	*(void **)&curl.slist_append = dlsym(h, "curl_slist_append");
	*(void **)&curl.slist_free_all = dlsym(h, "curl_slist_free_all");
	/* the global setup is not thread-safe: once, here, rather than by a first easy_init
	 * on whichever thread sends first; never dlclose'd, its exit handlers need its code */
	curl.loaded = curl.global_init && curl.easy_init && curl.easy_setopt && curl.easy_perform &&
		      curl.easy_getinfo && curl.easy_cleanup && curl.easy_strerror &&
		      curl.slist_append && curl.slist_free_all &&
		      curl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

int http__ready(char *why, size_t len)
{
	pthread_once(&curl_once, load_curl);
	if (curl.loaded)
		return 0;
	snprintf(why, len, "libcurl (libcurl4) cannot be loaded: %s", curl.why);
	return -ENOSYS;
}

/* A new handle, or NULL with the reason in @why. */
static CURL *start(char *why, size_t len)
{
	CURL *c;

	if (http__ready(why, len))
		return NULL;
	c = curl.easy_init();
	if (!c)
		snprintf(why, len, "the HTTP client could not start");
	return c;
}

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
	CURL *c;
	CURLcode rc;

	res->status = 0;
	res->error[0] = '\0';
	c = start(res->error, sizeof(res->error));
	if (!c)
		return -EIO;
	snprintf(type, sizeof(type), "Content-Type: %s", req->content_type);
	headers = curl.slist_append(headers, type);
	if (req->content_encoding) {
		snprintf(encoding, sizeof(encoding), "Content-Encoding: %s", req->content_encoding);
		headers = headers ? curl.slist_append(headers, encoding) : NULL;
	}
	/* no "Expect: 100-continue" round trip before the body */
	headers = headers ? curl.slist_append(headers, "Expect:") : NULL;
	for (size_t i = 0; headers && req->headers && req->headers[i]; i++)
		headers = (h = curl.slist_append(headers, req->headers[i])) ? h : NULL;
	if (!headers) {
		curl.easy_cleanup(c);
		snprintf(res->error, sizeof(res->error), "out of memory");
		return -EIO;
	}
	curl.easy_setopt(c, CURLOPT_URL, req->url);
	curl.easy_setopt(c, CURLOPT_POST, 1L);
	curl.easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
	curl.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->len);
	curl.easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl.easy_setopt(c, CURLOPT_USERAGENT, "faultline/" FAULTLINE_VERSION);
	curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, req->timeout_ms);
	curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, req->timeout_ms);
	/* a thread of a multi-threaded program: no signals for timeouts */
	curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl.easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_answer);
	curl.easy_setopt(c, CURLOPT_WRITEDATA, &a);
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85 */
	curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl.easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	if (req->ca_file)
		curl.easy_setopt(c, CURLOPT_CAINFO, req->ca_file);
	rc = curl.easy_perform(c);
	if (rc == CURLE_OK)
		curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
	curl.slist_free_all(headers);
	curl.easy_cleanup(c);
	if (rc != CURLE_OK) {
		snprintf(res->error, sizeof(res->error), "%s",
			 curl_err[0] ? curl_err : curl.easy_strerror(rc));
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
	CURL *c = start(why, len);
	CURLcode rc;

	if (!c)
		return -EIO;
	curl.easy_setopt(c, CURLOPT_URL, url);
	curl.easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
	curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl.easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	if (ca_file)
		curl.easy_setopt(c, CURLOPT_CAINFO, ca_file);
	rc = curl.easy_perform(c);
	curl.easy_cleanup(c);
	if (rc == CURLE_OK)
		return 0;
	snprintf(why, len, "%s", curl_err[0] ? curl_err : curl.easy_strerror(rc));
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
