/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Debug files from debuginfod: Debian's debuginfod server, started on loopback over the debug
 * file of a stripped copy of the threads workload, must be the only way faultline names it;
 * a server that refuses or never answers must cost the session one message at most and no
 * time. Skipped without the debuginfod package (server and libdebuginfod1).
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

static void setup(void)
{
	h_require_root();
	if (system("command -v debuginfod >/dev/null 2>&1") ||
	    access("/usr/lib/x86_64-linux-gnu/libdebuginfod.so.1", R_OK))
		cr_skip_test("no debuginfod server or libdebuginfod.so.1 (Debian: debuginfod)");
}

TestSuite(debuginfod, .init = setup, .fini = h_cleanup, .timeout = 120);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A TCP socket on a free loopback port, listening when @listening (never accepting: the
 * kernel completes connections and nobody answers). Its port in *@port. */
static int loopback_socket(bool listening, int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	if (listening)
		cr_assert_eq(listen(fd, 16), 0);
	return fd;
}

/* The HTTP status of GET @path on loopback @port, or -1. */
static int http_status(int port, const char *path)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char req[256], resp[64] = "";
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), code = -1;

	if (fd < 0)
		return -1;
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n\r\n", path);
	if (!connect(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    write(fd, req, strlen(req)) == (ssize_t)strlen(req) &&
	    read(fd, resp, sizeof(resp) - 1) > 12)
		sscanf(resp, "HTTP/%*s %d", &code);
	close(fd);
	return code;
}

static void sh_ok(const char *cmd)
{
	cr_assert_eq(system(cmd), 0, "command failed: %s", cmd);
}

/*
 * @dir/bin/threads: the workload stripped; @dir/srv/threads.debug: its debug file (objcopy
 * --only-keep-debug, not under any path faultline looks at). Its build-id in @id.
 */
static void build_stripped(const char *dir, char id[64])
{
	char cmd[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/bin %s/srv %s/cache && cp %s/threads %s/bin/threads && "
		 "objcopy --only-keep-debug %s/bin/threads %s/srv/threads.debug && "
		 "strip %s/bin/threads",
		 dir, dir, dir, getenv("WORKLOADS"), dir, dir, dir, dir);
	sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "readelf -n %s/bin/threads | awk '/Build ID/ { print $3 }'",
		 dir);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(id, 64, p));
	id[strcspn(id, "\n")] = '\0';
	pclose(p);
	cr_assert_eq(strlen(id), 40, "build-id %s", id);
}

/* Debian's debuginfod over @dir/srv on a free port, serving @id's debug file; returns it. */
static int start_server(const char *dir, const char *id)
{
	char port_s[16], db[128], srv[128], path[128];
	int port, fd = loopback_socket(false, &port);
	struct h_proc *p = calloc(1, sizeof(*p));
	pid_t pid;

	close(fd);
	snprintf(port_s, sizeof(port_s), "%d", port);
	snprintf(db, sizeof(db), "%s/db.sqlite", dir);
	snprintf(srv, sizeof(srv), "%s/srv", dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		/* a server of its own: not a proxy to the servers faultline was given */
		unsetenv("DEBUGINFOD_URLS");
		unsetenv("DEBUGINFOD_CACHE_PATH");
		execlp("debuginfod", "debuginfod", "-F", srv, "-p", port_s, "-d", db, NULL);
		_exit(127);
	}
	h_track(pid);
	free(p);
	snprintf(path, sizeof(path), "/buildid/%s/debuginfo", id);
	for (int i = 0; i < 200 && http_status(port, path) != 200; i++)
		usleep(50 * 1000);
	cr_assert_eq(http_status(port, path), 200, "debuginfod never served %s", path);
	return port;
}

/* The threads workload in @dir/bin under faultline -p, DEBUGINFOD_URLS=@url (NULL: unset). */
static void run_threads(struct h_run *r, const char *dir, const char *url)
{
	static const char *const fl_args[] = { "-i", "0.2", NULL };
	char bin[128], cache[128];

	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	setenv("WORKLOADS", bin, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	if (url)
		setenv("DEBUGINFOD_URLS", url, 1);
	else
		unsetenv("DEBUGINFOD_URLS");
	h_attach_start_ok(r, "threads", NULL, fl_args);
	usleep(1000 * 1000); /* a few refreshes: the fetch is over long before */
	h_attach_work_ok(r);
	h_attach_stop_ok(r, SIGINT);
}

Test(debuginfod, names_the_stripped_workload)
{
	char dir[64], id[64], url[64], *err;
	struct h_run r;
	int port;

	h_temp_dir_ok(dir);
	build_stripped(dir, id);
	port = start_server(dir, id);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);

	run_threads(&r, dir, url);
	for (int i = 0; i < H_NTOUCHERS; i++)
		h_within_ok(h_touchers[i].fn, h_folded_edge(&r.folded, "toucher_main",
							    h_touchers[i].fn),
			    (int64_t)h_touchers[i].bytes, &r.folded);
	err = h_read_file(r.fl.err_path);
	cr_expect(!strstr(err, "debuginfod"), "messages about debuginfod:\n%s", err);
	free(err);
	h_folded_free(&r.folded);

	/* the same binary, the same server, no DEBUGINFOD_URLS: no names */
	run_threads(&r, dir, NULL);
	cr_expect_eq(h_folded_frame(&r.folded, "touch_c"), 0,
		     "touch_c named without debuginfod: from where?");
	cr_expect_gt(h_folded_total(&r.folded), 40 * H_MIB);
	h_folded_free(&r.folded);
}

