/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The integration tests' harness: spawns workloads (tests/workloads, see workload.h for their
 * protocol) and faultline, waits with a bound on every wait, reads /proc/PID/status, parses
 * folded files, and kills whatever it spawned when a test ends, passed or not.
 *
 * Environment: FAULTLINE = path of the faultline binary, WORKLOADS = directory of the built
 * workloads (make integration sets both); BPFTOOL optionally overrides "bpftool".
 * Helpers whose name ends in _ok assert (cr_assert) instead of returning an error.
 */
#ifndef FAULTLINE_TEST_HARNESS_H
#define FAULTLINE_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define H_MIB (1024ULL * 1024ULL)
#define H_TOLERANCE 0.02 /* the "within 2%" */

/* Bounds on every wait, in milliseconds. */
#define H_READY_MS 20000 /* faultline: probes live */
#define H_LINE_MS 10000	 /* a workload's "ready" */
#define H_WORK_MS 30000	 /* a workload's work, up to "done" */
#define H_EXIT_MS 10000	 /* a process's exit after it was told to */

/* A spawned process. */
struct h_proc {
	pid_t pid;
	int out_fd;	/* read end of its stdout pipe (workloads), else -1 */
	char out[4096]; /* what was read from out_fd so far */
	size_t out_len;
	bool reaped;
	int status; /* wait status, once reaped */
};

/* One faultline run: its process and the files that hold its outputs. */
struct h_session {
	struct h_proc proc;
	char dir[64];
	char out_path[96];    /* its stdout */
	char err_path[96];    /* its stderr */
	char folded_path[96]; /* for --folded */
};

/* RSS counters of /proc/PID/status, in bytes. */
struct h_rss {
	int64_t anon, file, shmem;
};

struct h_fline {
	char **frames;
	size_t nframes;
	uint64_t value;
};

struct h_folded {
	char layout[96]; /* the first line: "# faultline folded metric=M by=B threads=T" */
	struct h_fline *lines;
	size_t n;
	char err[160]; /* why h_folded_load() failed */
};

/* The threads workload's defaults: toucher-a 8 MiB, toucher-b 16 MiB, toucher-c 24 MiB, each
 * from touch_a, touch_b, touch_c. */
struct h_toucher {
	const char *fn, *thread;
	uint64_t bytes;
};
#define H_NTOUCHERS 3
extern const struct h_toucher h_touchers[H_NTOUCHERS];

/* Skips the test unless root; fails it when FAULTLINE or WORKLOADS is not set. */
void h_require_root(void);
/* Kills and reaps everything spawned, removes the session directories. A suite's .fini. */
void h_cleanup(void);

/* Starts workload @name with @args (NULL-terminated, may be NULL), stdout on a pipe. */
void h_spawn_workload_ok(struct h_proc *w, const char *name, const char *const *args);
/* Reads @w's stdout until a whole line equal to @line arrives: 0, -ETIMEDOUT or -EPIPE. */
int h_wait_line(struct h_proc *w, const char *line, int timeout_ms);
/* ... until a whole line starting with @prefix arrives; *@rest is what follows the prefix. */
int h_wait_prefix(struct h_proc *w, const char *prefix, const char **rest, int timeout_ms);

/* A new directory under /tmp in @dir, removed with its files by h_cleanup(). */
void h_temp_dir_ok(char dir[64]);
/*
 * A path from which user @uid (group @gid, no others) can run the executable @path, into @out:
 * @path itself when that user can reach it, else a copy in a new directory of that user's,
 * removed by h_cleanup() (a clone in a 0700 directory, such as /root, is out of its reach),
 * under /tmp, else /var/tmp, else /dev/shm. Skips the test when that user can run none of them
 * (all mounted noexec).
 */
void h_path_for_user_ok(const char *path, uid_t uid, gid_t gid, char *out, size_t len);
/* Creates @s's directory and paths; call before building faultline's arguments. */
void h_session_init_ok(struct h_session *s);
/* Starts faultline with @args (NULL-terminated), stdout and stderr to @s's files. */
void h_session_start_ok(struct h_session *s, const char *const *args);
/* h_session_start_ok(), faultline leading a process group of its own (pgid = its pid), as a
 * shell with job control starts a command: a signal sent to the group reaches its command. */
void h_session_start_group_ok(struct h_session *s, const char *const *args);
/* Waits until faultline's stderr has a line starting "faultline: tracing": 0 or -errno. */
int h_wait_ready(struct h_session *s, int timeout_ms);
/* Asserts the readiness line came within H_READY_MS, showing faultline's stderr if not. */
void h_wait_ready_ok(struct h_session *s);

/* Waits until faultline's stderr has a line starting with @prefix: 0 or -errno. */
int h_wait_stderr(struct h_session *s, const char *prefix, int timeout_ms);
/* Asserts that faultline, run with -v, said within H_READY_MS that the unwind tables of its
 * -p targets are in: they follow the attach, and a walk before them goes by frame pointers. */
void h_wait_tables_ok(struct h_session *s);

