/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * How sessions begin and end: errors and their exit statuses, a target that exits in the
 * middle of a session, and nothing left attached after SIGINT.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

#define MAX_IDS 4096

static void setup(void)
{
	h_require_root();
}

TestSuite(session, .init = setup, .fini = h_cleanup, .timeout = 90);

/* Runs faultline with @args to its end; returns its exit code, @s keeps its outputs. */
static int run_to_end(struct h_session *s, const char *const *args)
{
	h_session_init_ok(s);
	h_session_start_ok(s, args);
	cr_assert_eq(h_wait_exit(&s->proc, H_EXIT_MS), 0, "faultline did not exit");
	return h_exit_code(&s->proc);
}

/* A pid that is certainly free: a child of ours that was just reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0, "fork");
	if (pid == 0)
		_exit(0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid, "waitpid");
	return pid;
}

Test(session, nonexistent_pid_is_a_runtime_error)
{
	struct h_session s;
	char pid[16], *err;
	const char *args[] = { "-q", "-p", pid, NULL };
	int code;

	snprintf(pid, sizeof(pid), "%d", dead_pid());
	code = run_to_end(&s, args);
	err = h_read_file(s.err_path);
	cr_expect_eq(code, 1,
		     "faultline -p %s (no such process) exited with %d, not 1; "
		     "stderr:\n%s",
		     pid, code, err);
	cr_expect(strstr(err, pid), "the error does not name pid %s; stderr:\n%s", pid, err);
	cr_expect(!strstr(err, "faultline: tracing"), "it claimed to trace a process that is gone");
	free(err);
}

static void expect_usage_error(const char *const *args, const char *what)
{
	struct h_session s;
	char *err;
	int code = run_to_end(&s, args);

	err = h_read_file(s.err_path);
	cr_expect_eq(code, 2, "%s: exit status %d, not 2; stderr:\n%s", what, code, err);
	cr_expect(err[0] != '\0', "%s: nothing on stderr", what);
	free(err);
}

Test(session, usage_errors_exit_2)
{
	static const char *const bogus_metric[] = { "-q", "--metric", "bogus", "-p", "1", NULL };
	static const char *const no_target[] = { "-q", NULL };
	static const char *const bad_duration[] = { "-q", "-d", "soon", "-p", "1", NULL };
	static const char *const bad_pid[] = { "-q", "-p", "12x", NULL };

	expect_usage_error(bogus_metric, "--metric bogus");
	expect_usage_error(no_target, "no target");
	expect_usage_error(bad_duration, "-d soon");
	expect_usage_error(bad_pid, "-p 12x");
}

static double elapsed_s(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - since->tv_sec) + (now.tv_nsec - since->tv_nsec) / 1e9;
}

/* exiter touches 16 MiB, says done, exits 300 ms later; -d 30 must not be waited out. */
Test(session, target_exit_ends_session)
{
	static const char *const fl[] = { "-d", "30", NULL };
	struct timespec start;
	struct h_run r;
	char *out;

	h_attach_start_ok(&r, "exiter", NULL, fl);
	clock_gettime(CLOCK_MONOTONIC, &start);
	h_kill_ok(r.wl.pid, SIGUSR1);
	cr_assert_eq(h_wait_exit(&r.wl, H_WORK_MS), 0, "exiter did not exit");
	cr_assert_eq(h_exit_code(&r.wl), 0);
	cr_assert_eq(h_wait_exit(&r.fl.proc, H_EXIT_MS), 0,
		     "faultline still runs 10 s after its only target exited");
	cr_assert_eq(h_exit_code(&r.fl.proc), 0, "a target that exits is a success: status %d",
		     h_exit_code(&r.fl.proc));
	cr_expect_lt(elapsed_s(&start), 10.0, "the session lasted %.1f s", elapsed_s(&start));
	out = h_read_file(r.fl.out_path);
	cr_expect(out[0] != '\0', "no final report on stdout");
	free(out);
	h_folded_load_ok(r.fl.folded_path, &r.folded);
	h_within_ok("resident growth under touch_before_exit",
		    h_folded_frame(&r.folded, "touch_before_exit"), (int64_t)(16 * H_MIB),
		    &r.folded);
	h_within_ok("resident growth under main;touch_before_exit",
		    h_folded_edge(&r.folded, "main", "touch_before_exit"), (int64_t)(16 * H_MIB),
		    &r.folded);
	h_folded_free(&r.folded);
}

