/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include "trace/targets.h"

static struct target *add(struct target_set *set, pid_t pid, uint16_t gen)
{
	struct target *t = target_set__add(set);

	cr_assert_not_null(t);
	t->sum.pid = pid;
	t->gen = gen;
	cr_assert_eq(target_set__index(set, t), 0);
	return t;
}

/* A pid's processes, newest first; generation 0 (rows without one) finds the newest. */
Test(targets, found_by_pid_and_generation)
{
	struct target_set set = { 0 };
	size_t first, second;

	add(&set, 42, 0);
	first = (size_t)(add(&set, 100, 3) - set.v);
	for (pid_t p = 1000; p < 3000; p++)
		add(&set, p, 1);
	second = (size_t)(add(&set, 100, 9) - set.v);
	cr_expect_eq(target_set__find(&set, 100), &set.v[second], "the newest");
	cr_expect_eq(target_set__find_gen(&set, 100, 3), &set.v[first]);
	cr_expect_eq(target_set__find_gen(&set, 100, 9), &set.v[second]);
	cr_expect_eq(target_set__find_gen(&set, 100, 0), &set.v[second]);
	cr_expect_null(target_set__find_gen(&set, 100, 5), "a generation never seen");
	cr_expect_eq(target_set__find_gen(&set, 42, 0), &set.v[0]);
	cr_expect_null(target_set__find(&set, 7));
	cr_expect_eq(target_set__find(&set, 2999)->sum.pid, 2999);
	target_set__fini(&set);
}

#define KIB 1024
#define MIB (1024 * KIB)

/* A BPF-side entry with no baseline and no exit figures yet. */
static struct fl_proc unknown_proc(void)
{
	struct fl_proc p = { 0 };

	for (int m = 0; m < FL_MEMBERS; m++)
		p.seed[m] = p.gone_last[m] = FL_SIZE_UNKNOWN;
	return p;
}

/*
 * A followed child read from /proc before its first anon event: the read came after it grew
 * (3 MiB anon), so the kernel's change would miss that growth. The BPF side's baseline (2 MiB,
 * the fork's copy) replaces the read when it comes, once, and never over a baseline taken.
 */
Test(targets, followed_baselines_come_from_the_bpf_side)
{
	struct target t = { .sum = { .followed = true } };
	struct fl_proc p = unknown_proc();

	t.sum.at_attach.rss_anon = 3072 * KIB;
	t.sum.at_attach.rss_file = 900 * KIB;
	p.seed[FL_FILE] = 800 * KIB;
	target__take_bases(&t, &p);
	cr_expect_eq(t.sum.at_attach.rss_file, 800 * KIB);
	cr_expect_eq(t.sum.at_attach.rss_anon, 3072 * KIB, "no baseline yet: the read stays");
	p.seed[FL_ANON] = 2048 * KIB;
	p.seed[FL_FILE] = 999 * KIB; /* never changes on the BPF side: a taken one stays */
	target__take_bases(&t, &p);
	cr_expect_eq(t.sum.at_attach.rss_anon, 2048 * KIB);
	cr_expect_eq(t.sum.at_attach.rss_file, 800 * KIB);
	/* a given target has its read */
	t.sum.at_attach.rss_shmem = 5;
	p.seed[FL_SHMEM] = 7;
	t.sum.followed = false;
	target__take_bases(&t, &p);
	cr_expect_eq(t.sum.at_attach.rss_shmem, 5);
}

/* After an exec the kernel's change runs over every image: the first image's baseline is the
 * seed, and a member of which no value was seen starts from zero with the new image; the
 * counters the left images held come along (fl_proc.exec_left). */
Test(targets, exec_baselines_span_the_images)
{
	struct target t = { .sum = { .followed = true } };
	struct fl_proc p = unknown_proc();

	t.sum.at_attach = (struct proc_status){ .rss_anon = 3072, .rss_file = 900, .rss_shmem = 5 };
	p.seed[FL_ANON] = 700;
	p.execs = 1;
	p.exec_left[FL_ANON] = 900;
	target__take_bases(&t, &p);
	cr_expect_eq(t.sum.at_attach.rss_anon, 700, "the first image's baseline");
	cr_expect_eq(t.sum.at_attach.rss_file, 0, "nothing of the left image seen: from zero");
	cr_expect_eq(t.sum.at_attach.rss_shmem, 0);
	cr_expect_eq(t.sum.exec_left[FL_ANON], 900);
}

/* An exited process's RSS is its counters as the teardown began, for the members the BPF side
 * kept; a /proc read made during the teardown (here: file already half gone) is replaced. */
Test(targets, rss_at_exit_from_the_teardowns_start)
{
	struct target t = { .sum = { .followed = true } };
	struct fl_proc p = unknown_proc();

	t.sum.now = (struct proc_status){ .rss_anon = 100, .rss_file = 40, .rss_shmem = 7 };
	p.gone_last[FL_ANON] = 300;
	p.gone_last[FL_FILE] = 80;
	target__take_exit_rss(&t, &p);
	cr_expect_eq(t.sum.now.rss_file, 40, "not kept (FL_PROC_LAST_KEPT): the read stays");
	p.flags = FL_PROC_LAST_KEPT;
	target__take_exit_rss(&t, &p);
	cr_expect_eq(t.sum.now.rss_anon, 300);
	cr_expect_eq(t.sum.now.rss_file, 80);
	cr_expect_eq(t.sum.now.rss_shmem, 7, "no event gave it: the read stays");
	cr_expect_eq(t.sum.now.vm_rss, 387);
	t.sum.no_status = true; /* never read: no kernel figures to complete */
	t.sum.now = (struct proc_status){ 0 };
	target__take_exit_rss(&t, &p);
	cr_expect_eq(t.sum.now.rss_anon, 0);
}

