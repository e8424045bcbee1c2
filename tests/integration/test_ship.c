/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --otlp and --pyroscope against real endpoints: the test OpenTelemetry Collector
 * (tests/otelcol, built once by the Makefile and given as OTELCOL; the tests that need it are
 * skipped when no Go toolchain could build it), over http and over https with a certificate
 * made here; and a small Pyroscope stand-in in this process that keeps the request it gets and
 * answers what it is told to. What reached the collector must be the session's own profile:
 * the resident samples sum to the folded file's total, and every index resolves.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "formats/jsonread.h"
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(ship, .init = setup, .fini = h_cleanup, .timeout = 180);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The test collector, running: its log and output files, its port. */
struct collector {
	pid_t pid;
	char dir[64], log[96], out[96];
	int port;
};

static const char *collector_bin(void)
{
	const char *bin = getenv("OTELCOL");

	if (!bin || !*bin)
		cr_skip_test("no test collector: %s", getenv("OTELCOL_SKIP") ?:
									       "OTELCOL is not set "
									       "(make integration "
									       "builds it)");
	return bin;
}

/* Starts the collector (with TLS when @cert is given) and waits for its port. */
static void collector_start_ok(struct collector *c, const char *cert, const char *key)
{
	const char *bin = collector_bin();
	char cfg[PATH_MAX], tls[PATH_MAX], *log = NULL, *at;
	double until = now_s() + 60;

	h_temp_dir_ok(c->dir);
	snprintf(c->log, sizeof(c->log), "%s/collector.log", c->dir);
	snprintf(c->out, sizeof(c->out), "%s/out.json", c->dir);
	snprintf(cfg, sizeof(cfg), "%s/config.yaml", getenv("OTELCOL_DIR") ?: "tests/otelcol");
	snprintf(tls, sizeof(tls), "%s/config-tls.yaml", getenv("OTELCOL_DIR") ?: "tests/otelcol");
	c->pid = fork();
	cr_assert_geq(c->pid, 0);
	if (!c->pid) {
		FILE *f = freopen(c->log, "w", stderr);

		(void)f;
		dup2(STDERR_FILENO, STDOUT_FILENO);
		setenv("OTLP_HTTP_ENDPOINT", "127.0.0.1:0", 1);
		setenv("OTLP_OUT_FILE", c->out, 1);
		if (cert) {
			setenv("OTLP_TLS_CERT", cert, 1);
			setenv("OTLP_TLS_KEY", key, 1);
			execl(bin, bin, "--config", cfg, "--config", tls, (char *)NULL);
		}
		execl(bin, bin, "--config", cfg, (char *)NULL);
		_exit(127);
	}
	h_track(c->pid);
	for (;;) {
		free(log);
		log = h_read_file(c->log);
		if (strstr(log, "Everything is ready"))
			break;
		cr_assert(now_s() < until && waitpid(c->pid, NULL, WNOHANG) == 0,
			  "the collector did not start:\n%s", log);
		usleep(50000);
	}
	at = strstr(log, "\"endpoint\": \"127.0.0.1:");
	cr_assert_not_null(at, "no endpoint in the collector's log:\n%s", log);
	c->port = atoi(at + strlen("\"endpoint\": \"127.0.0.1:"));
	cr_assert_gt(c->port, 0);
	free(log);
}

/* The first request the collector wrote, parsed. */
static void collector_request_ok(const struct collector *c, struct jv *req)
{
	double until = now_s() + 20;
	char *text;

	for (;;) {
		text = h_read_file(c->out);
		if (strchr(text, '\n'))
			break;
		free(text);
		cr_assert(now_s() < until, "nothing reached the collector's output");
		usleep(50000);
	}
	*strchr(text, '\n') = '\0';
	cr_assert_eq(jv_parse(text, strlen(text), req), 0, "the collector wrote no JSON");
	free(text);
}

/* An int64 of the collector's JSON (written as a string) or an index (a number). */
static uint64_t num(const struct jv *v)
{
	if (!v)
		return 0;
	return strtoull(v->text, NULL, 10);
}

static const struct jv *at(const struct jv *arr, uint64_t i, const char *what)
{
	cr_assert(arr && arr->type == JV_ARR, "%s: no table", what);
	cr_assert_lt(i, arr->n, "%s index %lu past the table (%zu)", what, (unsigned long)i,
		     arr->n);
	return &arr->items[i];
}

