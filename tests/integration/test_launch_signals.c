/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Launch mode and signals: the command starts with the signal state faultline was given (not
 * the one it sets up for itself), job control works on it while faultline traces it, SIGINT
 * and SIGTERM to faultline reach it once, and a session that ends first leaves it running
 * normally: not stopped, not traced, its signal mask clean.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(launch_signals, .init = setup, .fini = h_cleanup, .timeout = 90);

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	usleep((useconds_t)ms * 1000);
}

/* The value of "@key:" in /proc/@pid/status into @buf ("" when absent or gone). */
static void status_field(pid_t pid, const char *key, char *buf, size_t len)
{
	char path[64], *text, *at;
	size_t klen = strlen(key);

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	text = h_read_file(path);
	buf[0] = '\0';
	for (at = text; at && *at; at = strchr(at, '\n'), at = at ? at + 1 : NULL) {
		if (strncmp(at, key, klen) || at[klen] != ':')
			continue;
		at += klen + 1;
		at += strspn(at, " \t");
		snprintf(buf, len, "%.*s", (int)strcspn(at, "\n"), at);
		break;
	}
	free(text);
}

/* The first letter of the State: line ('S', 'R', 'T', 't', ...), 0 when gone. */
static char state_of(pid_t pid)
{
	char s[64];

	status_field(pid, "State", s, sizeof(s));
	return s[0];
}

static bool stopped(char state)
{
	return state == 'T' || state == 't';
}

/* Waits until @pid's state is stopped (@want_stopped) or running/sleeping; its last state. */
static char wait_state(pid_t pid, bool want_stopped, int ms)
{
	int64_t end = now_ms() + ms;
	char st;

	while ((st = state_of(pid)) && stopped(st) != want_stopped && now_ms() < end)
		sleep_ms(10);
	return st;
}

/* Waits until faultline's file @path holds @text. */
static bool wait_text(const char *path, const char *text, int ms)
{
	int64_t end = now_ms() + ms;

	for (;;) {
		char *t = h_read_file(path);
		bool found = strstr(t, text) != NULL;

		free(t);
		if (found || now_ms() >= end)
			return found;
		sleep_ms(10);
	}
}

static size_t count_text(const char *hay, const char *text)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, text)); p += strlen(text))
		n++;
	return n;
}

/* Starts `faultline -q [-d SECONDS] -- ARGV...` and returns the command's pid, tracked. */
static pid_t start(struct h_session *s, const char *duration, const char *const *cmd, bool group)
{
	const char *argv[24] = { "-q" };
	size_t n = 1;
	pid_t child;

	if (duration) {
		argv[n++] = "-d";
		argv[n++] = duration;
	}
	argv[n++] = "--";
	for (; *cmd && n < 23; cmd++)
		argv[n++] = *cmd;
	argv[n] = NULL;
	h_session_init_ok(s);
	if (group)
		h_session_start_group_ok(s, argv);
	else
		h_session_start_ok(s, argv);
	h_wait_ready_ok(s);
	child = h_find_child(s->proc.pid, H_LINE_MS);
	cr_assert_gt(child, 0, "faultline's command never appeared in /proc");
	h_track(child);
	/* its exec done: a signal sent before would reach faultline's child, not the command */
	for (int64_t end = now_ms() + H_LINE_MS; now_ms() < end; sleep_ms(5)) {
		char name[32];

		status_field(child, "Name", name, sizeof(name));
		if (strcmp(name, "faultline"))
			break;
	}
	return child;
}

/* Asserts faultline ended within @ms with status @code. */
static void ended_ok(struct h_session *s, int ms, int code)
{
	char *err;

	if (!h_wait_exit(&s->proc, ms) && h_exit_code(&s->proc) == code)
		return;
	err = h_read_file(s->err_path);
	cr_assert_fail("faultline %s (expected status %d within %d ms); its stderr:\n%.2000s",
		       s->proc.reaped ? "ended with another status" : "did not end", code, ms, err);
}

/* Asserts the command was left as if faultline had never been there: not traced, its
 * signal mask empty, in the state @want ('S' sleeping, 'T' stopped). */
