/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* What the senders build before any byte goes out: URLs, header lines, Pyroscope's request. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ship/http.h"
#include "ship/pyroscope.h"
#include "ship/ship.h"

Test(ship, urls_need_a_scheme_and_a_host)
{
	char why[160];

	cr_expect(http__url_ok("http://127.0.0.1:4318", why, sizeof(why)));
	cr_expect(http__url_ok("https://otlp.example.com/otlp", why, sizeof(why)));
	cr_expect_not(http__url_ok("collector:4318", why, sizeof(why)));
	cr_expect_str_eq(why, "it needs a scheme: http://collector:4318 or https://collector:4318");
	cr_expect_not(http__url_ok("ftp://host", why, sizeof(why)));
	cr_expect_not(http__url_ok("http://", why, sizeof(why)));
	cr_expect_str_eq(why, "no host after the scheme");
	cr_expect_not(http__url_ok("https:///path", why, sizeof(why)));
}

Test(ship, paths_join_without_a_doubled_slash)
{
	char buf[64];

	cr_assert(ship__join_url("http://h:4318", "/v1development/profiles", buf, sizeof(buf)));
	cr_expect_str_eq(buf, "http://h:4318/v1development/profiles");
	cr_assert(ship__join_url("http://h:4318//", "/ingest", buf, sizeof(buf)));
	cr_expect_str_eq(buf, "http://h:4318/ingest");
	cr_expect_not(
		ship__join_url("http://a-long-host-name.example.com", "/v1development/x", buf, 32));
}

Test(ship, headers_become_curl_lines)
{
	char buf[64];

	ship__header_line("Authorization=Bearer abc=", buf, sizeof(buf));
	cr_expect_str_eq(buf, "Authorization: Bearer abc=");
	ship__header_line("X-Scope-OrgID=", buf, sizeof(buf));
	cr_expect_str_eq(buf, "X-Scope-OrgID: ");
}

Test(ship, pyroscope_url_names_the_application_and_the_window)
{
	struct ship_meta m = { .service = "my app",
			       .host = "db-1",
			       .start_ns = 1700000000500000000LL,
			       .end_ns = 1700000010200000000LL };
	char buf[256];

	cr_assert_eq(pyroscope__url(&m, "https://pyro.example.com/", buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "https://pyro.example.com/ingest?name=my%20app%7Bhostname%3Ddb-1%7D"
			      "&from=1700000000&until=1700000011&format=pprof&spyName=faultline");
	m.host = NULL;
	m.service = NULL;
	cr_assert_eq(pyroscope__url(&m, "http://p", buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "http://p/ingest?name=faultline%7B%7D&from=1700000000"
			      "&until=1700000011&format=pprof&spyName=faultline");
	cr_expect_eq(pyroscope__url(&m, "http://p", buf, 40), -ENAMETOOLONG);
}

/* The bytes of the part @name of multipart @body: between its blank line and the boundary. */
static const char *part(const char *body, size_t len, const char *boundary, const char *name,
			size_t *plen)
{
	char head[256], end[96];
	const char *p, *q;

	snprintf(head, sizeof(head),
		 "--%s\r\nContent-Disposition: form-data; name=\"%s\"; filename=\"%s\"\r\n"
		 "Content-Type: application/octet-stream\r\n\r\n",
		 boundary, name, name);
	p = memmem(body, len, head, strlen(head));
	cr_assert_not_null(p, "part %s", name);
	p += strlen(head);
	snprintf(end, sizeof(end), "\r\n--%s", boundary);
	q = memmem(p, len - (size_t)(p - body), end, strlen(end));
	cr_assert_not_null(q);
	*plen = (size_t)(q - p);
	return p;
}

Test(ship, pyroscope_body_has_the_profile_and_the_types)
{
	struct pprof *p = pprof__new();
	const struct pprof_frame f[] = { { "main", 0, 0, NULL } };
	const int64_t v[] = { 4096, 1 };
	const char *profile, *cfg;
	char *body = NULL, json[512];
	size_t len = 0, plen, clen;

	cr_assert_eq(pprof__add_type(p, "resident", "bytes"), 0);
	cr_assert_eq(pprof__add_type(p, "faults", "count"), 1);
	cr_assert_eq(pprof__add_sample(p, f, 1, v, "t", 1, 1), 0);
	cr_assert_eq(pyroscope__body(p, "B0UND", &body, &len), 0);
	profile = part(body, len, "B0UND", "profile", &plen);
	cr_expect_gt(plen, 18);
	cr_expect_eq((unsigned char)profile[0], 0x1f, "a gzip stream");
	cr_expect_eq((unsigned char)profile[1], 0x8b);
	cfg = part(body, len, "B0UND", "sample_type_config", &clen);
	snprintf(json, sizeof(json), "%.*s", (int)clen, cfg);
	cr_expect_str_eq(json, "{\"resident\":{\"units\":\"bytes\",\"aggregation\":\"sum\","
			       "\"display-name\":\"resident\",\"sampled\":false},"
			       "\"faults\":{\"units\":\"objects\",\"aggregation\":\"sum\","
			       "\"display-name\":\"faults\",\"sampled\":false}}");
	cr_expect_eq(memcmp(body + len - 11, "--B0UND--\r\n", 11), 0, "the closing boundary");
	free(body);
	pprof__free(p);
}

/* Nothing listens on port 1 of the loopback: the failure is told, not waited for. */
Test(ship, refused_connection_is_an_error_with_words)
{
	struct http_result res;
	struct http_post req = { .url = "http://127.0.0.1:1/v1development/profiles",
				 .content_type = "application/x-protobuf",
				 .body = "x",
				 .len = 1,
				 .timeout_ms = 5000 };

	cr_expect_eq(http__post(&req, &res), -EIO);
	cr_expect_eq(res.status, 0);
	cr_expect_neq(res.error[0], '\0');
}