/* The string table's entry @i. */
static const char *str(const struct jv *dict, const struct jv *index)
{
	return at(jv_get(dict, "stringTable"), num(index), "string")->text;
}

/* Every index of every sample resolves; returns the sum of the profile of type @type. */
static uint64_t check_request_ok(const struct jv *req, const char *type)
{
	const struct jv *dict = jv_get(req, "dictionary");
	const struct jv *profiles =
		jv_path(at(jv_get(req, "resourceProfiles"), 0, "resource"), "scopeProfiles");
	uint64_t sum = 0;
	bool found = false;

	cr_assert_not_null(dict);
	profiles = jv_get(at(profiles, 0, "scope"), "profiles");
	cr_assert(profiles && profiles->n >= 1, "no profile");
	for (size_t p = 0; p < profiles->n; p++) {
		const struct jv *prof = &profiles->items[p], *samples = jv_get(prof, "samples");
		bool mine = !strcmp(str(dict, jv_path(prof, "sampleType.typeStrindex")), type);

		found |= mine;
		for (size_t i = 0; samples && i < samples->n; i++) {
			const struct jv *s = &samples->items[i];
			const struct jv *stack = at(jv_get(dict, "stackTable"),
						    num(jv_get(s, "stackIndex")), "stack");
			const struct jv *locs = jv_get(stack, "locationIndices");
			const struct jv *attrs = jv_get(s, "attributeIndices");

			cr_assert(locs && locs->n, "a stack without locations");
			for (size_t k = 0; k < locs->n; k++) {
				const struct jv *loc = at(jv_get(dict, "locationTable"),
							  num(&locs->items[k]), "location");
				const struct jv *lines = jv_get(loc, "lines");

				if (jv_get(loc, "mappingIndex"))
					at(jv_get(dict, "mappingTable"),
					   num(jv_get(loc, "mappingIndex")), "mapping");
				for (size_t l = 0; lines && l < lines->n; l++) {
					const struct jv *fn =
						at(jv_get(dict, "functionTable"),
						   num(jv_get(&lines->items[l], "functionIndex")),
						   "function");

					str(dict, jv_get(fn, "nameStrindex"));
				}
			}
			for (size_t k = 0; attrs && k < attrs->n; k++)
				at(jv_get(dict, "attributeTable"), num(&attrs->items[k]),
				   "attribute");
			if (mine)
				sum += num(at(jv_get(s, "values"), 0, "value"));
		}
	}
	cr_assert(found, "no %s profile", type);
	return sum;
}

/* The resource attribute @key as text ("" when absent): the collector writes keys and string
 * values as string table indices. */
static const char *resource_attr(const struct jv *req, const char *key, char *buf, size_t len)
{
	const struct jv *dict = jv_get(req, "dictionary");
	const struct jv *attrs =
		jv_path(at(jv_get(req, "resourceProfiles"), 0, "resource"), "resource.attributes");

	buf[0] = '\0';
	for (size_t i = 0; attrs && i < attrs->n; i++) {
		const struct jv *a = &attrs->items[i], *v = jv_get(a, "value");

		if (strcmp(str(dict, jv_get(a, "keyStrindex")), key))
			continue;
		if (jv_get(v, "stringValueStrindex"))
			snprintf(buf, len, "%s", str(dict, jv_get(v, "stringValueStrindex")));
		else if (jv_get(v, "intValue"))
			snprintf(buf, len, "%s", jv_get(v, "intValue")->text);
	}
	return buf;
}