/* Waits for @p to exit: 0 once reaped, -ETIMEDOUT. */
int h_wait_exit(struct h_proc *p, int timeout_ms);
/* Exit status of a reaped process; 128 + signal when a signal killed it. */
int h_exit_code(const struct h_proc *p);
/* Sends @sig; asserts it was delivered. */
void h_kill_ok(pid_t pid, int sig);
/* Registers a pid that h_cleanup() must kill (e.g. a child faultline launched). */
void h_track(pid_t pid);
/* The pid of a child of @parent found in /proc, waiting up to @timeout_ms; -1 if none. */
pid_t h_find_child(pid_t parent, int timeout_ms);

/* Contents of a file (malloc'ed, NUL-terminated; "" when unreadable). */
char *h_read_file(const char *path);
/* True when @path holds a line equal to @line. */
bool h_file_has_line(const char *path, const char *line);

/* Reads RssAnon/RssFile/RssShmem of @pid: 0 or -errno. */
int h_read_status(pid_t pid, struct h_rss *r);
void h_read_status_ok(pid_t pid, struct h_rss *r);

/* Parses a folded file strictly, its first line the layout line: 0, or -EINVAL with f->err
 * set, or -errno. */
int h_folded_load(const char *path, struct h_folded *f);
void h_folded_load_ok(const char *path, struct h_folded *f);
void h_folded_free(struct h_folded *f);
/* Sum of every line's value. */
uint64_t h_folded_total(const struct h_folded *f);
/* Sum of the lines that hold frame @name (from frame 1 on; each line counted once). */
uint64_t h_folded_frame(const struct h_folded *f, const char *name);
/*
 * Sum of the lines in which frame @caller is immediately followed by frame @callee: checks
 * that a stack is whole, not only that it ends in the right function.
 */
uint64_t h_folded_edge(const struct h_folded *f, const char *caller, const char *callee);
/* Sum of the lines whose second frame (the thread with -T) is @name. */
uint64_t h_folded_thread(const struct h_folded *f, const char *name);
/* Asserts that every line's first frame is @comm. */
void h_folded_root_ok(const struct h_folded *f, const char *comm);

/* |@got - @want| <= H_TOLERANCE * |@want|. */
bool h_within(double got, double want);
/*
 * Expects (the test goes on) h_within(); the message names @what, both values and the
 * heaviest lines of the folded file.
 */
void h_within_ok(const char *what, uint64_t got, int64_t want, const struct h_folded *f);

/*
 * The bytes of @what ("growth_bytes", "alloc_bytes") in the stack_walks of the --json document
 * at @path: on whole stacks into *@whole, on stacks cut for any reason into *@cut.
 */
void h_walks_ok(const char *path, const char *what, uint64_t *whole, uint64_t *cut);

/* The ids every "id" key of `bpftool -j prog|link show` lists; count returned, -errno. */
int h_bpftool_ids(const char *kind, uint32_t *ids, size_t max);
/* The BPF program and link ids @pid holds open, from /proc/PID/fdinfo; count, -errno. */
int h_fdinfo_ids(pid_t pid, const char *key, uint32_t *ids, size_t max);

/*
 * An attach-mode run in three steps. start: workload up and "ready", faultline
 * `-q -p PID --folded F ARGS` up and tracing, status read. work: SIGUSR1, "done", status
 * read. stop: @sig to faultline, its exit asserted 0 within H_EXIT_MS, workload released,
 * folded file loaded.
 */
struct h_run {
	struct h_proc wl;
	struct h_session fl;
	struct h_rss before, after;
	struct h_folded folded;
	double end_s; /* launch mode: from the command's "done" to faultline's exit, seconds */
};

void h_attach_start_ok(struct h_run *r, const char *workload, const char *const *wl_args,
		       const char *const *fl_args);
void h_attach_work_ok(struct h_run *r);
void h_attach_stop_ok(struct h_run *r, int sig);
void h_attach_run_ok(struct h_run *r, const char *workload, const char *const *wl_args,
		     const char *const *fl_args);
/* The same for a test of whole stacks from the work's first fault: faultline runs with -v,
 * and the window opens once it said the target's unwind tables are in (h_wait_tables_ok()). */
void h_attach_start_whole_ok(struct h_run *r, const char *workload, const char *const *wl_args,
			     const char *const *fl_args);
void h_attach_run_whole_ok(struct h_run *r, const char *workload, const char *const *wl_args,
			   const char *const *fl_args);

/*
 * A launch-mode run: `faultline -q --folded F ARGS -- WORKLOAD --now --exit WL_ARGS`; asserts
 * that faultline prints its readiness line within H_READY_MS, the workload its "done" within
 * H_WORK_MS after that, and that faultline then ends by itself with status 0 within H_EXIT_MS
 * (r->end_s: how long it took); loads the folded file.
 */
void h_launch_run_ok(struct h_run *r, const char *workload, const char *const *wl_args,
		     const char *const *fl_args);
/* h_launch_run_ok() with @work_ms for the workload's "done", for work that is long by itself. */
void h_launch_run_for_ok(struct h_run *r, const char *workload, const char *const *wl_args,
			 const char *const *fl_args, int work_ms);

#endif /* FAULTLINE_TEST_HARNESS_H */
