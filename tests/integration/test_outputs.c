/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Outputs survive what happens to them: a reader of stdout that goes away (`| head`), a path
 * that cannot be written (told before anything is attached), a full disk (a small tmpfs: no
 * truncated file under the final name, an older file kept), a failed write to stdout, and
 * the same for faultline diff --svg.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

#define MAX_MOUNTS 4

static char mounts[MAX_MOUNTS][64];
static size_t nmounts;

static void setup(void)
{
	h_require_root();
}

static void teardown(void)
{
	/* detached even while a process still holds a file there; then the directories go */
	while (nmounts)
		umount2(mounts[--nmounts], MNT_DETACH);
	h_cleanup();
}

TestSuite(outputs, .init = setup, .fini = teardown, .timeout = 120);

/* A new tmpfs of 64 KiB in @dir (read-only with @ro), unmounted when the test ends. */
static void small_tmpfs_ok(char dir[64], bool ro)
{
	h_temp_dir_ok(dir);
	cr_assert_lt(nmounts, MAX_MOUNTS);
	cr_assert_eq(mount("tmpfs", dir, "tmpfs", ro ? MS_RDONLY : 0, "size=64k,mode=0755"), 0,
		     "mount tmpfs on %s: %s", dir, strerror(errno));
	strcpy(mounts[nmounts++], dir);
}

/* Fills the file system of @dir until only @left bytes (whole pages) remain free. */
static void fill_ok(const char *dir, off_t left)
{
	static const char page[4096];
	char path[96];
	off_t size = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	for (ssize_t n; (n = write(fd, page, sizeof(page))) > 0;)
		size += n;
	cr_assert_eq(errno, ENOSPC, "filling %s: %s", dir, strerror(errno));
	cr_assert_geq(size, left);
	cr_assert_eq(ftruncate(fd, size - left), 0);
	close(fd);
}

/* The names in @dir but "filler", sorted, one per line (hidden ones too). */
static char *names_in(const char *dir)
{
	struct dirent **e;
	int n = scandir(dir, &e, NULL, alphasort);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(n >= 0 && f, "scandir %s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		if (strcmp(e[i]->d_name, ".") && strcmp(e[i]->d_name, "..") &&
		    strcmp(e[i]->d_name, "filler"))
			fprintf(f, "%s\n", e[i]->d_name);
		free(e[i]);
	}
	free(e);
	fclose(f);
	return buf;
}

static void write_text_ok(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0, "%s: %s", path, strerror(errno));
}

/* Runs faultline with @args to its end (within @ms); its exit status. */
static int run_to_end(struct h_session *s, const char *const *args, int ms)
{
	char *err;

	h_session_start_ok(s, args);
	if (h_wait_exit(&s->proc, ms)) {
		err = h_read_file(s->err_path);
		cr_assert_fail("faultline did not exit within %d ms; stderr:\n%.2000s", ms, err);
	}
	return h_exit_code(&s->proc);
}

/* The number of times @text occurs in @s's stderr, waiting up to @ms for the first. */
static int stderr_count(struct h_session *s, const char *text, int ms)
{
	struct timespec ts = { 0, 20 * 1000000L };
	int n = 0;

	for (int waited = 0;; waited += 20) {
		char *err = h_read_file(s->err_path);

		for (const char *p = strstr(err, text); p; p = strstr(p + 1, text))
			n++;
		free(err);
		if (n || waited >= ms)
			return n;
		nanosleep(&ts, NULL);
	}
}

/*
 * faultline's stdout becomes a FIFO whose read end the test holds: closing it is a reader
 * that goes away, as `| head` does. Returns the read end.
 */