Test(ship, otlp_profile_is_the_sessions_own)
{
	struct collector c;
	struct h_run r;
	struct jv req;
	char url[64], buf[64];
	const char *args[] = { "--otlp", url, "--service", "touch-test", NULL };
	uint64_t sent;

	collector_start_ok(&c, NULL, NULL);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", c.port);
	h_launch_run_ok(&r, "threads", NULL, args);
	collector_request_ok(&c, &req);
	sent = check_request_ok(&req, "resident");
	cr_expect_eq(sent, h_folded_total(&r.folded),
		     "the resident profile sent (%lu) is not the folded file's (%lu)",
		     (unsigned long)sent, (unsigned long)h_folded_total(&r.folded));
	cr_expect_gt(sent, 40 * H_MIB, "the touchers' 48 MiB");
	cr_expect_str_eq(resource_attr(&req, "service.name", buf, sizeof(buf)), "touch-test");
	cr_expect_str_eq(resource_attr(&req, "process.executable.name", buf, sizeof(buf)),
			 "threads");
	cr_expect_neq(resource_attr(&req, "process.pid", buf, sizeof(buf))[0], '\0');
	/* the command is gone when the profile goes: the file it was started from, absolute */
	resource_attr(&req, "process.executable.path", buf, sizeof(buf));
	cr_expect(buf[0] == '/' && strstr(buf, "/workloads/threads"), "path %s", buf);
	cr_expect_neq(resource_attr(&req, "host.name", buf, sizeof(buf))[0], '\0');
	jv_free(&req);
	h_folded_free(&r.folded);
}

/* The requests the collector wrote, once it wrote @n of them (each a line), parsed into @reqs. */
static void collector_requests_ok(const struct collector *c, struct jv *reqs, size_t n)
{
	double until = now_s() + 20;
	size_t got = 0;
	char *text, *line, *next;

	for (;;) {
		got = 0;
		text = h_read_file(c->out);
		for (const char *p = text; (p = strchr(p, '\n')); p++)
			got++;
		if (got >= n)
			break;
		free(text);
		cr_assert(now_s() < until, "the collector wrote %zu requests of %zu", got, n);
		usleep(50000);
	}
	line = text;
	for (size_t i = 0; i < n; i++, line = next + 1) {
		next = strchr(line, '\n');
		*next = '\0';
		cr_assert_eq(jv_parse(line, strlen(line), &reqs[i]), 0, "request %zu: no JSON", i);
	}
	free(text);
}

/* The number after @prefix at the start of a line of faultline's stderr @err that holds
 * @also, or -1. */
static long after(const char *err, const char *prefix, const char *also)
{
	for (const char *p = err; (p = strstr(p, prefix)); p++) {
		const char *eol = strchr(p, '\n');
		const char *in = strstr(p, also);

		if ((p == err || p[-1] == '\n') && in && (!eol || in < eol))
			return strtol(p + strlen(prefix), NULL, 10);
	}
	return -1;
}

/* Runs @cmd in launch mode (-q -v --folded) with @args; returns its exit status and stderr. */
static int launch_cmd(struct h_session *s, const char *const *args, const char *const *cmd,
		      char **err)
{
	const char *argv[32];
	size_t n = 0;

	h_session_init_ok(s);
	argv[n++] = "-q";
	argv[n++] = "-v";
	argv[n++] = "--folded";
	argv[n++] = s->folded_path;
	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n++] = "--";
	for (size_t i = 0; cmd[i]; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	h_session_start_ok(s, argv);
	cr_assert_eq(h_wait_exit(&s->proc, H_WORK_MS + 60000), 0, "faultline did not end");
	*err = h_read_file(s->err_path);
	return h_exit_code(&s->proc);
}

/* faultbench for 3 s: a window a second of steady growth. */
static const char *const *faultbench(void)
{
	static char path[PATH_MAX];
	static const char *cmd[] = { path, "--now", "--exit", "256", "16", "3", NULL };

	snprintf(path, sizeof(path), "%s/faultbench", getenv("WORKLOADS"));
	return cmd;
}

/* The windows faultline says it sent to @url (its stderr @err: 3 to 63, none lost), each
 * request the collector wrote of them parsed into @reqs. */
static long windows_sent_ok(const struct collector *c, const char *url, const char *err,
			    struct jv *reqs)
{
	char prefix[96];
	long sent;

	snprintf(prefix, sizeof(prefix), "faultline: --otlp %s: ", url);
	sent = after(err, prefix, " windows sent, ");
	cr_assert(sent >= 3 && sent < 64, "windows sent: %ld\n%s", sent, err);
	cr_expect(strstr(err, " windows sent, 0 lost"), "%s", err);
	collector_requests_ok(c, reqs, (size_t)sent);
	return sent;
}

/* Runs @cmd with --every 1 to the collector; its windows' resident samples must add up to the
 * folded file of the same session, to the byte, each window holding some. */
