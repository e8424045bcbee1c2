/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The integration tests' harness; see harness.h. */
#include "harness.h"
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define H_MAX_TRACKED 64
#define H_MAX_DIRS 16
#define H_MAX_ARGS 48
#define H_POLL_MS 10

/*
 * What h_cleanup() must undo. Each test runs in its own Criterion worker process, so these
 * only ever hold the current test's children.
 */
static pid_t tracked[H_MAX_TRACKED];
static size_t ntracked;
static char dirs[H_MAX_DIRS][64];
static size_t ndirs;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static const char *env_or_fail(const char *name)
{
	const char *v = getenv(name);

	cr_assert(v && *v, "%s is not set: run the integration tests with `make integration`",
		  name);
	return v;
}

void h_require_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("integration tests load BPF programs: run them as root");
	env_or_fail("FAULTLINE");
	env_or_fail("WORKLOADS");
}

void h_track(pid_t pid)
{
	cr_assert_lt(ntracked, H_MAX_TRACKED, "harness: too many processes");
	tracked[ntracked++] = pid;
}

static void untrack(pid_t pid)
{
	for (size_t i = 0; i < ntracked; i++) {
		if (tracked[i] == pid) {
			tracked[i] = tracked[--ntracked];
			return;
		}
	}
}

/* @dir and all it holds (a test may make folders in it: a debuginfod cache, a server's). */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR ||
		    (e->d_type == DT_UNKNOWN && !lstat(path, &st) && S_ISDIR(st.st_mode)))
			remove_dir(path);
		else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

void h_cleanup(void)
{
	/* Newest first: faultline before the workload it watches. */
	while (ntracked) {
		pid_t pid = tracked[--ntracked];
		int64_t deadline = now_ms() + 2000;

		kill(pid, SIGKILL);
		/* Not our child (a workload faultline launched): nothing to reap. */
		while (waitpid(pid, NULL, WNOHANG) == 0 && now_ms() < deadline)
			sleep_ms(H_POLL_MS);
	}
	while (ndirs)
		remove_dir(dirs[--ndirs]);
}

/* In the child: a clean signal state, stdin from /dev/null, the given stdout/stderr; with
 * @own_group, the leader of a new process group. */
static void child_exec(const char *path, char *const argv[], int out_fd, int err_fd,
		       bool own_group)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE, SIGCHLD };
	sigset_t none;
	int null;

	/* If the test process dies, its children must not outlive it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	if (own_group)
		setpgid(0, 0);
	null = open("/dev/null", O_RDONLY);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (out_fd >= 0)
		dup2(out_fd, STDOUT_FILENO);
	if (err_fd >= 0)
		dup2(err_fd, STDERR_FILENO);
	execv(path, argv);
	fprintf(stderr, "harness: exec %s: %s\n", path, strerror(errno));
	_exit(127);
}

static void proc_init(struct h_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->pid = -1;
	p->out_fd = -1;
}

static void spawn_ok(struct h_proc *p, const char *path, char *const argv[], int out_fd,
		     int err_fd, bool own_group)
{
	fflush(NULL);
	p->pid = fork();
	cr_assert_geq(p->pid, 0, "fork: %s", strerror(errno));
	if (p->pid == 0)
		child_exec(path, argv, out_fd, err_fd, own_group);
	/* the parent sets it too: a signal sent to the group right after fork finds it */
	if (own_group)
		setpgid(p->pid, p->pid);
	h_track(p->pid);
}

void h_spawn_workload_ok(struct h_proc *w, const char *name, const char *const *args)
{
	char path[PATH_MAX], *argv[H_MAX_ARGS];
	int fds[2];
	size_t n = 0;

	proc_init(w);
	snprintf(path, sizeof(path), "%s/%s", env_or_fail("WORKLOADS"), name);
	cr_assert_eq(access(path, X_OK), 0, "workload %s: %s", path, strerror(errno));
	argv[n++] = path;
	for (; args && *args; args++) {
		cr_assert_lt(n, H_MAX_ARGS - 1);
		argv[n++] = (char *)*args;
	}
	argv[n] = NULL;
	/* O_CLOEXEC: faultline must not inherit the pipe, or EOF would never come. */
	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0, "pipe2: %s", strerror(errno));
	spawn_ok(w, path, argv, fds[1], -1, false);
	close(fds[1]);
	w->out_fd = fds[0];
}

/* True when @buf (NUL-terminated) holds @line as a whole line. */
static bool has_line(const char *buf, const char *line, bool prefix)
{
	size_t len = strlen(line);

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, line, len))
			continue;
		if (prefix || p[len] == '\n')
			return true;
	}
	return false;
}