static int stdout_fifo_ok(struct h_session *s)
{
	int rd;

	cr_assert_eq(mkfifo(s->out_path, 0600), 0, "mkfifo: %s", strerror(errno));
	/* non-blocking: there is no writer yet; faultline's open then finds a reader */
	rd = open(s->out_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	cr_assert_geq(rd, 0, "%s: %s", s->out_path, strerror(errno));
	return rd;
}

/* Reads from @rd until something came (within H_READY_MS), then closes it. */
static void read_some_then_close(int rd)
{
	struct pollfd p = { .fd = rd, .events = POLLIN };
	char buf[256];

	cr_assert_eq(poll(&p, 1, H_READY_MS), 1, "nothing on faultline's stdout");
	cr_assert_gt(read(rd, buf, sizeof(buf)), 0);
	close(rd);
}

/* The threads workload, "ready", and faultline `-p PID ARGS` with stdout on a FIFO. */
static int attach_to_fifo_ok(struct h_run *r, const char *const *fl_args)
{
	const char *args[16];
	char pid[16];
	size_t n = 0;
	int rd;

	memset(r, 0, sizeof(*r));
	h_spawn_workload_ok(&r->wl, "threads", NULL);
	cr_assert_eq(h_wait_line(&r->wl, "ready", H_LINE_MS), 0, "threads is not ready");
	h_session_init_ok(&r->fl);
	snprintf(pid, sizeof(pid), "%d", r->wl.pid);
	args[n++] = "-p";
	args[n++] = pid;
	for (; *fl_args; fl_args++)
		args[n++] = *fl_args;
	args[n] = NULL;
	rd = stdout_fifo_ok(&r->fl);
	h_session_start_ok(&r->fl, args);
	h_wait_ready_ok(&r->fl);
	return rd;
}

/* The workload's work, then SIGINT to faultline: its exit status. */
static int work_then_stop(struct h_run *r)
{
	char *err;

	h_kill_ok(r->wl.pid, SIGUSR1);
	cr_assert_eq(h_wait_line(&r->wl, "done", H_WORK_MS), 0, "threads never said done");
	kill(r->fl.proc.pid, SIGINT);
	if (h_wait_exit(&r->fl.proc, H_EXIT_MS)) {
		err = h_read_file(r->fl.err_path);
		cr_assert_fail("faultline did not exit after SIGINT; stderr:\n%.2000s", err);
	}
	return h_exit_code(&r->fl.proc);
}

/* `faultline -p PID --folded F | head`: the table ends, the session and its file do not. */
Test(outputs, closed_stdout_ends_the_table_not_the_session)
{
	static const char *const msg = "writing the table to stdout failed: Broken pipe";
	struct h_run r;
	/* the session's own folded path, filled in when the session is set up */
	const char *fl[] = { "-i", "0.2", "--folded", r.fl.folded_path, NULL };
	char *err;
	int code, rd;

	rd = attach_to_fifo_ok(&r, fl);
	read_some_then_close(rd);
	if (!stderr_count(&r.fl, msg, 5000)) {
		err = h_read_file(r.fl.err_path);
		cr_assert_eq(h_wait_exit(&r.fl.proc, 0), -ETIMEDOUT,
			     "faultline ended (status %d) when its stdout closed; stderr:\n%.2000s",
			     h_exit_code(&r.fl.proc), err);
		cr_assert_fail("no \"%s\" within 5 s; stderr:\n%.2000s", msg, err);
	}
	code = work_then_stop(&r);
	err = h_read_file(r.fl.err_path);
	cr_expect_eq(code, 0, "a reader that went away is no failure: status %d; stderr:\n%s", code,
		     err);
	cr_expect_eq(stderr_count(&r.fl, msg, 0), 1, "said more than once:\n%s", err);
	free(err);
	/* the growth came after stdout closed: the session went on and wrote its file */
	h_folded_load_ok(r.fl.folded_path, &r.folded);
	for (size_t i = 0; i < H_NTOUCHERS; i++)
		h_within_ok(h_touchers[i].fn, h_folded_frame(&r.folded, h_touchers[i].fn),
			    (int64_t)h_touchers[i].bytes, &r.folded);
	h_folded_free(&r.folded);
}

/* A machine format on stdout that cannot be delivered is a failure: exit 1, said, no 141. */
Test(outputs, closed_stdout_fails_a_stdout_output)
{
	static const char *const fl_json[] = { "-q", "--json", "-", NULL };
	static const char *const fl_stream[] = { "-q", "-i", "0.2", "--json-stream", "-", NULL };
	const char *const *runs[] = { fl_json, fl_stream };
	const char *what[] = { "--json -", "--json-stream -" };

	for (size_t i = 0; i < 2; i++) {
		struct h_run r;
		char *err;
		int code, rd = attach_to_fifo_ok(&r, runs[i]);

		if (runs[i] == fl_stream)
			read_some_then_close(rd);
		else
			close(rd); /* --json writes at the end only */
		code = work_then_stop(&r);
		err = h_read_file(r.fl.err_path);
		cr_expect_eq(code, 1, "%s to a closed stdout: status %d, not 1; stderr:\n%s",
			     what[i], code, err);
		cr_expect(strstr(err, "faultline: writing stdout failed: Broken pipe"),
			  "stderr:\n%s", err);
		free(err);
		h_kill_ok(r.wl.pid, SIGUSR2);
		h_wait_exit(&r.wl, H_EXIT_MS);
	}
}

/*
 * faultline must not die of SIGPIPE, but what it launches must: a caught signal is reset by
 * exec, an ignored one would be inherited. /proc/self/status of the command itself.
 */
Test(outputs, a_launched_command_keeps_sigpipe_default)
{
	static const char *const args[] = { "-q", "--", "/bin/cat", "/proc/self/status", NULL };
	unsigned long long ign = ~0ULL, cgt = ~0ULL, blk = ~0ULL;
	const unsigned long long bit = 1ULL << (SIGPIPE - 1);
	struct h_session s;
	char *out, *p;

	h_session_init_ok(&s);
	cr_assert_eq(run_to_end(&s, args, H_WORK_MS), 0);
	out = h_read_file(s.out_path);
	if ((p = strstr(out, "\nSigBlk:")))
		blk = strtoull(p + 8, NULL, 16);
	if ((p = strstr(out, "\nSigIgn:")))
		ign = strtoull(p + 8, NULL, 16);
	if ((p = strstr(out, "\nSigCgt:")))
		cgt = strtoull(p + 8, NULL, 16);
	cr_expect_eq(ign & bit, 0, "the command inherits SIGPIPE ignored:\n%s", out);
	cr_expect_eq(cgt & bit, 0, "the command has a SIGPIPE handler:\n%s", out);
	cr_expect_eq(blk & bit, 0, "the command has SIGPIPE blocked:\n%s", out);
	free(out);
}

/* An output path that cannot be written: exit 1 before attaching, naming it and why. */
Test(outputs, unwritable_paths_fail_before_attaching)
{
	static const char *const opts[] = { "--folded", "--json", "--json-stream", "--pprof",
					    "--svg" };
	char ro[64], dir[64], bad[4][96], file[96], pid[16];
	const char *cause[4] = { "No such file or directory", "Read-only file system",
				 "Is a directory", "Not a directory" };
	struct h_proc wl;

	small_tmpfs_ok(ro, true);
	h_temp_dir_ok(dir);
	snprintf(bad[0], sizeof(bad[0]), "%s/missing/out", dir);
	snprintf(bad[1], sizeof(bad[1]), "%s/out", ro);
	snprintf(bad[2], sizeof(bad[2]), "%s", dir);
	snprintf(bad[3], sizeof(bad[3]), "%s/file/out", dir);
	snprintf(file, sizeof(file), "%s/file", dir);
	write_text_ok(file, "");
	h_spawn_workload_ok(&wl, "threads", NULL);
	cr_assert_eq(h_wait_line(&wl, "ready", H_LINE_MS), 0);
	snprintf(pid, sizeof(pid), "%d", wl.pid);
	/* every option, and every cause with some option */
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		size_t j = i % 4;
		/* -d 60: a check left to the end would outlast the wait */
		const char *args[] = { "-q", "-d", "60", opts[i], bad[j], "-p", pid, NULL };
		struct h_session s;
		char *err;
		int code;

		h_session_init_ok(&s);
		code = run_to_end(&s, args, H_EXIT_MS);
		err = h_read_file(s.err_path);
		cr_expect_eq(code, 1, "%s %s: status %d; stderr:\n%s", opts[i], bad[j], code, err);
		cr_expect(!strstr(err, "faultline: tracing"), "%s %s: it attached first", opts[i],
			  bad[j]);
		cr_expect(strstr(err, bad[j]) && strstr(err, cause[j]),
			  "%s %s: the error does not name the path and '%s':\n%s", opts[i], bad[j],
			  cause[j], err);
		free(err);
	}
}