static bool has_id(const uint32_t *ids, int n, uint32_t id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * The ids faultline holds (from its fdinfo) must show in bpftool while it runs, and none of
 * them after it exits. Comparing only faultline's own ids keeps the test right when other
 * BPF users come and go at the same time.
 */
static void check_detached(pid_t fl_pid, const char *kind, const char *key, struct h_run *r)
{
	static uint32_t owned[MAX_IDS], during[MAX_IDS], after[MAX_IDS];
	int nowned, nduring, nafter;

	nowned = h_fdinfo_ids(fl_pid, key, owned, MAX_IDS);
	nduring = h_bpftool_ids(kind, during, MAX_IDS);
	cr_assert_gt(nowned, 0, "faultline holds no BPF %s (%s in fdinfo): %d", kind, key, nowned);
	cr_assert_geq(nduring, 0, "bpftool -j %s show failed", kind);
	for (int i = 0; i < nowned; i++)
		cr_assert(has_id(during, nduring, owned[i]), "bpftool does not list %s %u", kind,
			  owned[i]);

	h_attach_work_ok(r);
	h_attach_stop_ok(r, SIGINT);
	nafter = h_bpftool_ids(kind, after, MAX_IDS);
	cr_assert_geq(nafter, 0, "bpftool -j %s show failed", kind);
	for (int i = 0; i < nowned; i++)
		cr_expect(!has_id(after, nafter, owned[i]),
			  "BPF %s %u is still there after faultline exited", kind, owned[i]);
}

Test(session, nothing_left_attached_after_sigint_progs)
{
	static const char *const wl[] = { "2", NULL };
	struct h_run r;

	h_attach_start_ok(&r, "threads", wl, NULL);
	check_detached(r.fl.proc.pid, "prog", "prog_id", &r);
	h_folded_free(&r.folded);
}

Test(session, nothing_left_attached_after_sigint_links)
{
	static const char *const wl[] = { "2", NULL };
	struct h_run r;

	h_attach_start_ok(&r, "threads", wl, NULL);
	check_detached(r.fl.proc.pid, "link", "link_id", &r);
	h_folded_free(&r.folded);
}

/*
 * faultline -q -d 1 -p (this process) as user nobody, with the capabilities @caps given
 * through setpriv ("+bpf,+perfmon"), or none (NULL, setuid drops them all); its stderr into
 * @err. Returns its exit status (99: the test could not drop to nobody, 97: setpriv refused
 * the capabilities, 98: the exec failed).
 */
static int run_unprivileged(const char *caps, char *err, size_t len)
{
	char self[16], fl[PATH_MAX];
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	/* nobody cannot enter a clone kept in /root, or any 0700 directory */
	h_path_for_user_ok(getenv("FAULTLINE"), 65534, 65534, fl, sizeof(fl));
	snprintf(self, sizeof(self), "%d", getpid());
	cr_assert_eq(pipe(fds), 0, "pipe");
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0, "fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fds[1], STDERR_FILENO);
		dup2(null, STDOUT_FILENO);
		/* the test's own directory may be out of nobody's reach too */
		if (chdir("/"))
			_exit(99);
		if (caps) {
			char inh[128], amb[128];

			snprintf(inh, sizeof(inh), "--inh-caps=%s", caps);
			snprintf(amb, sizeof(amb), "--ambient-caps=%s", caps);
			execlp("setpriv", "setpriv", "--reuid=65534", "--regid=65534",
			       "--clear-groups", inh, amb, fl, "-q", "-d", "1", "-p", self,
			       (char *)NULL);
			_exit(97);
		}
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(99);
		execl(fl, "faultline", "-q", "-d", "1", "-p", self, (char *)NULL);
		fprintf(stderr, "test: exec %s as nobody: %s\n", fl, strerror(errno));
		_exit(98);
	}
	close(fds[1]);
	while (got < (ssize_t)len - 1 && (n = read(fds[0], err + got, len - 1 - got)) > 0)
		got += n;
	err[got] = '\0';
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Test(session, unprivileged_is_a_clear_runtime_error)
{
	char err[1024];
	int code = run_unprivileged(NULL, err, sizeof(err));

	cr_expect_eq(code, 1, "as nobody: exit status %d, not 1; stderr:\n%s", code, err);
	cr_expect(strstr(err, "root"), "the error does not say root is needed; stderr:\n%s", err);
	cr_expect(!strstr(err, "libbpf"), "libbpf's own messages leak out; stderr:\n%s", err);
}

/*
 * Not root, with CAP_BPF and CAP_PERFMON: tracefs is there but unreadable (mode 0700), so the
 * message must say which capability is missing, not that tracefs is not mounted; with
 * CAP_DAC_READ_SEARCH as well, the session runs.
 */
Test(session, capabilities_without_root)
{
	char err[1024];
	int code = run_unprivileged("+bpf,+perfmon", err, sizeof(err));

	/* an exec that fails is the test's fault, not setpriv's: it must not pass as a skip */
	cr_assert(!strstr(err, "failed to execute"), "setpriv could not run faultline:\n%s", err);
	if (code == 97 || strstr(err, "setpriv:"))
		cr_skip_test("setpriv cannot give the capabilities here: %s", err);
	cr_expect_eq(code, 1, "exit status %d, not 1; stderr:\n%s", code, err);
	cr_expect(strstr(err, "CAP_DAC_READ_SEARCH"), "the missing capability is not named:\n%s",
		  err);
	cr_expect(!strstr(err, "not mounted"), "tracefs blamed:\n%s", err);
	code = run_unprivileged("+bpf,+perfmon,+dac_read_search", err, sizeof(err));
	cr_expect_eq(code, 0, "with CAP_DAC_READ_SEARCH too: exit status %d; stderr:\n%s", code,
		     err);
}

/* An empty and a garbage file in place of the kernel's BTF (bind-mounted in a mount namespace
 * of the test's own), with no kernel types cached (a cache made for this kernel needs no
 * BTF file): the message must blame the BTF, not say "No such process". */
Test(session, bad_btf_is_named)
{
	static const char *const contents[] = { "", "garbage, not BTF\n" };
	char dir[64], btf[96], cmd[512];

	h_temp_dir_ok(dir);
	snprintf(btf, sizeof(btf), "%s/vmlinux", dir);
	for (size_t i = 0; i < sizeof(contents) / sizeof(contents[0]); i++) {
		FILE *f = fopen(btf, "w");
		char *err;
		int status;

		cr_assert_not_null(f);
		fputs(contents[i], f);
		fclose(f);
		snprintf(cmd, sizeof(cmd),
			 "unshare -m sh -c 'mount --bind %s /sys/kernel/btf/vmlinux && "
			 "FAULTLINE_CACHE=%s exec %s -q -d 1 -p %d' >/dev/null 2>%s/err",
			 btf, dir, getenv("FAULTLINE"), getpid(), dir);
		status = system(cmd);
		snprintf(btf + strlen(dir), sizeof(btf) - strlen(dir), "/err");
		err = h_read_file(btf);
		snprintf(btf, sizeof(btf), "%s/vmlinux", dir);
		if (strstr(err, "unshare:") || strstr(err, "mount:"))
			cr_skip_test("no private mount namespace here: %s", err);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit status %d: %s",
			  status, err);
		cr_expect(strstr(err, "BTF"), "the message does not name the BTF: %s", err);
		cr_expect(!strstr(err, "No such process"), "misleading message: %s", err);
		free(err);
	}
}

