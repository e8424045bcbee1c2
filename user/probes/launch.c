// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/launch.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/procfs.h"
#include "symbols/procmaps.h"

/* How long launch__detach() waits for the command to reach a ptrace stop. */
#define DETACH_WAIT_MS 1000

void launch__save_signals(struct launch *l)
{
	getrlimit(RLIMIT_NOFILE, &l->nofile);
	sigprocmask(SIG_BLOCK, NULL, &l->mask);
	sigemptyset(&l->ignored);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (!sigaction(sig, NULL, &sa) && sa.sa_handler == SIG_IGN)
			sigaddset(&l->ignored, sig);
	}
}

/*
 * The command's signal state is the one faultline was started with: exec keeps the mask and
 * the ignored signals, and faultline blocks SIGINT, SIGTERM and SIGCHLD for its signalfd
 * (with SIGCHLD blocked, `timeout` and `sh -c 'cmd & wait'` wait forever).
 */
static void restore_signals(const struct launch *l)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (!sigaction(sig, NULL, &sa) && sa.sa_handler == SIG_IGN &&
		    !sigismember(&l->ignored, sig))
			signal(sig, SIG_DFL);
	}
	sigprocmask(SIG_SETMASK, &l->mask, NULL);
}

static void child_main(const struct launch *l, int go_fd, int exec_fd, char *const argv[])
{
	static const char gone[] = "faultline: the command was not started: faultline ended "
				   "before it could trace it\n";
	char byte;
	int err;

	/* the parent may die before it lets us go: then read() sees EOF, and we say so */
	if (read(go_fd, &byte, 1) != 1) {
		if (write(STDERR_FILENO, gone, sizeof(gone) - 1) < 0)
			_exit(127);
		_exit(127);
	}
	close(go_fd);
	setrlimit(RLIMIT_NOFILE, &l->nofile); /* faultline raised its own */
	/* last, so a Ctrl-C during the setup stays pending until now */
	restore_signals(l);
	execvp(argv[0], argv);
	err = errno;
	if (write(exec_fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

static bool executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

int launch__resolve(const char *command, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(command, '/')) {
		snprintf(out, len, "%s", command);
		return executable(command) ? 0 : -ENOENT;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", command);
		if (executable(out))
			return 0;
		p += n + (p[n] == ':');
	}
	return -ENOENT;
}

int launch__check(const char *command)
{
	char buf[4096];

	if (!launch__resolve(command, buf, sizeof(buf)))
		return 0;
	fprintf(stderr, "faultline: cannot run '%s': %s\n", command,
		errno == EACCES || !strchr(command, '/') ? "not found or not executable" :
							   strerror(errno ? errno : ENOENT));
	return -ENOENT;
}

int launch__fork(struct launch *l, char *const argv[])
{
	int go[2], ex[2];

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	fflush(NULL);
	l->pid = fork();
	if (l->pid < 0) {
		int err = -errno;

		close(go[0]), close(go[1]), close(ex[0]), close(ex[1]);
		return err;
	}
	if (l->pid == 0) {
		close(go[1]);
		close(ex[0]);
		child_main(l, go[0], ex[1], argv);
	}
	close(go[0]);
	close(ex[1]);
	/*
	 * A short command can exit before the first refresh reads its mappings: stopping it once
	 * at exit keeps them readable. Without ptrace (Yama, seccomp) frames of libraries mapped
	 * after exec may stay unnamed, nothing worse.
	 */
	l->traced = ptrace(PTRACE_SEIZE, l->pid, NULL,
			   (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC |
					  PTRACE_O_TRACESYSGOOD)) == 0;
	l->go_fd = go[1];
	l->exec_fd = ex[0];
	return 0;
}

static bool stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/*
 * A stop signal the command was receiving when a SIGCONT came: the kernel drops the stop
 * signals a SIGCONT finds pending, and this one only waited for us. Delivered now, it would
 * stop the command after the SIGCONT meant to resume it (Ctrl-Z then fg, with faultline
 * stopped by the same Ctrl-Z before it passed the SIGTSTP on).
 */
static bool overtaken(pid_t pid, int sig)
{
	const uint64_t cont = 1ULL << (SIGCONT - 1);
	struct proc_signals ps;

	if (!stop_signal(sig) || procfs__read_signals(pid, &ps))
		return false;
	return ((ps.pending | ps.shared_pending) & cont) && !(ps.blocked & cont);
}

/* The signal a signal-delivery-stop should deliver when the command resumes. */
static int signal_to_deliver(pid_t pid, int status)
{
	int sig = WSTOPSIG(status);

	return overtaken(pid, sig) ? 0 : sig;
}

/* The base of the dynamic loader of the image @pid runs (AT_BASE of its auxiliary vector), or
 * 0: a static program, or the loader run as the program. */
static uint64_t loader_base(pid_t pid)
{
	uint64_t av[2], base = 0;
	int fd = procfs__open(pid, "auxv", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while (!base && read(fd, av, sizeof(av)) == sizeof(av) && av[0] != AT_NULL)
		if (av[0] == AT_BASE)
			base = av[1];
	close(fd);
	return base;
}

/* [*@lo, *@hi): the mappings of the file mapped at @base in @pid (the dynamic loader). False
 * when they cannot be read. */
static bool loader_range(pid_t pid, uint64_t base, uint64_t *lo, uint64_t *hi)
{
	const struct procmap_entry *at;
	struct procmaps maps;
	FILE *f;

	if (!base || procfs__fopen(pid, "maps", &f))
		return false;
	if (procmaps__parse(f, &maps)) {
		fclose(f);
		return false;
	}
	fclose(f);
	at = procmaps__find(&maps, base);
	*lo = *hi = 0;
	for (size_t i = 0; at && i < maps.nr; i++) {
		const struct procmap_entry *e = &maps.entries[i];

		if (e->inode != at->inode || e->dev_major != at->dev_major ||
		    e->dev_minor != at->dev_minor)
			continue;
		if (!*hi)
			*lo = e->start;
		*hi = e->end;
	}
	procmaps__free(&maps);
	return *hi != 0;
}

/*
 * After an exec, the dynamic loader maps the program's libraries, then runs their
 * initialisers and the program. Until the first system call made outside the loader, the
 * child stops at each system call (PTRACE_SYSCALL), so that the code each mmap brings is named
 * and unwound before a line of it runs. A syscall stop leaves nothing in the child: if
 * faultline dies, the kernel detaches the child and it goes on, as after any other stop.
 */
static void watch_loader(struct launch *l)
{
	l->in_loader = loader_range(l->pid, loader_base(l->pid), &l->loader_lo, &l->loader_hi);
	l->mapping_code = false;
}

/* PTRACE_SYSCALL while the loader maps code, else PTRACE_CONT, delivering @sig. */
static void resume(const struct launch *l, int sig)
{
	ptrace(l->in_loader ? PTRACE_SYSCALL : PTRACE_CONT, l->pid, NULL, (void *)(long)sig);
}

/* A syscall-stop of the child in the loader's care: LAUNCH_MAPPED when it stopped after a
 * call that made code executable (mmap, mprotect with PROT_EXEC), else resumed. */
static enum launch_event on_syscall(struct launch *l)
{
	struct __ptrace_syscall_info si;
	long got = ptrace(PTRACE_GET_SYSCALL_INFO, l->pid, (void *)sizeof(si), &si);

	if (got <= 0 || si.op == PTRACE_SYSCALL_INFO_NONE) {
		l->in_loader = false; /* nothing to tell the calls apart by: stop watching */
	} else if (si.op == PTRACE_SYSCALL_INFO_ENTRY) {
		if (si.instruction_pointer < l->loader_lo || si.instruction_pointer >= l->loader_hi)
			l->in_loader = false; /* the program's own code runs: all of it is mapped */
		else
			l->mapping_code =
				(si.entry.nr == SYS_mmap || si.entry.nr == SYS_mprotect) &&
				(si.entry.args[2] & PROT_EXEC);
	} else if (si.op == PTRACE_SYSCALL_INFO_EXIT && l->mapping_code) {
		l->mapping_code = false;
		if (!si.exit.is_error) {
			l->exec_stopped = true;
			return LAUNCH_MAPPED;
		}
	}
	resume(l, 0);
	return LAUNCH_RUNNING;
}

enum launch_event launch__on_wait(struct launch *l, int status)
{
	int event = status >> 16;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		l->reaped = true;
		l->status = status;
		return LAUNCH_GONE;
	}
	if (!WIFSTOPPED(status) || !l->traced)
		return LAUNCH_RUNNING;
	if (event == PTRACE_EVENT_EXIT)
		return LAUNCH_AT_EXIT;
	if (event == PTRACE_EVENT_EXEC) {
		l->exec_stopped = true;
		l->at_exec = true;
		return LAUNCH_EXEC;
	}
	if (!event && WSTOPSIG(status) == (SIGTRAP | 0x80))
		return on_syscall(l);
	if (event == PTRACE_EVENT_STOP) {
		/*
		 * A group-stop reports its stop signal: PTRACE_LISTEN keeps the command stopped
		 * and lets a SIGCONT wake it. It then stops again with SIGTRAP (the group-stop
		 * is over), as after a PTRACE_INTERRUPT: it must be resumed, or it stays frozen.
		 */
		if (WSTOPSIG(status) == SIGTRAP)
			resume(l, 0);
		else
			ptrace(PTRACE_LISTEN, l->pid, NULL, NULL);
		return LAUNCH_RUNNING;
	}
	resume(l, signal_to_deliver(l->pid, status));
	return LAUNCH_RUNNING;
}

void launch__resume(struct launch *l)
{
	if (!l->exec_stopped)
		return;
	l->exec_stopped = false;
	if (l->at_exec)
		watch_loader(l);
	l->at_exec = false;
	resume(l, 0);
}

void launch__release(struct launch *l)
{
	ptrace(PTRACE_DETACH, l->pid, NULL, NULL);
	l->traced = false;
}

/* Waits until the child is gone, letting it through its stops. */
static void wait_gone(struct launch *l)
{
	int status;

	launch__resume(l);
	while (!l->reaped && waitpid(l->pid, &status, 0) == l->pid) {
		enum launch_event e = launch__on_wait(l, status);

		if (e == LAUNCH_AT_EXIT)
			launch__release(l);
		else if (e == LAUNCH_EXEC || e == LAUNCH_MAPPED)
			launch__resume(l);
	}
}

/* A SIGINT or SIGTERM waits for faultline (blocked for its signalfd). */
static bool stop_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGINT) || sigismember(&set, SIGTERM));
}