/* faultline with @args (@what, for messages) exits 1 at once, its stderr @want alone. */
static void refused_ok(const char *what, const char *const *args, const char *want)
{
	struct h_session s;
	char *err;
	int code;

	h_session_init_ok(&s);
	code = run_to_end(&s, args, H_EXIT_MS);
	err = h_read_file(s.err_path);
	cr_expect_eq(code, 1, "%s: status %d", what, code);
	cr_expect_str_eq(err, want, "%s", what);
	free(err);
}

/*
 * /proc/1/mem is init's memory, not a file: every output, diff --svg too, refuses it before
 * attaching and says why (the hidden temporary file beside it cannot be made; the stream
 * would write into the process). A new file in /proc/1 names the temporary file's failure.
 */
Test(outputs, a_kernel_interface_is_refused_saying_why)
{
	static const char *const opts[] = { "--folded", "--json", "--json-stream", "--pprof",
					    "--svg" };
	static const char *const why =
		"faultline: cannot write /proc/1/mem: it is a kernel interface (a proc file), not a "
		"file to hold an output\n";
	char dir[64], folded[96], pid[16];
	const char *diff[] = { "diff", "--svg", "/proc/1/mem", folded, folded, NULL };
	struct h_proc wl;

	h_spawn_workload_ok(&wl, "threads", NULL);
	cr_assert_eq(h_wait_line(&wl, "ready", H_LINE_MS), 0);
	snprintf(pid, sizeof(pid), "%d", wl.pid);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		const char *args[] = { "-q", "-d", "60", opts[i], "/proc/1/mem", "-p", pid, NULL };

		refused_ok(opts[i], args, why);
	}
	h_temp_dir_ok(dir);
	snprintf(folded, sizeof(folded), "%s/a.folded", dir);
	write_text_ok(folded, "app;main 4096\n");
	refused_ok("diff --svg", diff, why);
	refused_ok("--json /proc/1/out.json",
		   (const char *const[]){ "-q", "-d", "60", "--json", "/proc/1/out.json", "-p", pid,
					  NULL },
		   "faultline: cannot write /proc/1/out.json: cannot create a temporary file in "
		   "/proc/1 (No such file or directory)\n");
}