static void left_normal_ok(pid_t pid, char want)
{
	char tracer[32], blk[32];

	status_field(pid, "TracerPid", tracer, sizeof(tracer));
	status_field(pid, "SigBlk", blk, sizeof(blk));
	cr_expect_str_eq(tracer, "0", "the command is still traced (TracerPid %s)", tracer);
	cr_expect_str_eq(blk, "0000000000000000", "the command's blocked signals: %s", blk);
	cr_expect_eq(state_of(pid), want, "the command's state is %c, not %c", state_of(pid), want);
}

/*
 * faultline blocks SIGINT, SIGTERM and SIGCHLD for its signalfd (SigBlk 0x14002): the
 * command must not inherit that, nor any signal faultline ignores. The harness starts
 * faultline with those six signals at their default and none blocked.
 */
Test(launch_signals, command_starts_with_faultlines_signal_state)
{
	static const char *const cmd[] = { "grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status",
					   NULL };
	static const int reset[] = { SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE, SIGCHLD };
	unsigned long long ign = 0;
	char want[64], self[32];
	struct h_session s;
	const char *argv[] = { "-q", "--", cmd[0], cmd[1], cmd[2], cmd[3], NULL };
	char *out;

	status_field(getpid(), "SigIgn", self, sizeof(self));
	ign = strtoull(self, NULL, 16);
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		ign &= ~(1ULL << (reset[i] - 1));
	h_session_init_ok(&s);
	h_session_start_ok(&s, argv);
	ended_ok(&s, H_WORK_MS, 0);
	out = h_read_file(s.out_path);
	cr_expect(strstr(out, "SigBlk:\t0000000000000000\n"), "the command's mask:\n%s", out);
	snprintf(want, sizeof(want), "SigIgn:\t%016llx\n", ign);
	cr_expect(strstr(out, want), "the command's ignored signals, expected %s:\n%s", want, out);
	free(out);
}

/* timeout(1) waits for SIGCHLD or SIGALRM: it must end after 1 s, long before sleep's 5. */
Test(launch_signals, timeout_command_ends_on_time)
{
	static const char *const argv[] = { "-q", "--", "timeout", "1", "sleep", "5", NULL };
	struct h_session s;

	h_session_init_ok(&s);
	h_session_start_ok(&s, argv);
	ended_ok(&s, 4000, 124); /* timeout's own status when it killed its command */
}

/* A shell's `wait` for a background job needs SIGCHLD. */
Test(launch_signals, shell_waits_for_background_job)
{
	static const char *const argv[] = { "-q", "--", "sh", "-c", "sleep 1 & wait", NULL };
	struct h_session s;

	h_session_init_ok(&s);
	h_session_start_ok(&s, argv);
	ended_ok(&s, 4000, 0);
}

/*
 * Between its fork and its exec the child is traced already, and stops at any signal it
 * receives (a terminal's SIGWINCH when the window is resized) until faultline passes it on:
 * faultline must not wait for the exec meanwhile. --alloc makes that window longer.
 */
Test(launch_signals, signals_before_exec)
{
	static const char *const argv[] = { "-q", "--alloc", "--", "sleep", "1", NULL };
	struct h_session s;
	int sent = 0;

	h_session_init_ok(&s);
	h_session_start_ok(&s, argv);
	for (int64_t end = now_ms() + 500; now_ms() < end; sleep_ms(2)) {
		char path[64], *kids;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", s.proc.pid, s.proc.pid);
		kids = h_read_file(path);
		if (atoi(kids) > 0 && !kill(atoi(kids), SIGWINCH))
			sent++;
		free(kids);
	}
	cr_assert_gt(sent, 0, "no child to signal");
	ended_ok(&s, H_EXIT_MS, 0);
}

/* kill -STOP stops the command, kill -CONT resumes it (under ptrace: a group-stop). */
Test(launch_signals, command_stops_and_continues)
{
	static const char *const cmd[] = { "sleep", "30", NULL };
	struct h_session s;
	pid_t child = start(&s, NULL, cmd, false);

	h_kill_ok(child, SIGSTOP);
	cr_assert(stopped(wait_state(child, true, 2000)), "SIGSTOP did not stop the command");
	h_kill_ok(child, SIGCONT);
	cr_assert(!stopped(wait_state(child, false, 2000)),
		  "SIGCONT did not resume the command: it stays in state %c", state_of(child));
	h_kill_ok(child, SIGTERM);
	ended_ok(&s, H_EXIT_MS, 128 + SIGTERM);
	cr_expect(wait_text(s.err_path, "killed by SIGTERM", 0), "no word of how it ended");
}