/* faultline @args (NULL-terminated) with the open-files limit @soft/@hard; its stdout and
 * stderr into @out. Returns its exit status. */
static int run_with_nofile(rlim_t soft, rlim_t hard, const char *const *args, char *out, size_t len)
{
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	cr_assert_eq(pipe(fds), 0, "pipe");
	pid = fork();
	cr_assert_geq(pid, 0, "fork");
	if (pid == 0) {
		struct rlimit r = { soft, hard };

		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		if (setrlimit(RLIMIT_NOFILE, &r))
			_exit(99);
		execv(getenv("FAULTLINE"), (char *const *)args);
		_exit(98);
	}
	close(fds[1]);
	while (got < (ssize_t)len - 1 && (n = read(fds[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * A low open-files limit: when the hard limit allows, faultline raises its own soft limit (a
 * launched command keeps the one it was given); when not, it says the limit is too low and
 * how to raise it, instead of "Too many open files".
 */
Test(session, open_files_limit)
{
	const char *cmd[] = { "faultline", "-q", "--",
			      "sh",	   "-c", "grep 'open files' /proc/self/limits",
			      NULL };
	char self[16], out[4096];
	const char *attach[] = { "faultline", "-q", "-d", "1", "-p", self, NULL };
	struct rlimit now;
	int code;

	snprintf(self, sizeof(self), "%d", getpid());
	/* the hard limit can only be lowered (CAP_SYS_RESOURCE is not always there): keep it */
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &now), 0);
	if (now.rlim_max < 1024)
		cr_skip_test("the hard open-files limit is %llu", (unsigned long long)now.rlim_max);
	code = run_with_nofile(16, 16, attach, out, sizeof(out));
	cr_expect_eq(code, 1, "at ulimit -n 16: exit status %d: %s", code, out);
	cr_expect(strstr(out, "open-files limit (16) is too low") && strstr(out, "ulimit -n"),
		  "the limit is not named with its fix: %s", out);
	code = run_with_nofile(16, now.rlim_max, attach, out, sizeof(out));
	cr_expect_eq(code, 0, "soft 16, hard %llu: exit status %d: %s",
		     (unsigned long long)now.rlim_max, code, out);
	code = run_with_nofile(100, now.rlim_max, cmd, out, sizeof(out));
	cr_expect_eq(code, 0, "launched: exit status %d: %s", code, out);
	cr_expect(strstr(out, "Max open files            100 "),
		  "the command did not keep its soft limit of 100: %s", out);
}

Test(session, command_that_cannot_run_is_a_runtime_error)
{
	static const char *const args[] = { "-q", "--", "/nonexistent/command", NULL };
	struct h_session s;
	char *err;
	int code = run_to_end(&s, args);

	err = h_read_file(s.err_path);
	cr_expect_eq(code, 1, "exit status %d, not 1; stderr:\n%s", code, err);
	cr_expect(strstr(err, "/nonexistent/command"), "the error does not name the command:\n%s",
		  err);
	free(err);
}

/*
 * A target that execs and exits before faultline reads its status again: the figures it
 * holds are the old image's (here, at attach), not the ones at its exit. They must not be
 * shown as "rss at exit" (with a gap of the whole growth): unknown, or the new image's.
 */
Test(session, exec_then_exit_before_a_refresh)
{
	char script[4200], pid[16], json[128], *doc, *now;
	const char *args[] = { "-q", "-i", "10", "--json", json, "-p", pid, NULL };
	struct h_session s;
	pid_t sh;

	snprintf(script, sizeof(script),
		 "trap 'exec %s/exiter --now 16 0' USR1; while :; do sleep 0.02; done",
		 getenv("WORKLOADS"));
	sh = fork();
	cr_assert_geq(sh, 0, "fork");
	if (sh == 0) {
		freopen("/dev/null", "w", stdout);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	h_track(sh);
	snprintf(pid, sizeof(pid), "%d", sh);
	h_session_init_ok(&s);
	snprintf(json, sizeof(json), "%s/json", s.dir);
	h_session_start_ok(&s, args);
	h_wait_ready_ok(&s);
	h_kill_ok(sh, SIGUSR1);
	cr_assert_eq(h_wait_exit(&s.proc, H_WORK_MS), 0, "faultline did not end with its target");
	cr_assert_eq(h_exit_code(&s.proc), 0);
	waitpid(sh, NULL, 0);
	doc = h_read_file(json);
	now = strstr(doc, "\"status_now\":");
	cr_assert(now, "no status_now:\n%.2000s", doc);
	now += strlen("\"status_now\":");
	if (strncmp(now, "null", 4)) {
		char *anon = strstr(now, "\"rss_anon\":");

		cr_assert(anon, "no rss_anon:\n%.2000s", doc);
		cr_expect_geq(strtoll(anon + strlen("\"rss_anon\":"), NULL, 10),
			      (long long)(16 * H_MIB),
			      "the figures at exit are the old image's:\n%.2000s", doc);
	}
	free(doc);
}

/* A hang-up (the terminal or ssh session gone) ends the session like SIGINT: outputs written,
 * exit 0, the bytes of touch_a/b/c there. */
Test(session, sighup_ends_the_session_with_its_outputs)
{
	static const char *const wl[] = { "4", "8", "12", NULL };
	struct h_run r;

	h_attach_start_ok(&r, "threads", wl, NULL);
	h_attach_work_ok(&r);
	h_attach_stop_ok(&r, SIGHUP);
	h_within_ok("touch_a", h_folded_frame(&r.folded, "touch_a"), (int64_t)(4 * H_MIB),
		    &r.folded);
	h_within_ok("touch_c", h_folded_frame(&r.folded, "touch_c"), (int64_t)(12 * H_MIB),
		    &r.folded);
	h_folded_free(&r.folded);
}

/* The .btf files in @dir/btf (a kernel's types cached) of more than 100 bytes (not spoiled). */
static size_t cached_types(const char *dir)
{
	char cmd[160];
	size_t n = 0;
	FILE *ls;

	snprintf(cmd, sizeof(cmd), "find %s/btf -name '*.btf' -size +100c 2>/dev/null | wc -l",
		 dir);
	ls = popen(cmd, "r");
	cr_assert_not_null(ls);
	if (fscanf(ls, "%zu", &n) != 1)
		n = 0;
	pclose(ls);
	return n;
}

/* Waits until the cache is made in @dir: bpftool, in the background, on a busy machine. */
static void wait_cached_ok(const char *dir)
{
	struct timespec pause = { 0, 50 * 1000000L };

	for (int waited = 0; !cached_types(dir) && waited < 600; waited++)
		nanosleep(&pause, NULL);
	cr_assert_eq(cached_types(dir), 1, "no cache made in %s within 30 s", dir);
}

/* One attach run of threads with -v: faultline's stderr must hold @says; anon as /proc says. */
static void types_run_ok(const char *says)
{
	static const char *const fl[] = { "-v", "--metric", "anon", NULL };
	struct h_run r;
	char *err;

	h_attach_run_ok(&r, "threads", NULL, fl);
	err = h_read_file(r.fl.err_path);
	cr_expect(strstr(err, says), "no \"%s\" in:\n%s", says, err);
	h_within_ok("anon growth vs RssAnon delta", h_folded_total(&r.folded),
		    r.after.anon - r.before.anon, &r.folded);
	h_within_ok("anon growth under touch_c", h_folded_frame(&r.folded, "touch_c"),
		    (int64_t)(24 * H_MIB), &r.folded);
	free(err);
	h_folded_free(&r.folded);
}

/*
 * The kernel types the CO-RE relocations use: read whole by the first session, cached in the
 * background as it ends, read from the cache by the next, with the same figures; a cache
 * spoiled is dropped without a word and made again.
 */
Test(session, kernel_types_cached_for_the_next_start)
{
	char dir[64], cmd[160];

	h_temp_dir_ok(dir);
	setenv("FAULTLINE_CACHE", dir, 1);
	types_run_ok("kernel types read whole");
	wait_cached_ok(dir);
	types_run_ok("kernel types from the cache");
	snprintf(cmd, sizeof(cmd), "for f in %s/btf/*.btf; do echo spoiled > $f; done", dir);
	cr_assert_eq(system(cmd), 0);
	types_run_ok("kernel types read whole");
	wait_cached_ok(dir);
}