static int wait_line(struct h_proc *w, const char *line, bool prefix, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;

	for (;;) {
		struct pollfd pfd = { .fd = w->out_fd, .events = POLLIN };
		int64_t left = deadline - now_ms();
		ssize_t n;

		/* a line read whole: its end has come */
		if (has_line(w->out, line, prefix) &&
		    (!prefix || strchr(strstr(w->out, line), '\n')))
			return 0;
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		if (w->out_len >= sizeof(w->out) - 1)
			return -ENOBUFS;
		n = read(w->out_fd, w->out + w->out_len, sizeof(w->out) - 1 - w->out_len);
		if (n <= 0)
			return -EPIPE;
		w->out_len += (size_t)n;
		w->out[w->out_len] = '\0';
	}
}

int h_wait_line(struct h_proc *w, const char *line, int timeout_ms)
{
	return wait_line(w, line, false, timeout_ms);
}

int h_wait_prefix(struct h_proc *w, const char *prefix, const char **rest, int timeout_ms)
{
	int err = wait_line(w, prefix, true, timeout_ms);

	*rest = err ? NULL : strstr(w->out, prefix) + strlen(prefix);
	return err;
}

/* A new directory under @parent in @dir, removed with its files by h_cleanup(): 0 or -errno. */
static int temp_dir_in(const char *parent, char dir[64])
{
	snprintf(dir, 64, "%s/faultline-test-XXXXXX", parent);
	if (!mkdtemp(dir))
		return -errno;
	cr_assert_lt(ndirs, H_MAX_DIRS);
	strcpy(dirs[ndirs++], dir);
	return 0;
}

void h_temp_dir_ok(char dir[64])
{
	int err = temp_dir_in("/tmp", dir);

	cr_assert(!err, "mkdtemp: %s", strerror(-err));
}

/* 0 when @uid/@gid may execute @path (access(2) in a child that became that user), else the
 * errno. */
static int user_may_exec(const char *path, uid_t uid, gid_t gid)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
			_exit(255);
		_exit(access(path, X_OK) ? errno : 0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid, "waitpid: %s", strerror(errno));
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) != 255,
		  "harness: could not become uid %u gid %u", (unsigned)uid, (unsigned)gid);
	return WEXITSTATUS(status);
}

static void copy_file_ok(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	char buf[65536];
	ssize_t n;

	cr_assert(in >= 0 && out >= 0, "copy %s to %s: %s", from, to, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n, "write %s: %s", to, strerror(errno));
	cr_assert_eq(n, 0, "read %s: %s", from, strerror(errno));
	/* the umask may have taken bits off */
	cr_assert_eq(fchmod(out, mode), 0, "chmod %s: %s", to, strerror(errno));
	close(in);
	cr_assert_eq(close(out), 0, "close %s: %s", to, strerror(errno));
}

void h_path_for_user_ok(const char *path, uid_t uid, gid_t gid, char *out, size_t len)
{
	/* /tmp may be mounted noexec, and so may /dev/shm */
	static const char *const parents[] = { "/tmp", "/var/tmp", "/dev/shm" };
	const char *base = strrchr(path, '/');
	int err = user_may_exec(path, uid, gid), copy_err = 0;
	char dir[64];

	cr_assert_lt(strlen(path), len, "harness: path too long: %s", path);
	strcpy(out, path);
	if (!err)
		return;
	for (size_t i = 0; i < sizeof(parents) / sizeof(parents[0]); i++) {
		copy_err = -temp_dir_in(parents[i], dir);
		if (copy_err)
			continue;
		/* the directory is that user's alone; the copy, root's, is not its to change */
		cr_assert_eq(chown(dir, uid, gid), 0, "chown %s: %s", dir, strerror(errno));
		cr_assert_lt((size_t)snprintf(out, len, "%s/%s", dir, base ? base + 1 : path), len,
			     "harness: path too long");
		copy_file_ok(path, out, 0755);
		copy_err = user_may_exec(out, uid, gid);
		if (!copy_err)
			return;
	}
	cr_skip_test("uid %u can run neither %s (%s) nor a copy in /tmp, /var/tmp or /dev/shm "
		     "(the last: %s)",
		     (unsigned)uid, path, strerror(err), strerror(copy_err));
}

void h_session_init_ok(struct h_session *s)
{
	memset(s, 0, sizeof(*s));
	proc_init(&s->proc);
	h_temp_dir_ok(s->dir);
	snprintf(s->out_path, sizeof(s->out_path), "%s/stdout", s->dir);
	snprintf(s->err_path, sizeof(s->err_path), "%s/stderr", s->dir);
	snprintf(s->folded_path, sizeof(s->folded_path), "%s/folded", s->dir);
}