/*
 * A disk that fills up while the files are written: 4 KiB free, less than one JSON document
 * or the SVG. Neither file may be left truncated under its name; the older JSON file stays
 * as it was; the stream keeps whole lines only (here none); no temporary file stays behind;
 * exit 1, each path named.
 */
Test(outputs, full_disk_leaves_no_truncated_file)
{
	char mnt[64], json[96], svg[96], stream[96], wl[256], *names, *text, *err;
	const char *args[] = { "-q",   "--json", json, "--svg", svg,	  "--json-stream",
			       stream, "--",	 wl,   "--now", "--exit", NULL };
	struct h_session s;
	int code;

	small_tmpfs_ok(mnt, false);
	snprintf(json, sizeof(json), "%s/out.json", mnt);
	snprintf(svg, sizeof(svg), "%s/out.svg", mnt);
	snprintf(stream, sizeof(stream), "%s/out.jsonl", mnt);
	snprintf(wl, sizeof(wl), "%s/threads", getenv("WORKLOADS"));
	write_text_ok(json, "{\"an older\": \"profile\"}\n");
	fill_ok(mnt, 4096);
	h_session_init_ok(&s);
	code = run_to_end(&s, args, H_WORK_MS);
	err = h_read_file(s.err_path);
	cr_expect_eq(code, 1, "status %d; stderr:\n%s", code, err);
	cr_expect(strstr(err, "writing /") && strstr(err, "/out.json failed: No space left"), "%s",
		  err);
	cr_expect(strstr(err, "/out.svg failed: No space left"), "%s", err);
	cr_expect(strstr(err, "/out.jsonl failed: No space left"), "%s", err);
	free(err);
	text = h_read_file(json);
	cr_expect_str_eq(text, "{\"an older\": \"profile\"}\n", "out.json was overwritten");
	free(text);
	text = h_read_file(stream);
	cr_expect(!text[0] || text[strlen(text) - 1] == '\n',
		  "out.jsonl ends in a line cut short (%zu bytes)", strlen(text));
	free(text);
	names = names_in(mnt);
	cr_expect_str_eq(names, "out.json\nout.jsonl\n", "files left on the full disk:\n%s", names);
	free(names);
}