static void windows_add_up_ok(const char *const *cmd, const char *const *more, uint64_t least)
{
	struct collector c;
	struct h_session s = {};
	struct h_folded f;
	struct jv reqs[64];
	char url[64], *err;
	const char *args[8] = { "--otlp", url, "--every", "1" };
	uint64_t sum = 0;
	long sent;

	for (size_t i = 0; more && more[i]; i++)
		args[4 + i] = more[i];
	collector_start_ok(&c, NULL, NULL);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", c.port);
	cr_assert_eq(launch_cmd(&s, args, cmd, &err), 0, "%s", err);
	sent = windows_sent_ok(&c, url, err, reqs);
	for (long i = 0; i < sent; i++) {
		uint64_t w = check_request_ok(&reqs[i], "resident");

		cr_expect_gt(w, 0, "window %ld holds no growth", i);
		sum += w;
		jv_free(&reqs[i]);
	}
	h_folded_load_ok(s.folded_path, &f);
	cr_expect_eq(sum, h_folded_total(&f), "the windows (%lu) are not the session (%lu)",
		     (unsigned long)sum, (unsigned long)h_folded_total(&f));
	cr_expect_gt(sum, least);
	h_folded_free(&f);
	free(err);
}

/* --every: each window's profile holds what grew in it; together they are the session. */
Test(ship, windows_add_up_to_the_session)
{
	windows_add_up_ok(faultbench(), NULL, 200 * H_MIB);
}

/* -f with children that exec and exit all along: their rows move out of the maps and fold by
 * program between windows, and what each held as a window began must not count again. */
Test(ship, windows_add_up_with_children_folded)
{
	static const char *const cmd[] = {
		"/bin/sh", "-c",
		"for i in $(seq 200); do head -c 1 /etc/hostname >/dev/null; sleep 0.01; done", NULL
	};
	static const char *const more[] = { "-f", NULL };

	windows_add_up_ok(cmd, more, 100 * H_MIB);
}

/* The requests the collector wrote so far (a line each). */
static size_t collector_count(const struct collector *c)
{
	char *text = h_read_file(c->out);
	size_t got = 0;

	for (const char *p = text; (p = strchr(p, '\n')); p++)
		got++;
	free(text);
	return got;
}

/* Waits until the collector wrote @n requests or more. */
static void collector_wait_requests_ok(const struct collector *c, size_t n)
{
	double until = now_s() + 30;
	size_t got;

	while ((got = collector_count(c)) < n) {
		cr_assert(now_s() < until, "the collector wrote %zu requests of %zu", got, n);
		usleep(50000);
	}
}

/*
 * --alloc --every: a window's allocations are the ones made in it, so the windows add up to
 * the session's; its live heap is the one held as it ends. allocbench keeps 1000 blocks live
 * from 4 stacks and frees and allocates 200 of them again a second: every window after the
 * heap was built holds all of them, though it allocated only a fifth as many.
 */