/*
 * Ctrl-Z then fg, as a shell with job control does it: SIGTSTP to the whole process group
 * (faultline stops too), then SIGCONT to it. The command must run again, not stay frozen in
 * a ptrace stop because faultline passed the SIGTSTP on after the SIGCONT.
 */
Test(launch_signals, job_stop_and_continue)
{
	static const char *const cmd[] = { "sleep", "30", NULL };
	struct h_session s;
	pid_t child = start(&s, NULL, cmd, true);

	for (int round = 0; round < 3; round++) {
		cr_assert_eq(kill(-s.proc.pid, SIGTSTP), 0, "kill: %s", strerror(errno));
		cr_assert(stopped(wait_state(s.proc.pid, true, 2000)), "faultline did not stop");
		cr_assert(stopped(wait_state(child, true, 2000)), "the command did not stop");
		cr_assert_eq(kill(-s.proc.pid, SIGCONT), 0, "kill: %s", strerror(errno));
		cr_assert(!stopped(wait_state(s.proc.pid, false, 2000)), "faultline stays stopped");
		cr_assert(!stopped(wait_state(child, false, 2000)),
			  "round %d: the command stays stopped (state %c)", round, state_of(child));
	}
	h_kill_ok(s.proc.pid, SIGTERM);
	ended_ok(&s, H_EXIT_MS, 128 + SIGTERM);
}

/* SIGINT to faultline alone (kill, not a terminal): the command gets it and dies of it, and
 * faultline reports that and exits as a shell would, 128 + SIGINT. */
Test(launch_signals, sigint_ends_the_command)
{
	static const char *const cmd[] = { "sleep", "30", NULL };
	struct h_session s;
	pid_t child = start(&s, NULL, cmd, false);

	h_kill_ok(s.proc.pid, SIGINT);
	ended_ok(&s, H_EXIT_MS, 128 + SIGINT);
	cr_expect_eq(state_of(child), 0, "the command still runs after faultline ended");
	cr_expect(wait_text(s.err_path, "killed by SIGINT", 0), "no word of how it ended");
	cr_expect(wait_text(s.out_path, "sleep (killed by SIGINT)", 0),
		  "the final report does not say how the command ended");
}

/* The signal reaches the command once, from faultline, and faultline waits for its exit. */
Test(launch_signals, sigterm_passed_on_once)
{
	const char *cmd[] = { NULL, "300", NULL };
	char path[4096], line[64], *out;
	struct h_session s;

	snprintf(path, sizeof(path), "%s/signals", getenv("WORKLOADS"));
	cmd[0] = path;
	start(&s, NULL, cmd, false);
	cr_assert(wait_text(s.out_path, "ready\n", H_LINE_MS), "the command never said ready");
	h_kill_ok(s.proc.pid, SIGTERM);
	ended_ok(&s, H_EXIT_MS, 0);
	out = h_read_file(s.out_path);
	snprintf(line, sizeof(line), "SIGTERM code 0 pid %d\n", s.proc.pid);
	cr_expect_eq(count_text(out, "SIGTERM"), 1, "the command got SIGTERM %zu times:\n%s",
		     count_text(out, "SIGTERM"), out);
	cr_expect(strstr(out, line), "not from faultline (%d):\n%s", s.proc.pid, out);
	cr_expect(strstr(out, "(exited with status 0)"), "the report misses its end:\n%s", out);
	free(out);
}

/* What the terminal wrote so far, read from the pty's master @fd into @buf. */
static void drain(int fd, char *buf, size_t cap, size_t *len, int ms)
{
	int64_t end = now_ms() + ms;

	while (now_ms() < end && *len < cap - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 20) <= 0)
			continue;
		n = read(fd, buf + *len, cap - 1 - *len);
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	buf[*len] = '\0';
}

/*
 * A Ctrl-C on the terminal reaches the whole foreground group, the command included:
 * faultline must not send it a second SIGINT, and must wait for its exit.
 */