/*
 * A child gone before /proc was read is reconciled from its counters as the BPF side saw them:
 * a fork that never exec'd from its first value to its exit's; one that exec'd from the
 * counters its first image left (exec_left) and its last image's from nothing; a given target
 * from its /proc read at attach, its seed. A member with no value seen did not change. Without
 * the exit's counters kept, nothing is known.
 */
Test(targets, gone_before_read_reconciled_from_its_counters)
{
	struct target t = { .sum = { .followed = true, .no_status = true } };
	struct fl_proc p = unknown_proc();

	p.seed[FL_ANON] = 2 * MIB;
	p.gone_last[FL_ANON] = 5 * MIB;
	target__take_counters(&t, &p);
	cr_expect(!t.sum.counters_only, "its exit's counters were not kept");
	p.flags = FL_PROC_LAST_KEPT;
	target__take_counters(&t, &p);
	cr_expect(t.sum.counters_only);
	cr_expect_eq(t.sum.at_attach.rss_anon, 2 * MIB);
	cr_expect_eq(t.sum.now.rss_anon, 5 * MIB);
	cr_expect_eq(t.sum.now.rss_file, 0, "no value seen: no change");
	cr_expect_eq(t.sum.now.vm_rss, 5 * MIB);

	/* exec'd: its first image left 3 MiB of anon; the last one grew 1 MiB anon, 2 MiB file */
	t = (struct target){ .sum = { .followed = true, .no_status = true } };
	p = unknown_proc();
	p.flags = FL_PROC_LAST_KEPT;
	p.execs = 1;
	p.seed[FL_ANON] = 2 * MIB;
	p.exec_left[FL_ANON] = 3 * MIB;
	p.gone_last[FL_ANON] = 1 * MIB;
	p.gone_last[FL_FILE] = 2 * MIB;
	target__take_counters(&t, &p);
	cr_expect_eq(t.sum.at_attach.rss_anon, 2 * MIB);
	cr_expect_eq(t.sum.now.rss_anon, 1 * MIB);
	cr_expect_eq(t.sum.now.rss_file, 2 * MIB);
	cr_expect_eq(t.sum.now.rss_shmem, 0, "none seen since the exec: from nothing");
	cr_expect_eq(t.sum.exec_left[FL_ANON], 3 * MIB);

	/* a given target (-p) that exec'd and exited before the next read: from its seed */
	t = (struct target){ .sum = { .no_status = true } };
	p.seed[FL_ANON] = 3 * MIB;
	target__take_counters(&t, &p);
	cr_expect(t.sum.counters_only);
	cr_expect_eq(t.sum.at_attach.rss_anon, 3 * MIB);
	cr_expect_eq(t.sum.now.rss_anon, 1 * MIB);

	/* read from /proc: its figures stay those of the read */
	t = (struct target){ .sum = { .followed = true } };
	t.sum.now.rss_anon = 7;
	target__take_counters(&t, &p);
	cr_expect(!t.sum.counters_only);
	cr_expect_eq(t.sum.now.rss_anon, 7);
}

static bool odd_pid(const struct target *t, void *ctx)
{
	(void)ctx;
	return t->sum.pid % 2;
}

/* Targets removed: the rest keep their order and are found again, a pid's older process too;
 * each old index says where it went. */
Test(targets, dropped_ones_go_the_rest_found_again)
{
	struct target_set set = { 0 };
	size_t moved[2004];

	add(&set, 7, 0);
	add(&set, 100, 3);
	for (pid_t p = 1000; p < 3000; p++)
		add(&set, p, 1);
	add(&set, 100, 9);
	add(&set, 101, 2);
	cr_assert_eq(set.n, 2004);
	cr_expect_eq(target_set__drop(&set, odd_pid, NULL, moved), 1002);
	cr_assert_eq(set.n, 1002);
	cr_expect_eq(set.v[0].sum.pid, 100, "in their order");
	cr_expect_eq(moved[0], 0, "7 went");
	cr_expect_eq(moved[1], 1, "100 is first now");
	cr_expect_eq(moved[2], 2);
	cr_expect_eq(moved[3], 0, "1001 went");
	cr_expect_eq(moved[2002], 1002, "the newest 100, last");
	cr_expect_eq(target_set__find(&set, 100), &set.v[1001], "the newest");
	cr_expect_eq(target_set__find_gen(&set, 100, 3), &set.v[0], "the older, through it");
	cr_expect_null(target_set__find(&set, 1001));
	cr_expect_null(target_set__find(&set, 101));
	cr_expect_eq(target_set__find(&set, 2998)->sum.pid, 2998);
	target_set__fini(&set);
}