static void session_start_ok(struct h_session *s, const char *const *args, bool own_group)
{
	const char *path = env_or_fail("FAULTLINE");
	char *argv[H_MAX_ARGS];
	size_t n = 0;
	int out, err;

	argv[n++] = (char *)path;
	for (; args && *args; args++) {
		cr_assert_lt(n, H_MAX_ARGS - 1);
		argv[n++] = (char *)*args;
	}
	argv[n] = NULL;
	out = open(s->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	err = open(s->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert(out >= 0 && err >= 0, "open %s: %s", s->dir, strerror(errno));
	spawn_ok(&s->proc, path, argv, out, err, own_group);
	close(out);
	close(err);
}

void h_session_start_ok(struct h_session *s, const char *const *args)
{
	session_start_ok(s, args, false);
}

void h_session_start_group_ok(struct h_session *s, const char *const *args)
{
	session_start_ok(s, args, true);
}

static bool reap(struct h_proc *p)
{
	if (!p->reaped && waitpid(p->pid, &p->status, WNOHANG) == p->pid) {
		p->reaped = true;
		untrack(p->pid);
	}
	return p->reaped;
}

int h_wait_ready(struct h_session *s, int timeout_ms)
{
	return h_wait_stderr(s, "faultline: tracing", timeout_ms);
}

int h_wait_stderr(struct h_session *s, const char *prefix, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;

	for (;;) {
		char *err = h_read_file(s->err_path);
		bool ready = has_line(err, prefix, true);

		free(err);
		if (ready)
			return 0;
		if (reap(&s->proc))
			return -ECHILD;
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		sleep_ms(H_POLL_MS);
	}
}

void h_wait_ready_ok(struct h_session *s)
{
	int err = h_wait_ready(s, H_READY_MS);

	if (!err)
		return;
	/* The test ends here; the text is not freed. */
	cr_assert_fail("faultline never printed \"faultline: tracing\" (%s); its stderr:\n%.2000s",
		       err == -ECHILD ? "it exited" : "timed out", h_read_file(s->err_path));
}

void h_wait_tables_ok(struct h_session *s)
{
	int err = h_wait_stderr(s, "faultline: unwind tables of pid", H_READY_MS);

	if (!err)
		return;
	/* The test ends here; the text is not freed. */
	cr_assert_fail("faultline never said its targets' unwind tables were in (%s); its "
		       "stderr:\n%.2000s",
		       err == -ECHILD ? "it exited" : "timed out", h_read_file(s->err_path));
}

int h_wait_exit(struct h_proc *p, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;

	while (!reap(p)) {
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		sleep_ms(H_POLL_MS);
	}
	return 0;
}

int h_exit_code(const struct h_proc *p)
{
	if (WIFSIGNALED(p->status))
		return 128 + WTERMSIG(p->status);
	return WEXITSTATUS(p->status);
}

void h_kill_ok(pid_t pid, int sig)
{
	cr_assert_eq(kill(pid, sig), 0, "kill(%d, %s): %s", pid, strsignal(sig), strerror(errno));
}

/* The parent pid in /proc/PID/stat, read after the last ')' (comm may hold anything). */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd, ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

pid_t h_find_child(pid_t parent, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;

	do {
		DIR *d = opendir("/proc");
		struct dirent *e;
		pid_t found = -1;

		while (d && (e = readdir(d)) && found < 0) {
			pid_t pid = (pid_t)atoi(e->d_name);

			if (pid > 0 && parent_of(pid) == parent)
				found = pid;
		}
		if (d)
			closedir(d);
		if (found > 0)
			return found;
		sleep_ms(H_POLL_MS);
	} while (now_ms() < deadline);
	return -1;
}

char *h_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (f) {
		for (;;) {
			if (cap - len < 4096) {
				cap = cap * 2 + 8192;
				buf = realloc(buf, cap);
				cr_assert(buf, "out of memory");
			}
			size_t n = fread(buf + len, 1, cap - len - 1, f);

			if (!n)
				break;
			len += n;
		}
		fclose(f);
	}
	if (!buf)
		buf = malloc(1);
	cr_assert(buf, "out of memory");
	buf[len] = '\0';
	return buf;
}

bool h_file_has_line(const char *path, const char *line)
{
	char *text = h_read_file(path);
	bool found = has_line(text, line, false);

	free(text);
	return found;
}
