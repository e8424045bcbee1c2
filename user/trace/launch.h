/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Launch mode: a child that waits for the probes before it execs the command. */
#ifndef FAULTLINE_LAUNCH_H
#define FAULTLINE_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

struct launch {
	pid_t pid;
	bool traced; /* seized with ptrace to stop it once at exit, with its mappings intact */
	int go_fd;   /* write end: one byte lets the child exec */
	int exec_fd; /* read end, close-on-exec in the child: EOF means the exec happened */
};

/* Checks that @command can be executed (found in PATH when it has no '/'), before anything is
 * loaded. Returns 0, or -errno reported on stderr. */
int launch__check(const char *command);

/* The file execvp() runs for @command (searched in PATH when it has no '/'), into @out.
 * Returns 0, or -ENOENT when there is none. */
int launch__resolve(const char *command, char *out, size_t len);

/* Forks a child that blocks until launch__go(). Returns 0 or -errno. */
int launch__fork(struct launch *l, char *const argv[]);

/* Lets the child exec and waits for the outcome. Returns 0 once it runs the command, or
 * -errno of the failed exec (reported on stderr, child reaped). */
int launch__go(struct launch *l, const char *command);

/*
 * Handles a state change of the child reported by waitpid(@status). Returns 1 when the child
 * stopped at its exit with its mappings still readable (the caller reads them, then calls
 * launch__release()), 2 when it is gone (reaped), 0 otherwise (signals are passed on).
 */
int launch__on_wait(struct launch *l, int status);

/* Lets a child stopped at its exit finish. */
void launch__release(struct launch *l);

/* Kills and reaps a child that never got to exec (setup failed). */
void launch__abort(struct launch *l);

#endif /* FAULTLINE_LAUNCH_H */