Test(ship, alloc_windows_add_up_and_hold_the_live_heap)
{
	struct collector c;
	struct h_run r;
	struct jv reqs[64], doc;
	const char *wl[] = { "live", "1000", "4", "200", NULL };
	char url[64], dir[64], json[96], *text, *err;
	const char *fl[] = { "--alloc", "--otlp", url, "--every", "1", "--json", json, NULL };
	const struct jv *procs;
	uint64_t allocs = 0, live = 0, want_allocs, want_live, held_windows = 0;
	const char *rest;
	long sent;

	collector_start_ok(&c, NULL, NULL);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", c.port);
	h_temp_dir_ok(dir);
	snprintf(json, sizeof(json), "%s/run.json", dir);
	h_attach_start_ok(&r, "allocbench", wl, fl);
	h_kill_ok(r.wl.pid, SIGUSR1);
	cr_assert_eq(h_wait_prefix(&r.wl, "live ", &rest, H_WORK_MS), 0, "no live heap built");
	/* windows that end with the heap built: the two after the one it was built in */
	collector_wait_requests_ok(&c, collector_count(&c) + 2);
	h_attach_stop_ok(&r, SIGINT);
	err = h_read_file(r.fl.err_path);
	sent = windows_sent_ok(&c, url, err, reqs);
	for (long i = 0; i < sent; i++) {
		uint64_t held = check_request_ok(&reqs[i], "live-count");

		allocs += check_request_ok(&reqs[i], "alloc-count");
		held_windows += held >= 1000;
		if (i == sent - 1)
			live = held;
		jv_free(&reqs[i]);
	}
	text = h_read_file(json);
	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON");
	procs = jv_get(&doc, "processes");
	cr_assert(procs && procs->n == 1);
	cr_assert(jv_u64(jv_path(&procs->items[0], "attributed.allocs"), &want_allocs));
	cr_assert(jv_u64(jv_path(&procs->items[0], "attributed.live_count"), &want_live));
	cr_expect_eq(allocs, want_allocs,
		     "the windows' allocations (%lu) are not the session's (%lu)",
		     (unsigned long)allocs, (unsigned long)want_allocs);
	cr_expect_eq(live, want_live,
		     "the last window's live heap (%lu) is not the session's (%lu)",
		     (unsigned long)live, (unsigned long)want_live);
	cr_expect_geq(want_live, 1000, "the 1000 blocks held");
	cr_expect_geq(held_windows, 3, "%lu windows held the whole heap",
		      (unsigned long)held_windows);
	jv_free(&doc);
	free(text);
	free(err);
	h_folded_free(&r.folded);
}

/* --every with the endpoint down all along: every window is lost, and the count says so. */
Test(ship, windows_lost_while_down_are_counted)
{
	struct h_session s = {};
	char json[128], *err, *text;
	const char *args[] = {
		"--otlp", "http://127.0.0.1:1", "--every", "1", "--json", json, NULL
	};
	const struct jv *ep;
	uint64_t lost_then, waiting;
	long made = 0, lost;
	struct jv doc;

	snprintf(json, sizeof(json), "/tmp/faultline-ship-%d.json", (int)getpid());
	cr_expect_eq(launch_cmd(&s, args, faultbench(), &err), 1, "%s", err);
	for (const char *p = err; (p = strstr(p, ": window of ")); p++)
		made++;
	lost = after(err, "faultline: --otlp http://127.0.0.1:1: 0 windows sent, ", " lost");
	cr_expect(made >= 3, "windows made: %ld\n%s", made, err);
	cr_expect_eq(lost, made, "lost %ld of %ld windows made:\n%s", lost, made, err);
	/* the final document, written before the last window: every earlier one lost or
	 * waiting, none sent, and the failure in words */
	text = h_read_file(json);
	unlink(json);
	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "--json: not JSON");
	ep = jv_get(&doc, "shipping");
	cr_assert(ep && ep->n == 1, "shipping: %zu endpoints", ep ? ep->n : 0);
	ep = &ep->items[0];
	cr_expect_str_eq(jv_get(ep, "option")->text, "--otlp");
	cr_expect(jv_u64(jv_get(ep, "sent"), &lost_then) && lost_then == 0);
	cr_assert(jv_u64(jv_get(ep, "lost"), &lost_then) &&
		  jv_u64(jv_get(ep, "waiting"), &waiting));
	cr_expect_eq(lost_then + waiting, (uint64_t)made - 1, "lost %lu + waiting %lu of %ld",
		     (unsigned long)lost_then, (unsigned long)waiting, made - 1);
	cr_expect_eq(jv_get(ep, "last_error")->type, JV_STR);
	jv_free(&doc);
	free(text);
	free(err);
}

/* A certificate for 127.0.0.1, made here: its key and itself (its own CA) into @dir. */
static void make_cert_ok(const char *dir, char *cert, char *key, size_t len)
{
	char cmd[1024];

	snprintf(cert, len, "%s/cert.pem", dir);
	snprintf(key, len, "%s/key.pem", dir);
	snprintf(cmd, sizeof(cmd),
		 "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
		 "-addext subjectAltName=IP:127.0.0.1 -keyout %s -out %s >/dev/null 2>&1",
		 key, cert);
	if (system("command -v openssl >/dev/null 2>&1"))
		cr_skip_test("no openssl command to make a certificate with");
	cr_assert_eq(system(cmd), 0, "openssl could not make a certificate");
}