int launch__go(struct launch *l, const char *command)
{
	ssize_t got = 0;
	int err = 0, status;

	if (write(l->go_fd, "g", 1) != 1)
		err = errno;
	close(l->go_fd);
	l->go_fd = -1;
	/*
	 * Traced since its fork, the child stops at every signal it receives (a terminal's
	 * SIGWINCH or Ctrl-Z) until it is passed on: a blocking read would wait for an exec that
	 * waits for us.
	 */
	while (!err) {
		struct pollfd p = { .fd = l->exec_fd, .events = POLLIN };

		if (poll(&p, 1, 10) > 0) {
			got = read(l->exec_fd, &err, sizeof(err));
			if (got >= 0 || errno != EINTR)
				break;
		} else if (stop_pending()) {
			/* still no exec (a SIGSTOP keeps it stopped): SIGINT must not wait for it */
			err = EINTR;
			kill(l->pid, SIGKILL);
			break;
		}
		if (!l->reaped && waitpid(l->pid, &status, WNOHANG) == l->pid &&
		    launch__on_wait(l, status) == LAUNCH_AT_EXIT)
			launch__release(l);
	}
	close(l->exec_fd);
	l->exec_fd = -1;
	/* EOF: it exec'd, or died before (l->reaped tells, or the next wait will); traced, it
	 * waits in the stop after its exec for its image to be named */
	if (got <= 0 && !err) {
		while (l->traced && !l->reaped && !l->exec_stopped &&
		       waitpid(l->pid, &status, 0) == l->pid)
			if (launch__on_wait(l, status) == LAUNCH_AT_EXIT)
				launch__release(l);
		return 0;
	}
	if (err == EINTR)
		fprintf(stderr, "faultline: interrupted before '%s' started\n", command);
	else
		fprintf(stderr, "faultline: cannot run '%s': %s\n", command, strerror(err));
	wait_gone(l);
	return -err;
}