Test(launch_signals, terminal_ctrl_c_reaches_the_command_once)
{
	static char buf[1 << 16];
	struct winsize ws = { .ws_row = 40, .ws_col = 120 };
	char path[4096];
	size_t len = 0;
	int fd, status = -1;
	pid_t fl;

	snprintf(path, sizeof(path), "%s/signals", getenv("WORKLOADS"));
	fl = forkpty(&fd, NULL, NULL, &ws);
	cr_assert_geq(fl, 0, "forkpty: %s", strerror(errno));
	if (fl == 0) {
		execl(getenv("FAULTLINE"), "faultline", "-q", "--", path, "500", (char *)NULL);
		_exit(127);
	}
	h_track(fl);
	for (int64_t end = now_ms() + H_READY_MS; !strstr(buf, "ready") && now_ms() < end;)
		drain(fd, buf, sizeof(buf), &len, 50);
	cr_assert(strstr(buf, "ready"), "the command never said ready:\n%s", buf);
	cr_assert_eq(write(fd, "\x03", 1), 1);
	for (int64_t end = now_ms() + H_EXIT_MS; now_ms() < end;) {
		drain(fd, buf, sizeof(buf), &len, 50);
		if (waitpid(fl, &status, WNOHANG) == fl)
			break;
	}
	drain(fd, buf, sizeof(buf), &len, 100);
	close(fd);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "faultline did not exit 0 (%#x):\n%s", status, buf);
	cr_expect_eq(count_text(buf, "SIGINT code"), 1, "the command got SIGINT %zu times:\n%s",
		     count_text(buf, "SIGINT code"), buf);
	cr_expect(strstr(buf, "SIGINT code 128 pid 0"), "not from the terminal:\n%s", buf);
	cr_expect(strstr(buf, "(exited with status 0)"), "the report misses its end:\n%s", buf);
}

/* A command that ignores SIGINT: a second SIGINT ends the session at once (well before the
 * grace of 5 s), and the command is left running normally. */
Test(launch_signals, second_sigint_stops_at_once)
{
	static const char *const cmd[] = { "sh", "-c", "trap '' INT; exec sleep 30", NULL };
	struct h_session s;
	pid_t child = start(&s, NULL, cmd, false);
	int64_t t0 = now_ms();
	char name[32] = "";

	/* SIGINT is ignored once sh has exec'd sleep */
	while (strcmp(name, "sleep") && now_ms() - t0 < H_LINE_MS) {
		status_field(child, "Name", name, sizeof(name));
		sleep_ms(10);
	}
	cr_assert_str_eq(name, "sleep", "the command never became sleep");
	h_kill_ok(s.proc.pid, SIGINT);
	cr_assert(wait_text(s.err_path, "waiting up to", H_EXIT_MS), "the first SIGINT unseen");
	t0 = now_ms();
	h_kill_ok(s.proc.pid, SIGINT);
	ended_ok(&s, H_EXIT_MS, 0);
	cr_expect_lt(now_ms() - t0, 3000, "faultline waited out the grace after a second SIGINT");
	left_normal_ok(child, 'S');
}

/* -d ends the session first: the command runs on, untraced, its signal mask clean. */
Test(launch_signals, duration_leaves_the_command_running)
{
	static const char *const cmd[] = { "sleep", "30", NULL };
	struct h_session s;
	pid_t child = start(&s, "1", cmd, false);

	ended_ok(&s, H_EXIT_MS, 0);
	cr_expect(wait_text(s.err_path, "left running", 0), "no word of the command left behind");
	left_normal_ok(child, 'S');
}

/* ... and one a signal stopped stays stopped, untraced, until a SIGCONT resumes it. */
Test(launch_signals, duration_leaves_a_stopped_command_stopped)
{
	static const char *const cmd[] = { "sleep", "30", NULL };
	struct h_session s;
	pid_t child = start(&s, "2", cmd, false);

	h_kill_ok(child, SIGSTOP);
	cr_assert(stopped(wait_state(child, true, 2000)), "SIGSTOP did not stop the command");
	ended_ok(&s, H_EXIT_MS, 0);
	left_normal_ok(child, 'T');
	h_kill_ok(child, SIGCONT);
	cr_expect(!stopped(wait_state(child, false, 2000)), "SIGCONT did not resume it");
}