/* Runs faultline in launch mode on threads with @args; returns its exit status. */
static int launch(struct h_session *s, const char *const *args)
{
	const char *argv[24];
	char path[PATH_MAX];
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/threads", getenv("WORKLOADS"));
	argv[n++] = "-q";
	argv[n++] = "--folded";
	argv[n++] = s->folded_path;
	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n++] = "--";
	argv[n++] = path;
	argv[n++] = "--now";
	argv[n++] = "--exit";
	argv[n] = NULL;
	h_session_start_ok(s, argv);
	cr_assert_eq(h_wait_exit(&s->proc, H_WORK_MS + 30000), 0, "faultline did not end");
	return h_exit_code(&s->proc);
}

Test(ship, otlp_over_https_with_the_ca_given)
{
	char cert[128], key[128], url[64], dir[64];
	const char *with[] = { "--otlp", url, "--ca-file", cert, NULL };
	const char *without[] = { "--otlp", url, NULL };
	struct h_session ok = {}, refused = {};
	struct collector c;
	struct jv req;
	char *err;

	collector_bin();
	h_temp_dir_ok(dir);
	make_cert_ok(dir, cert, key, sizeof(cert));
	collector_start_ok(&c, cert, key);
	snprintf(url, sizeof(url), "https://127.0.0.1:%d", c.port);
	h_session_init_ok(&ok);
	cr_assert_eq(launch(&ok, with), 0, "with --ca-file:\n%s", h_read_file(ok.err_path));
	collector_request_ok(&c, &req);
	check_request_ok(&req, "resident");
	jv_free(&req);
	/* the system's CA store does not know the test's certificate: refused, and said */
	h_session_init_ok(&refused);
	cr_expect_eq(launch(&refused, without), 1);
	err = h_read_file(refused.err_path);
	cr_expect(strstr(err, "faultline: --otlp https://127.0.0.1:") &&
			  strstr(err, "sending the profile failed"),
		  "no line said why:\n%s", err);
	free(err);
}

/* A stand-in for Pyroscope: one request kept, answered with @status. */
struct endpoint {
	int fd, port, status;
	pthread_t thread;
	char *request; /* head and body, as received */
	size_t len;
};

/* The request on connection @fd into e->request (head and body); its length, 0 for none (a
 * connection that only looked: faultline's reachability check). */
static size_t take_request(struct endpoint *e, int fd, size_t cap)
{
	size_t want = 0;
	char *head_end;
	ssize_t n;

	e->len = 0;
	while (e->len < cap) {
		n = read(fd, e->request + e->len, cap - e->len);
		if (n <= 0)
			break;
		e->len += (size_t)n;
		head_end = memmem(e->request, e->len, "\r\n\r\n", 4);
		if (head_end && !want) {
			char *cl = memmem(e->request, (size_t)(head_end - e->request),
					  "Content-Length: ", 16);

			want = (size_t)(head_end + 4 - e->request) +
			       (cl ? strtoul(cl + 16, NULL, 10) : 0);
		}
		if (want && e->len >= want)
			break;
	}
	return e->len;
}

/* Serves connections until one brings a request, which is kept and answered e->status; status
 * 0: not answered at all (a server that hangs), the connection held until the client goes. */
static void *serve(void *arg)
{
	struct endpoint *e = arg;
	size_t cap = 1 << 20;
	char reply[128];
	int fd;

	e->request = malloc(cap);
	snprintf(reply, sizeof(reply), "HTTP/1.1 %d Test\r\nContent-Length: 5\r\n\r\nnope!",
		 e->status);
	while (e->request && (fd = accept(e->fd, NULL, NULL)) >= 0) {
		bool got = take_request(e, fd, cap) > 0;
		/* a failed answer is the client's to tell; the test checks what came */
		ssize_t n = got && e->status ? write(fd, reply, strlen(reply)) : 0;
		char c;

		while (got && !e->status && read(fd, &c, 1) > 0)
			;
		(void)n;
		close(fd);
		if (got)
			break;
	}
	return NULL;
}

static void endpoint_start_ok(struct endpoint *e, int status)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);

	memset(e, 0, sizeof(*e));
	e->status = status;
	e->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(e->fd, 0);
	cr_assert_eq(bind(e->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(e->fd, 4), 0);
	cr_assert_eq(getsockname(e->fd, (struct sockaddr *)&a, &alen), 0);
	e->port = ntohs(a.sin_port);
	cr_assert_eq(pthread_create(&e->thread, NULL, serve, e), 0);
}