void launch__abort(struct launch *l)
{
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->exec_fd >= 0)
		close(l->exec_fd);
	kill(l->pid, SIGKILL);
	wait_gone(l);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

void launch__detach(struct launch *l)
{
	int status, sig = 0;
	pid_t got = 0;

	if (!l->traced || l->reaped)
		return;
	l->traced = false;
	if (l->exec_stopped) { /* already in a ptrace stop */
		l->exec_stopped = false;
		ptrace(PTRACE_DETACH, l->pid, NULL, NULL);
		return;
	}
	/* PTRACE_DETACH needs a ptrace stop; faultline's exit would untrace it as well, but
	 * the command's signals would wait in their stops until then */
	if (ptrace(PTRACE_INTERRUPT, l->pid, NULL, NULL))
		return;
	for (int ms = 0; ms < DETACH_WAIT_MS && !got; ms++) {
		got = waitpid(l->pid, &status, WNOHANG);
		if (!got)
			sleep_ms(1);
	}
	if (got != l->pid)
		return; /* stuck (uninterruptible sleep): faultline's exit untraces it */
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		l->reaped = true;
		l->status = status;
		return;
	}
	/* the first stop will do: ours, a syscall's, a group-stop (it stays stopped), its exit,
	 * a signal, which is delivered */
	if (WIFSTOPPED(status) && !(status >> 16) && WSTOPSIG(status) != (SIGTRAP | 0x80))
		sig = signal_to_deliver(l->pid, status);
	ptrace(PTRACE_DETACH, l->pid, NULL, (void *)(long)sig);
	/* stopped at its exit: it ends now, and how it ended is still worth reporting */
	if (status >> 16 == PTRACE_EVENT_EXIT && waitpid(l->pid, &status, 0) == l->pid) {
		l->reaped = true;
		l->status = status;
	}
}

bool launch__forward(const struct launch *l, int sig, bool from_terminal)
{
	if (l->reaped || (from_terminal && getpgid(l->pid) == getpgrp()))
		return false;
	return kill(l->pid, sig) == 0;
}
