/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/procfs.h"

/* Above any pid_max (at most 2^22), so /proc has no such directory. */
#define NO_SUCH_PID 1073741823

static int parse_fixture(const char *name, struct proc_status *st)
{
	char path[256];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "fixtures/%s", name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "fixture %s", path);
	err = procfs__parse_status(f, st);
	fclose(f);
	return err;
}

Test(procfs, status_kb_to_bytes)
{
	struct proc_status st;

	cr_assert_eq(parse_fixture("status_normal.txt", &st), 0);
	cr_expect_eq(st.vm_rss, 1792ULL * 1024);
	cr_expect_eq(st.rss_anon, 128ULL * 1024);
	cr_expect_eq(st.rss_file, 1536ULL * 1024);
	cr_expect_eq(st.rss_shmem, 128ULL * 1024);
	cr_expect_eq(st.vm_swap, 12ULL * 1024);
	cr_expect_eq(st.vm_pte, 48ULL * 1024);
	cr_expect_eq(st.hugetlb, 4096ULL * 1024);
	cr_expect_not(st.have_pss, "status alone has no Pss");
}

/* Pss_Dirty must not be taken for Pss, nor SwapPss for anything. */
Test(procfs, smaps_rollup)
{
	struct proc_status st = { .vm_rss = 77 };
	FILE *f = fopen("fixtures/smaps_rollup.txt", "r");

	cr_assert_not_null(f);
	cr_assert_eq(procfs__parse_smaps_rollup(f, &st), 0);
	fclose(f);
	cr_expect(st.have_pss);
	cr_expect_eq(st.pss, 700ULL * 1024);
	cr_expect_eq(st.pss_anon, 100ULL * 1024);
	cr_expect_eq(st.pss_file, 560ULL * 1024);
	cr_expect_eq(st.pss_shmem, 40ULL * 1024);
	cr_expect_eq(st.vm_rss, 77, "the status fields stay");
	f = fopen("fixtures/status_normal.txt", "r");
	cr_assert_not_null(f);
	st.have_pss = false;
	cr_expect_eq(procfs__parse_smaps_rollup(f, &st), -EINVAL, "no Pss line");
	cr_expect_not(st.have_pss);
	fclose(f);
}

Test(procfs, status_kernel_thread_has_no_rss)
{
	struct proc_status st;

	cr_expect_eq(parse_fixture("status_kthread.txt", &st), -EINVAL);
}

Test(procfs, status_old_kernel_missing_fields_are_zero)
{
	struct proc_status st;

	cr_assert_eq(parse_fixture("status_old_kernel.txt", &st), 0);
	cr_expect_eq(st.vm_rss, 2048ULL * 1024);
	cr_expect_eq(st.rss_anon, 0);
	cr_expect_eq(st.rss_file, 0);
}

Test(procfs, status_malformed_number)
{
	struct proc_status st;

	cr_expect_eq(parse_fixture("status_bad.txt", &st), -EINVAL);
}

Test(procfs, status_empty_file)
{
	struct proc_status st;
	FILE *f = fmemopen((char *)"", 0, "r");

	cr_assert_not_null(f);
	cr_expect_eq(procfs__parse_status(f, &st), -EINVAL);
	fclose(f);
}

Test(procfs, read_status_self)
{
	struct proc_status st;

	cr_assert_eq(procfs__read_status(getpid(), &st), 0);
	cr_expect(st.have_pss, "this kernel has smaps_rollup");
	cr_expect_gt(st.pss, 0);
	cr_expect_gt(st.vm_rss, 0);
	cr_expect_eq(st.vm_rss % 1024, 0);
}

Test(procfs, read_status_gone)
{
	struct proc_status st;
	pid_t pid;

	cr_expect_eq(procfs__read_status(NO_SUCH_PID, &st), -ESRCH);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	cr_expect_eq(procfs__read_status(pid, &st), -ESRCH);
}