static void endpoint_stop(struct endpoint *e)
{
	shutdown(e->fd, SHUT_RDWR);
	pthread_join(e->thread, NULL);
	close(e->fd);
}

/* The part @name of the multipart request: its bytes after its headers. */
static const char *form_part(const struct endpoint *e, const char *name, size_t *len)
{
	char head[128], *p, *end;

	snprintf(head, sizeof(head), "name=\"%s\"; filename=\"%s\"\r\n", name, name);
	p = memmem(e->request, e->len, head, strlen(head));
	cr_assert_not_null(p, "no part %s", name);
	p = memmem(p, e->len - (size_t)(p - e->request), "\r\n\r\n", 4);
	cr_assert_not_null(p);
	p += 4;
	end = memmem(p, e->len - (size_t)(p - e->request), "\r\n--faultline-", 14);
	cr_assert_not_null(end);
	*len = (size_t)(end - p);
	return p;
}

/* Counts the top-level fields of the protobuf message @p (@len bytes) by number (< 16) into
 * @count, asserting the message is well-formed: varints and length-delimited fields only. */
static void proto_fields_ok(const uint8_t *p, size_t len, uint64_t count[16])
{
	const uint8_t *end = p + len;

	while (p < end) {
		uint64_t key = 0, v = 0;
		int shift = 0;

		do {
			cr_assert_lt(p, end, "a truncated key");
			key |= (uint64_t)(*p & 0x7f) << shift;
			shift += 7;
		} while (*p++ & 0x80);
		shift = 0;
		do {
			cr_assert_lt(p, end, "a truncated value");
			v |= (uint64_t)(*p & 0x7f) << shift;
			shift += 7;
		} while (*p++ & 0x80);
		cr_assert((key & 7) == 0 || (key & 7) == 2, "wire type %lu",
			  (unsigned long)(key & 7));
		if ((key & 7) == 2) {
			cr_assert_leq(v, (uint64_t)(end - p), "a field past the end");
			p += v;
		}
		if ((key >> 3) < 16)
			count[key >> 3]++;
	}
}

Test(ship, pyroscope_ingest_request)
{
	struct endpoint e;
	struct h_run r;
	char url[64], cfg[1024];
	static char out[4 << 20];
	const char *args[] = { "--pyroscope", url, "--pyroscope-header", "X-Scope-OrgID=team-a",
			       NULL };
	const char *profile, *types;
	size_t plen, tlen;
	uint64_t fields[16] = { 0 };
	z_stream zs = {};

	endpoint_start_ok(&e, 200);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", e.port);
	h_launch_run_ok(&r, "threads", NULL, args);
	endpoint_stop(&e);
	cr_assert_gt(e.len, 0, "no request came");
	cr_expect(!strncmp(e.request, "POST /ingest?name=threads%7Bhostname%3D", 39),
		  "request line: %.120s", e.request);
	cr_expect(memmem(e.request, e.len, "&format=pprof", 13));
	cr_expect(memmem(e.request, e.len, "\r\nX-Scope-OrgID: team-a\r\n", 25));
	cr_expect(memmem(e.request, e.len, "Content-Type: multipart/form-data; boundary=", 44));
	types = form_part(&e, "sample_type_config", &tlen);
	snprintf(cfg, sizeof(cfg), "%.*s", (int)tlen, types);
	cr_expect(strstr(cfg, "\"resident\":{\"units\":\"bytes\""), "%s", cfg);
	cr_expect(strstr(cfg, "\"faults\":{\"units\":\"objects\""), "%s", cfg);
	/* the profile part is a whole gzip stream of a profile.proto: every sample type the config
	 * names, samples, a string table */
	profile = form_part(&e, "profile", &plen);
	cr_assert_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)profile;
	zs.avail_in = (uInt)plen;
	zs.next_out = (Bytef *)out;
	zs.avail_out = sizeof(out);
	cr_expect_eq(inflate(&zs, Z_FINISH), Z_STREAM_END, "a whole gzip stream within 4 MiB");
	cr_expect_eq(zs.avail_in, 0, "the gzip stream ends with the part");
	proto_fields_ok((const uint8_t *)out, zs.total_out, fields);
	cr_expect_eq(fields[1], 3, "sample types resident, released, faults: %lu",
		     (unsigned long)fields[1]);
	cr_expect_gt(fields[2], 0, "samples");
	cr_expect_gt(fields[6], 10, "strings");
	inflateEnd(&zs);
	free(e.request);
	h_folded_free(&r.folded);
}