/* A server on a free loopback port that answers every request 200 with the bytes of @path,
 * as a broken or hostile debuginfod could. Its port. */
static int start_answering(const char *path)
{
	int port, lfd = loopback_socket(true, &port);
	static char body[1 << 20];
	char head[128], req[4096];
	FILE *f = fopen(path, "r");
	size_t len;
	int n;
	pid_t pid;

	cr_assert_not_null(f, "%s", path);
	len = fread(body, 1, sizeof(body), f);
	cr_assert(len > 0 && len < sizeof(body) && !fclose(f), "%s: %zu bytes", path, len);
	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", len);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		for (int c; (c = accept(lfd, NULL, NULL)) >= 0; close(c))
			if (read(c, req, sizeof(req)) <= 0 || write(c, head, (size_t)n) != n ||
			    write(c, body, len) != (ssize_t)len)
				continue;
		_exit(0);
	}
	close(lfd);
	h_track(pid);
	return port;
}

/* Whether the client cache of the sessions in @dir holds an answer for build-id @id. */
static bool cached(const char *dir, const char *id)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/cache/%s/debuginfo", dir, id);
	return !access(path, F_OK);
}

/*
 * A session whose server answered @id with a wrong file: one message saying so on @err (@what
 * the kind), the workload unnamed, the file gone from the client's cache. Then a session with
 * the right server and the same cache must ask it again, and name the workload.
 */
static void wrong_answer_told_and_not_kept(const char *dir, const char *id, int port,
					   const char *what)
{
	char url[64], want[512], *err;
	struct h_run r;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	run_threads(&r, dir, url);
	err = h_read_file(r.fl.err_path);
	snprintf(want, sizeof(want),
		 "faultline: debuginfod: DEBUGINFOD_URLS=%s answered for build-id %s with %s: not "
		 "used, removed from the client's cache; no debug files from it this session\n",
		 url, id, what);
	cr_expect(strstr(err, want), "no message '%s' in:\n%s", want, err);
	cr_expect(!strstr(err, "faultline: debuginfod:") ||
			  !strstr(strstr(err, "faultline: debuginfod:") + 1,
				  "faultline: debuginfod:"),
		  "more than one message:\n%s", err);
	free(err);
	cr_expect_eq(h_folded_frame(&r.folded, "touch_c"), 0, "touch_c named by a wrong file");
	h_folded_free(&r.folded);
	cr_expect_not(cached(dir, id), "the wrong answer stays in the client's cache");

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", start_server(dir, id));
	run_threads(&r, dir, url);
	err = h_read_file(r.fl.err_path);
	cr_expect_gt(h_folded_frame(&r.folded, "touch_c"), 0,
		     "the next session did not ask the server again:\n%s", err);
	free(err);
	h_folded_free(&r.folded);
}

Test(debuginfod, an_answer_that_is_not_elf_is_told_and_not_kept)
{
	char dir[64], id[64], garbage[128];
	FILE *f;

	h_temp_dir_ok(dir);
	build_stripped(dir, id);
	snprintf(garbage, sizeof(garbage), "%s/garbage", dir);
	f = fopen(garbage, "w");
	cr_assert(f && fputs("<html>not a debug file</html>\n", f) >= 0 && !fclose(f));
	wrong_answer_told_and_not_kept(dir, id, start_answering(garbage), "a file that is not ELF");
}

/* The debug file of the same program with another build-id: its symbols would fit, and must
 * not be used all the same. */
Test(debuginfod, another_builds_debug_file_is_told_and_not_kept)
{
	char dir[64], id[64], other[64], cmd[512], what[128], note_path[128];
	uint8_t note[12 + 4 + 20] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0 };
	FILE *f;

	h_temp_dir_ok(dir);
	build_stripped(dir, id);
	/* the build-id with its first byte changed, as a note objcopy puts in place of the old */
	for (int i = 0; i < 20; i++)
		sscanf(id + 2 * i, "%2hhx", &note[16 + i]);
	note[16] ^= 0xff;
	snprintf(other, sizeof(other), "%02x%s", note[16], id + 2);
	snprintf(note_path, sizeof(note_path), "%s/note.bin", dir);
	f = fopen(note_path, "w");
	cr_assert(f && fwrite(note, sizeof(note), 1, f) == 1 && !fclose(f));
	snprintf(cmd, sizeof(cmd),
		 "objcopy --update-section .note.gnu.build-id=%s %s/srv/threads.debug %s/other",
		 note_path, dir, dir);
	sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "%s/other", dir);
	snprintf(what, sizeof(what), "the debug file of another build (build-id %s)", other);
	wrong_answer_told_and_not_kept(dir, id, start_answering(cmd), what);
}

