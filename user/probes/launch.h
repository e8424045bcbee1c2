/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Launch mode: a child that waits for the probes before it execs the command. */
#ifndef FAULTLINE_LAUNCH_H
#define FAULTLINE_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct launch {
	pid_t pid;
	bool traced; /* seized with ptrace to stop it once at exit, with its mappings intact, and
		      * after each exec, until its new image is named (launch__resume()) */
	bool exec_stopped; /* in that stop after an exec, or after its loader mapped code */
	bool at_exec;	   /* ... after the exec itself: its libraries are not mapped yet */
	bool in_loader;	   /* stopped at each system call until its program's first */
	bool mapping_code; /* ... and in one that makes code executable */
	uint64_t loader_lo, loader_hi; /* the dynamic loader's mappings */
	int go_fd;		       /* write end: one byte lets the child exec */
	int exec_fd; /* read end, close-on-exec in the child: EOF means the exec happened */
	/* faultline's signal state before it changed it: the command starts with this one */
	sigset_t mask;
	sigset_t ignored;
	struct rlimit nofile; /* ... and its open-files limit, before faultline raised it */
	bool reaped;	      /* the command is gone, and status says how */
	int status;
};

/* What launch__on_wait() saw. */
enum launch_event {
	LAUNCH_RUNNING, /* nothing to do: a signal passed on, a stop or a resume */
	LAUNCH_AT_EXIT, /* stopped at its exit, its mappings still readable: launch__release() */
	LAUNCH_GONE,	/* it exited and was reaped: l->status */
	LAUNCH_EXEC,	/* stopped after an exec (its image and loader mapped): launch__resume() */
	LAUNCH_MAPPED,	/* stopped after its loader mapped a library's code: launch__resume() */
};

/* Checks that @command can be executed (found in PATH when it has no '/'), before anything is
 * loaded. Returns 0, or -errno reported on stderr. */
int launch__check(const char *command);

/* The file execvp() runs for @command (searched in PATH when it has no '/'), into @out.
 * Returns 0, or -ENOENT when there is none. */
int launch__resolve(const char *command, char *out, size_t len);

/* Records the signal mask, the ignored signals and the open-files limit of faultline as it was
 * started, before it blocks, ignores or raises any: the command gets those, as if started
 * without faultline. */
void launch__save_signals(struct launch *l);

/* Forks a child that blocks until launch__go(). Returns 0 or -errno. */
int launch__fork(struct launch *l, char *const argv[]);

/* Lets the child exec and waits for the outcome, passing its signals on meanwhile. Returns 0
 * once it runs the command, stopped after the exec when traced (launch__resume()), or died
 * before (l->reaped); -errno of the failed exec, or -EINTR
 * when a SIGINT or SIGTERM came while the exec waited (a stopped child): reported on stderr,
 * child killed and reaped. */
int launch__go(struct launch *l, const char *command);

/*
 * Handles a state change of the child reported by waitpid(@status). While it is traced, the
 * signals it receives are passed on, a group-stop (SIGSTOP, SIGTSTP...) keeps it stopped until
 * a SIGCONT resumes it, and a stop signal that a SIGCONT overtook is dropped, as the kernel
 * drops a pending one.
 */
enum launch_event launch__on_wait(struct launch *l, int status);

/* Lets a child stopped after an exec or a mapping of code run (nothing when it is in neither
 * stop). After the exec, it stops again each time its dynamic loader has mapped a library's
 * code (LAUNCH_MAPPED), until it makes a system call outside the loader: named and their unwind
 * tables loaded at each stop, its stacks are whole from its first instruction, through each
 * library from the library's first. */
void launch__resume(struct launch *l);

/* Lets a child stopped at its exit finish. */
void launch__release(struct launch *l);

/*
 * Stops tracing a command that may still run (the session ends first), and leaves it as it
 * would be untraced: running, or stopped when a signal stopped it, with the signal it was
 * receiving delivered. Waits at most about a second for it to reach a ptrace stop; if it
 * exits meanwhile, it is reaped (l->reaped). Without ptrace, does nothing.
 */
void launch__detach(struct launch *l);

/*
 * Passes SIGINT or SIGTERM (@sig) that faultline received on to the command, unless the
 * terminal sent it (@from_terminal: the kernel sent it to the foreground process group) and
 * the command is in faultline's process group, so it got the same one. Returns true when sent.
 */
bool launch__forward(const struct launch *l, int sig, bool from_terminal);

/* Kills and reaps a child that never got to exec (setup failed). */
void launch__abort(struct launch *l);

#endif /* FAULTLINE_LAUNCH_H */