/* A server that takes the request and never answers: the send gives up after its bound (20
 * s), says so, and the session ends with status 1 instead of hanging. */
Test(ship, silent_server_costs_a_bounded_time)
{
	struct endpoint e;
	struct h_session s = {};
	char url[64], *err;
	const char *args[] = { "--otlp", url, NULL };
	double t0;

	endpoint_start_ok(&e, 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", e.port);
	h_session_init_ok(&s);
	t0 = now_s();
	cr_expect_eq(launch(&s, args), 1);
	cr_expect_lt(now_s() - t0, 40, "the session took %.1f s", now_s() - t0);
	endpoint_stop(&e);
	err = h_read_file(s.err_path);
	cr_expect(strstr(err, "sending the profile failed: ") && strstr(err, "timed out"), "%s",
		  err);
	free(err);
	free(e.request);
}

/* An endpoint that is down and one that answers 503: each said in one line, exit status 1,
 * and the session's own files written all the same. */
Test(ship, endpoint_failures_are_told_and_files_kept)
{
	struct endpoint e;
	struct h_session s = {};
	struct h_folded f;
	char url[64], *err;
	const char *args[] = { "--otlp", "http://127.0.0.1:1", "--pyroscope", url, NULL };

	endpoint_start_ok(&e, 503);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", e.port);
	h_session_init_ok(&s);
	cr_expect_eq(launch(&s, args), 1);
	endpoint_stop(&e);
	err = h_read_file(s.err_path);
	cr_expect(strstr(err, "faultline: --otlp http://127.0.0.1:1: sending the profile failed: "),
		  "%s", err);
	/* down from the start: said then, not only at the end */
	cr_expect(strstr(err, "faultline: warning: --otlp http://127.0.0.1:1: not reachable now ("),
		  "%s", err);
	cr_expect(strstr(err, "faultline: --pyroscope http://127.0.0.1:") &&
			  strstr(err, "sending the profile failed: HTTP 503: nope!"),
		  "%s", err);
	h_folded_load_ok(s.folded_path, &f);
	cr_expect_gt(h_folded_total(&f), 40 * H_MIB);
	h_folded_free(&f);
	free(err);
	free(e.request);
}

/* Without libcurl (every flavor of it hidden by bind mounts in a mount namespace of the test's
 * own), a session that ships says so before tracing and exits 1; one that does not ship runs. */
Test(ship, no_http_client_is_said_at_start)
{
	char dir[64], cmd[1024], path[96], *err;
	int status;

	h_temp_dir_ok(dir);
	for (int ship = 1; ship >= 0; ship--) {
		snprintf(
			cmd, sizeof(cmd),
			"unshare -m sh -c 'for l in $(ldconfig -p | awk \"/libcurl(-gnutls)?\\.so\\.4 "
			"/ {print \\$NF}\"); do mount --bind /dev/null $(readlink -f $l) || exit 9; "
			"done; exec %s -q -d 0.5 %s -p %d' >/dev/null 2>%s/err",
			getenv("FAULTLINE"), ship ? "--otlp http://127.0.0.1:1" : "", getpid(),
			dir);
		status = system(cmd);
		snprintf(path, sizeof(path), "%s/err", dir);
		err = h_read_file(path);
		if (strstr(err, "unshare:") || strstr(err, "mount:") ||
		    (WIFEXITED(status) && WEXITSTATUS(status) == 9))
			cr_skip_test("no private mount namespace here: %s", err);
		if (ship) {
			cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1,
				  "exit status %d: %s", status, err);
			cr_expect(strstr(err, "faultline: --otlp needs an HTTP client: libcurl") &&
					  !strstr(err, "tracing"),
				  "%s", err);
		} else {
			cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
				  "exit status %d: %s", status, err);
		}
		free(err);
	}
}