/* Copies between @a and @b until both sides are done. */
static void relay(int a, int b)
{
	struct pollfd p[2] = { { .fd = a, .events = POLLIN }, { .fd = b, .events = POLLIN } };
	char buf[65536];
	int open = 2;

	while (open && poll(p, 2, 10000) > 0) {
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0 || write(i ? a : b, buf, (size_t)n) != n) {
				shutdown(i ? a : b, SHUT_WR); /* EOF on one side: pass it on */
				p[i].fd = -1;
				open--;
			}
		}
	}
	_exit(0);
}

/* A proxy on a free loopback port to debuginfod at @port that answers each connection
 * @delay_ms late. Its port. */
static int start_slow_proxy(int port, int delay_ms)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int proxy_port, lfd = loopback_socket(true, &proxy_port);
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		for (;;) {
			int c = accept(lfd, NULL, NULL), b;

			if (c < 0)
				_exit(0);
			if (fork() == 0) {
				usleep((useconds_t)delay_ms * 1000);
				b = socket(AF_INET, SOCK_STREAM, 0);
				if (b < 0 || connect(b, (struct sockaddr *)&to, sizeof(to)))
					_exit(1);
				relay(c, b);
			}
			close(c);
		}
	}
	close(lfd);
	h_track(pid);
	return proxy_port;
}

/*
 * The debug file arrives 1.5 s after the stacks were named (a slow server): the live
 * refreshes show the workload's frames as addresses, and the stacks are named again when it
 * comes, so the final document has touch_a/b/c.
 */
Test(debuginfod, stacks_named_again_when_the_file_arrives)
{
	char dir[64], id[64], url[64], stream[128], bin[128], cache[128], *text, *last;
	const char *fl_args[] = { "-i", "0.2", "--json-stream", stream, NULL };
	struct h_run r;
	int port;

	h_temp_dir_ok(dir);
	build_stripped(dir, id);
	port = start_slow_proxy(start_server(dir, id), 1500);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	snprintf(stream, sizeof(stream), "%s/stream.jsonl", dir);
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	setenv("WORKLOADS", bin, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	setenv("DEBUGINFOD_URLS", url, 1);
	h_attach_start_ok(&r, "threads", NULL, fl_args);
	h_attach_work_ok(&r); /* at once: the stacks are named long before the file comes */
	usleep(3000 * 1000);
	h_attach_stop_ok(&r, SIGINT);
	text = h_read_file(stream);
	last = strstr(text, "\"final\":true");
	cr_assert_not_null(last, "no final document in %s", stream);
	cr_expect(strstr(text, "\"threads+0x") && strstr(text, "\"threads+0x") < last,
		  "no refresh before the final one showed the workload's frames unnamed");
	cr_expect(strstr(last, "\"touch_c\""), "the final document does not name touch_c");
	for (int i = 0; i < H_NTOUCHERS; i++)
		h_within_ok(h_touchers[i].fn, h_folded_edge(&r.folded, "toucher_main",
							    h_touchers[i].fn),
			    (int64_t)h_touchers[i].bytes, &r.folded);
	free(text);
	h_folded_free(&r.folded);
}

/* faultline -q -d 2 -v on the stripped workload, waiting, DEBUGINFOD_URLS=@url. Returns its
 * stderr, and in *@took the seconds from its start to its exit. */
static char *session_with(const char *url, double *took)
{
	static const char *const fl_args[] = { "-d", "2", "-v", NULL };
	char dir[64], cache[128], bin[128], id[64];
	struct h_run r;
	double t0;

	h_temp_dir_ok(dir);
	build_stripped(dir, id);
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	setenv("WORKLOADS", bin, 1);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	t0 = now_s();
	h_attach_start_ok(&r, "threads", NULL, fl_args);
	cr_assert_eq(h_wait_exit(&r.fl.proc, H_EXIT_MS), 0, "the session did not end");
	*took = now_s() - t0;
	cr_expect_eq(h_exit_code(&r.fl.proc), 0);
	return h_read_file(r.fl.err_path);
}

static int count(const char *text, const char *word)
{
	int n = 0;

	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
		n++;
	return n;
}

Test(debuginfod, refused_connection_costs_one_message)
{
	char url[64], *err;
	int port, fd = loopback_socket(false, &port); /* bound, not listening: refused */
	double took;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	err = session_with(url, &took);
	close(fd);
	cr_expect_lt(took, 6.0, "a 2 s session took %.1f s", took);
	/* the -v line that says where debug files are asked for, and one failure */
	cr_expect_eq(count(err, "faultline: debuginfod:"), 1, "stderr:\n%s", err);
	cr_expect(strstr(err, "no debug files from it this session"), "stderr:\n%s", err);
	free(err);
}

Test(debuginfod, silent_server_costs_no_time)
{
	char url[64], *err;
	int port, fd = loopback_socket(true, &port); /* connections complete, nobody answers */
	double took;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	err = session_with(url, &took);
	close(fd);
	cr_expect_lt(took, 6.0, "a 2 s session took %.1f s", took);
	cr_expect_leq(count(err, "faultline: debuginfod:"), 1, "stderr:\n%s", err);
	free(err);
}