/* `--folded -` with stdout on a full disk: exit 1, said. */
Test(outputs, stdout_write_failure_exits_1)
{
	char mnt[64], wl[256], *err;
	const char *args[] = { "-q", "--folded", "-", "--", wl, "--now", "--exit", NULL };
	struct h_session s;
	int code;

	small_tmpfs_ok(mnt, false);
	fill_ok(mnt, 0);
	snprintf(wl, sizeof(wl), "%s/threads", getenv("WORKLOADS"));
	h_session_init_ok(&s);
	snprintf(s.out_path, sizeof(s.out_path), "%s/stdout", mnt);
	code = run_to_end(&s, args, H_WORK_MS);
	err = h_read_file(s.err_path);
	cr_expect_eq(code, 1, "status %d; stderr:\n%s", code, err);
	cr_expect(strstr(err, "faultline: writing stdout failed: No space left on device"), "%s",
		  err);
	free(err);
}

/* faultline diff --svg: an unwritable path is told before anything is read or printed, and
 * a full disk leaves no file. */
Test(outputs, diff_svg_unwritable_or_full)
{
	char dir[64], mnt[64], before[96], after[96], svg[96], *out, *err, *names;
	const char *args[] = { "diff", "--svg", svg, before, after, NULL };
	struct h_session s;
	int code;

	h_temp_dir_ok(dir);
	snprintf(before, sizeof(before), "%s/before.folded", dir);
	snprintf(after, sizeof(after), "%s/after.folded", dir);
	write_text_ok(before, "app;main;grow 4096\napp;main;keep 8192\n");
	write_text_ok(after, "app;main;grow 65536\napp;main;keep 8192\n");

	snprintf(svg, sizeof(svg), "%s/missing/diff.svg", dir);
	h_session_init_ok(&s);
	code = run_to_end(&s, args, H_EXIT_MS);
	out = h_read_file(s.out_path);
	err = h_read_file(s.err_path);
	cr_expect_eq(code, 1, "status %d; stderr:\n%s", code, err);
	cr_expect(strstr(err, svg) && strstr(err, "No such file or directory"), "%s", err);
	cr_expect_str_eq(out, "", "a report was printed before the path was checked");
	free(out);
	free(err);

	small_tmpfs_ok(mnt, false);
	fill_ok(mnt, 0);
	snprintf(svg, sizeof(svg), "%s/diff.svg", mnt);
	h_session_init_ok(&s);
	code = run_to_end(&s, args, H_EXIT_MS);
	err = h_read_file(s.err_path);
	cr_expect_eq(code, 1, "status %d; stderr:\n%s", code, err);
	cr_expect(strstr(err, "diff.svg failed: No space left on device"), "%s", err);
	free(err);
	names = names_in(mnt);
	cr_expect_str_eq(names, "", "files left on the full disk:\n%s", names);
	free(names);
}

/* The longest line of @text, in bytes. */
static size_t longest_line(const char *text)
{
	size_t most = 0;

	while (*text) {
		size_t len = strcspn(text, "\n");

		most = len > most ? len : most;
		text += len + (text[len] ? 1 : 0);
	}
	return most;
}

/* A table cut at a width no --width chose says so once on stderr, with how to widen it;
 * --width 0 cuts nothing and says nothing (issue 25: 100 columns of a redirected report lost
 * the callers of arena_get2). */
Test(outputs, cut_lines_said_once_with_how_to_widen)
{
	struct h_run r;
	char *err, *out, *said;

	setenv("COLUMNS", "40", 1);
	h_launch_run_ok(&r, "threads", (const char *const[]){ "1", NULL },
			(const char *const[]){ "-T", NULL });
	err = h_read_file(r.fl.err_path);
	out = h_read_file(r.fl.out_path);
	said = strstr(err, "faultline: lines cut at 40 columns (\"...\"); --width N or COLUMNS=N "
			   "widens them, --width 0 cuts none\n");
	cr_expect_not_null(said, "the cut was not said:\n%s", err);
	cr_expect(!said || !strstr(said + strlen("faultline: lines cut"), "lines cut at"),
		  "said more than once:\n%s", err);
	cr_expect_leq(longest_line(out), 40, "COLUMNS=40 not kept:\n%s", out);
	free(err);
	free(out);
	h_folded_free(&r.folded);

	h_launch_run_ok(&r, "threads", (const char *const[]){ "1", NULL },
			(const char *const[]){ "-T", "--width", "0", NULL });
	err = h_read_file(r.fl.err_path);
	out = h_read_file(r.fl.out_path);
	cr_expect_null(strstr(err, "lines cut"), "--width 0 cut lines:\n%s", err);
	cr_expect_gt(longest_line(out), 40, "--width 0 kept COLUMNS=40:\n%s", out);
	free(err);
	free(out);
	h_folded_free(&r.folded);
}
