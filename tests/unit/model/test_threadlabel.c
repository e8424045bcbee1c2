/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The thread frame of -T: the name alone while it tells the threads of a process apart,
 * "name/tid" for the threads of a process that share it (issue 25: MariaDB's are all
 * "mariadbd"). */
#include <criterion/criterion.h>
#include <stdio.h>
#include "model/threadlabel.h"

static struct fl_thread_summary thread(pid_t tgid, pid_t tid, const char *comm)
{
	struct fl_thread_summary t = { .tgid = tgid, .tid = tid };

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	return t;
}

Test(threadlabel, shared_names_get_their_tid)
{
	struct fl_thread_summary th[] = {
		thread(100, 104, "mariadbd"),	     thread(100, 100, "mariadbd"),
		thread(100, 101, "io_worker"),	     thread(200, 200, "mariadbd"),
		thread(100, 102, "mariadbd"),	     thread(300, 301, "toucher-a"),
		thread(300, 302, "toucher-b"),	     thread(300, 303, "0123456789abcde"),
		thread(300, 304, "0123456789abcde"),
	};

	cr_assert_eq(thread_labels__set(th, sizeof(th) / sizeof(th[0])), 0);
	cr_expect_str_eq(th[0].label, "mariadbd/104");
	cr_expect_str_eq(th[1].label, "mariadbd/100");
	cr_expect_str_eq(th[4].label, "mariadbd/102");
	cr_expect_str_eq(th[2].label, "io_worker", "a name of its own keeps no tid");
	cr_expect_str_eq(th[3].label, "mariadbd", "another process's thread is not its twin");
	cr_expect_str_eq(th[5].label, "toucher-a");
	cr_expect_str_eq(th[6].label, "toucher-b");
	cr_expect_str_eq(th[7].label, "0123456789abcde/303", "the longest name keeps its tid");
	cr_expect_str_eq(th[8].label, "0123456789abcde/304");
	cr_expect_eq(th[0].tid, 104, "the threads keep their order");
}

Test(threadlabel, none_and_one)
{
	struct fl_thread_summary one = thread(7, 7, "app");

	cr_expect_eq(thread_labels__set(NULL, 0), 0);
	cr_assert_eq(thread_labels__set(&one, 1), 0);
	cr_expect_str_eq(one.label, "app");
}
