// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * shipbench: what a window of N stacks costs --otlp, for scripts/bench-ship.sh. Builds a
 * profile of N samples (default 10,000), each a stack of DEPTH frames (default 20) drawn from
 * a pool of code addresses in one mapping (default 5,000: stacks share frames, as a server's
 * do; 0: every frame its own address, the worst case), then times its OTLP encoding, its
 * gzip, and, given a URL, its send to that endpoint, ROUNDS times (default 5):
 *
 *   shipbench [--url URL | --sink] [--samples N] [--depth D] [--pool P] [--rounds R]
 *
 * --sink: the endpoint is a thread of shipbench that reads each request and answers 200 at
 * once, so the send's time is faultline's side of it alone (libcurl, the loopback), none of a
 * collector's work.
 *
 * One line per round: "round R: encoded and gzip'd in E ms (K KiB, K KiB sent), sent in S ms".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "ship/ship.h"

#define MAX_DEPTH 64

static struct pprof *model(long n, int depth, long pool, char (*names)[24], size_t nnames)
{
	static const struct pprof_mapping map = { .start = 0x400000,
						  .limit = 0x40000000,
						  .file = "/usr/sbin/server" };
	struct pprof *p = pprof__new();
	struct pprof_frame f[MAX_DEPTH];
	unsigned seed = 1;

	if (!p || pprof__add_type(p, "resident", "bytes") < 0 ||
	    pprof__add_type(p, "released", "bytes") < 0 ||
	    pprof__add_type(p, "faults", "count") < 0)
		return NULL;
	for (long s = 0, a = 0; s < n; s++) {
		int64_t v[3] = { 4096 * (1 + rand_r(&seed) % 512), 0, 1 + rand_r(&seed) % 64 };
		/* one process of 64 threads: a location is a (process, address) */
		struct pprof_labels l = { "worker", 1000, (uint32_t)(1000 + s % 64), "server",
					  "/system.slice/server.service" };

		for (int k = 0; k < depth; k++, a++) {
			long at = pool ? rand_r(&seed) % pool : a;

			f[k] = (struct pprof_frame){ names[at % (long)nnames],
						     0x401000 + (uint64_t)at * 16, l.pid, &map };
		}
		if (pprof__add_sample_lines(p, f, NULL, (size_t)depth, v, &l))
			return NULL;
	}
	return p;
}

/* Reads one request on @fd (headers, then Content-Length bytes); false at the connection's
 * end. */
static bool read_request(int fd)
{
	static char buf[1 << 16];
	size_t have = 0, body = 0;
	char *end = NULL;

	while (!end) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);

		if (n <= 0)
			return false;
		have += (size_t)n;
		buf[have] = '\0';
		end = strstr(buf, "\r\n\r\n");
		if (!end && have == sizeof(buf) - 1)
			return false;
	}
	for (char *h = strcasestr(buf, "content-length:"); h && h < end; h = NULL)
		body = strtoul(h + 15, NULL, 10);
	have -= (size_t)(end + 4 - buf);
	while (have < body) {
		ssize_t n = read(fd, buf, sizeof(buf) < body - have ? sizeof(buf) : body - have);

		if (n <= 0)
			return false;
		have += (size_t)n;
	}
	return true;
}

/* The sink: every request on every connection answered 200 as soon as it is read. */
static void *sink(void *arg)
{
	static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	int lfd = *(int *)arg;

	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			return NULL;
		while (read_request(fd) && write(fd, ok, sizeof(ok) - 1) == sizeof(ok) - 1)
			;
		close(fd);
	}
}

/* Starts the sink on 127.0.0.1, an ephemeral port: its URL into @url. */
static int start_sink(char *url, size_t len)
{
	static int lfd;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	pthread_t th;

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 8) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) || pthread_create(&th, NULL, sink, &lfd))
		return -errno;
	snprintf(url, len, "http://127.0.0.1:%d", ntohs(a.sin_port));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "url", required_argument, NULL, 'u' },
					      { "samples", required_argument, NULL, 'n' },
					      { "depth", required_argument, NULL, 'd' },
					      { "pool", required_argument, NULL, 'p' },
					      { "rounds", required_argument, NULL, 'r' },
					      { "sink", no_argument, NULL, 's' },
					      { 0 } };
	const char *url = NULL;
	char sink_url[64];
	long n = 10000, pool = 5000, rounds = 5;
	int depth = 20, c;
	static char names[4096][24];
	struct pprof *p;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			url = optarg;
			break;
		case 'n':
			n = atol(optarg);
			break;
		case 'd':
			depth = atoi(optarg);
			break;
		case 'p':
			pool = atol(optarg);
			break;
		case 'r':
			rounds = atol(optarg);
			break;
		case 's':
			if (start_sink(sink_url, sizeof(sink_url))) {
				perror("shipbench: the sink");
				return 1;
			}
			url = sink_url;
			break;
		default:
			fprintf(stderr, "usage: shipbench [--url URL | --sink] [--samples N] "
					"[--depth D] [--pool P] [--rounds R]\n");
			return 2;
		}
	}
	if (n < 1 || depth < 1 || depth > MAX_DEPTH || pool < 0 || rounds < 1) {
		fprintf(stderr, "shipbench: a count out of range\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		snprintf(names[i], sizeof(names[i]), "function_%zu", i);
	p = model(n, depth, pool, names, sizeof(names) / sizeof(names[0]));
	if (!p) {
		fprintf(stderr, "shipbench: out of memory\n");
		return 1;
	}
	printf("shipbench: %zu samples of %d frames, %zu locations\n", pprof__nr_samples(p), depth,
	       pprof__nr_locations(p));
	for (long r = 1; r <= rounds; r++) {
		const struct ship_target t = { .url = url ? url : "http://127.0.0.1:1",
					       .timeout_ms = 20000 };
		struct ship_meta m = { .service = "shipbench", .host = "bench" };
		struct ship_request req;
		struct ship_cost cost = {};
		char why[320];
		double gz_ms;
		int err;

		err = ship__otlp_request(p, &m, &t, &req, &cost, why, sizeof(why));
		if (err) {
			fprintf(stderr, "shipbench: %s\n", why);
			return 1;
		}
		gz_ms = cost.encode_ms;
		if (url && ship__send(&t, &req, &cost, why, sizeof(why))) {
			fprintf(stderr, "shipbench: sending: %s\n", why);
			return 1;
		}
		printf("round %ld: encoded and gzip'd in %.1f ms (%zu KiB, %zu KiB sent)%s", r,
		       gz_ms, cost.encoded / 1024, cost.sent / 1024, url ? "" : "\n");
		if (url)
			printf(", sent in %.1f ms\n", cost.send_ms);
		ship__request_free(&req);
	}
	pprof__free(p);
	return 0;
}