Test(procfs, read_comm_strips_newline)
{
	char buf[32];

	cr_assert_eq(prctl(PR_SET_NAME, "fl-comm-test"), 0);
	cr_assert_eq(procfs__read_comm(getpid(), buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "fl-comm-test");
}

Test(procfs, read_comm_truncates)
{
	char buf[4];

	cr_assert_eq(prctl(PR_SET_NAME, "fl-comm-test"), 0);
	cr_assert_eq(procfs__read_comm(getpid(), buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "fl-");
	cr_expect_eq(procfs__read_comm(getpid(), buf, 0), -EINVAL);
}

Test(procfs, read_comm_gone)
{
	char buf[32] = "x";

	cr_expect_eq(procfs__read_comm(NO_SUCH_PID, buf, sizeof(buf)), -ESRCH);
	cr_expect_str_eq(buf, "");
}

Test(procfs, status_tgid)
{
	const char text[] = "Name:\tworker\nTgid:\t4242\nPid:\t4250\nVmRSS:\t    8 kB\n";
	struct proc_status st;
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	cr_assert_not_null(f);
	cr_assert_eq(procfs__parse_status(f, &st), 0);
	fclose(f);
	cr_expect_eq(st.tgid, 4242);
	cr_expect_eq(st.vm_rss, 8192);
}

Test(procfs, readlink_exe)
{
	char self[4096], buf[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert_gt(n, 0);
	self[n] = '\0';
	cr_assert_eq(procfs__readlink(getpid(), "exe", buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, self);
	cr_expect_eq(procfs__readlink(NO_SUCH_PID, "exe", buf, sizeof(buf)), -ESRCH);
	cr_expect_eq(procfs__readlink(getpid(), "exe", buf, 0), -EINVAL);
}

/* ShdPnd holds SIGCONT (18), SigBlk SIGINT, SIGTERM and SIGCHLD, SigIgn SIGPIPE. */
Test(procfs, signals)
{
	struct proc_signals ps;
	FILE *f = fopen("fixtures/status_signals.txt", "r");

	cr_assert_not_null(f);
	cr_assert_eq(procfs__parse_signals(f, &ps), 0);
	fclose(f);
	cr_expect_eq(ps.pending, 0);
	cr_expect_eq(ps.shared_pending, 1ULL << (SIGCONT - 1));
	cr_expect_eq(ps.blocked,
		     (1ULL << (SIGINT - 1)) | (1ULL << (SIGTERM - 1)) | (1ULL << (SIGCHLD - 1)));
	cr_expect_eq(ps.ignored, 1ULL << (SIGPIPE - 1));
}

/* status_normal.txt has no signal lines: refused, not read as empty sets. */
Test(procfs, signals_missing)
{
	struct proc_signals ps;
	FILE *f = fopen("fixtures/status_normal.txt", "r");

	cr_assert_not_null(f);
	cr_expect_eq(procfs__parse_signals(f, &ps), -EINVAL);
	fclose(f);
}

Test(procfs, read_signals_self)
{
	struct proc_signals ps;
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	cr_assert_eq(sigprocmask(SIG_BLOCK, &set, &old), 0);
	/* /proc/TID: criterion may run the test on another thread than the main one */
	cr_assert_eq(procfs__read_signals(gettid(), &ps), 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	cr_expect(ps.blocked & (1ULL << (SIGUSR1 - 1)), "SigBlk %#llx",
		  (unsigned long long)ps.blocked);
	cr_expect_eq(procfs__read_signals(NO_SUCH_PID, &ps), -ESRCH);
}

/* starttime is field 22, counted from the last ')': a comm may hold spaces and parentheses. */
Test(procfs, start_after_the_comm)
{
	uint64_t ticks = 0;

	cr_assert_eq(procfs__parse_start("21213 (cat) R 20836 20836 16209 0 -1 4194304 129 0 0 0 0 "
					 "0 0 0 20 0 1 0 762817 3133440 414 18446744073709551615",
					 &ticks),
		     0);
	cr_expect_eq(ticks, 762817);
	cr_assert_eq(procfs__parse_start("7 (a) b (c)) S 1 7 7 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 3 "
					 "0 4242 1 2 3",
					 &ticks),
		     0);
	cr_expect_eq(ticks, 4242);
	cr_expect_eq(procfs__parse_start("7 (cat R 1 2", &ticks), -EINVAL);
	cr_expect_eq(procfs__parse_start("7 (cat) R 1 2 3", &ticks), -EINVAL);
}

/* The kernel's start_boottime (ns) in clock ticks, as /proc prints it; this process's own. */
Test(procfs, start_of_self_matches_ticks)
{
	uint64_t a = 0, b = 0;

	cr_assert_eq(procfs__read_start(getpid(), &a), 0);
	cr_assert_eq(procfs__read_start(getpid(), &b), 0);
	cr_expect_eq(a, b);
	cr_expect_eq(procfs__ticks_of_ns(1000000000ULL * 3 + 9999999), 300, "USER_HZ 100: 10 ms");
	cr_expect_eq(procfs__read_start(NO_SUCH_PID, &a), -ESRCH);
}

/* A process that runs is not gone; one that exited is, reaped (no /proc entry) or not yet
 * (a zombie, whose mappings and root are gone). */
Test(procfs, gone_when_exited_or_a_zombie)
{
	siginfo_t info;
	pid_t child;

	cr_expect_not(procfs__gone(getpid()));
	cr_expect(procfs__gone(NO_SUCH_PID));
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0)
		_exit(0);
	/* exited, not reaped */
	cr_assert_eq(waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT), 0);
	cr_expect(procfs__gone(child), "a zombie");
	cr_assert_eq(waitpid(child, NULL, 0), child);
	cr_expect(procfs__gone(child), "reaped");
}
