/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The plan faultline makes of what a kernel has, and what it says: the sets of features that
 * Debian 11's 5.10, Ubuntu 22.04's 5.15 and Debian 12's 6.1 were measured to have. Those the
 * legacy programs do without make a plan that runs them, not a refusal.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "probes/attach.h"
#include "probes/features.h"

#define ALL ((1u << KF__COUNT) - 1)
/* 5.10: no task storage, BTF task helpers, cookies, callbacks, hash maps that tracing programs
 * fill as they go, exit_mmap */
#define K510                                                                                       \
	(ALL & ~(KF_BIT(KF_TASK_STORAGE) | KF_BIT(KF_CURRENT_TASK_BTF) | KF_BIT(KF_TASK_PT_REGS) | \
		 KF_BIT(KF_ATTACH_COOKIE) | KF_BIT(KF_LOOP) | KF_BIT(KF_FIND_VMA) |                \
		 KF_BIT(KF_HASH_ALLOC) | KF_BIT(KF_EXIT_MMAP)))
#define K515   \
	(ALL & \
	 ~(KF_BIT(KF_LOOP) | KF_BIT(KF_FIND_VMA) | KF_BIT(KF_HASH_ALLOC) | KF_BIT(KF_EXIT_MMAP)))

static void plan(struct kplan *p, uint32_t have, uint32_t uses, const char *release)
{
	memset(p, 0, sizeof(*p));
	features__plan(p, have, uses);
	snprintf(p->release, sizeof(p->release), "%s", release);
}

Test(features, a_kernel_with_everything_has_a_full_plan)
{
	struct kplan p;
	char line[512];

	plan(&p, ALL, KF_USE_ALLOC | KF_USE_FORK | KF_USE_SYSCALLS, "6.18.0");
	cr_expect_eq(p.missing_required, 0);
	cr_expect_eq(p.missing_optional, 0);
	features__describe(&p, line, sizeof(line));
	cr_expect_str_eq(line, "kernel 6.18.0: every feature faultline uses is there");
}

Test(features, linux_5_10_runs_the_legacy_programs)
{
	const uint32_t legacy = KF_BIT(KF_TASK_STORAGE) | KF_BIT(KF_CURRENT_TASK_BTF) |
				KF_BIT(KF_TASK_PT_REGS) | KF_BIT(KF_LOOP) | KF_BIT(KF_FIND_VMA) |
				KF_BIT(KF_HASH_ALLOC);
	struct kplan p;
	char line[512];

	plan(&p, K510, 0, "5.10.0-32-cloud-amd64");
	/* the attach cookies only matter to --alloc, exit_mmap to nobody */
	cr_expect_eq(p.missing_required, 0);
	cr_expect_eq(p.missing_optional, legacy | KF_BIT(KF_EXIT_MMAP));
	cr_expect(p.legacy);
	features__describe(&p, line, sizeof(line));
	cr_expect(strstr(line,
			 "kernel 5.10.0-32-cloud-amd64: legacy programs (a stack is walked 32 "
			 "frames deep by unwind tables") == line,
		  "%s", line);
	cr_expect(strstr(line, "), it lacks BPF task storage (Linux 5.11), "
			       "bpf_get_current_task_btf (5.11), bpf_task_pt_regs (5.15), bpf_loop "
			       "(5.17), bpf_find_vma (5.17), hash maps allocated as they fill in "
			       "tracing programs (6.1) and the mmap:exit_mmap tracepoint (6.1)"),
		  "%s", line);
}

Test(features, a_kernel_with_all_of_it_runs_the_full_programs)
{
	struct kplan p;

	/* 5.17 to 6.0: every helper, but no hash map a tracing program fills as it goes */
	plan(&p, ALL & ~(KF_BIT(KF_HASH_ALLOC) | KF_BIT(KF_EXIT_MMAP)), 0, "5.19");
	cr_expect(p.legacy);

	plan(&p, ALL & ~KF_BIT(KF_EXIT_MMAP), KF_USE_ALLOC | KF_USE_FORK, "6.0");
	cr_expect_not(p.legacy);
	plan(&p, ALL & ~KF_BIT(KF_LOOP), 0, "5.16");
	cr_expect(p.legacy);
	cr_expect_eq(p.missing_required, 0);
}

Test(features, by_mapping_needs_bpf_find_vma_even_on_the_legacy_programs)
{
	struct kplan p;
	char line[512];

	plan(&p, K515, KF_USE_MAPPING, "5.15.0-25-generic");
	cr_expect_eq(p.missing_required, KF_BIT(KF_FIND_VMA));
	features__refusal(&p, line, sizeof(line));
	cr_expect_str_eq(line, "this kernel (5.15.0-25-generic) lacks bpf_find_vma (Linux 5.17): "
			       "this session needs Linux 5.17 or later, or a kernel with it "
			       "backported");
	plan(&p, K515, 0, "5.15.0-25-generic");
	cr_expect_eq(p.missing_required, 0);
}

Test(features, alloc_without_attach_cookies_runs_the_legacy_programs)
{
	struct kplan p;

	plan(&p, K515 | KF_BIT(KF_LOOP) | KF_BIT(KF_FIND_VMA) | KF_BIT(KF_HASH_ALLOC), KF_USE_ALLOC,
	     "x");
	cr_expect_eq(p.missing_required, 0);
	cr_expect_not(p.legacy);
	/* only --alloc reads the cookies */
	plan(&p, ALL & ~KF_BIT(KF_ATTACH_COOKIE), 0, "x");
	cr_expect_eq(p.missing_required | p.missing_optional, 0);
	cr_expect_not(p.legacy);
	plan(&p, ALL & ~KF_BIT(KF_ATTACH_COOKIE), KF_USE_ALLOC, "x");
	cr_expect_eq(p.missing_required, 0);
	cr_expect_eq(p.missing_optional, KF_BIT(KF_ATTACH_COOKIE));
	cr_expect(p.legacy);
}

Test(features, a_mode_s_tracepoints_count_only_when_it_is_used)
{
	struct kplan p;

	plan(&p, ALL & ~(KF_BIT(KF_SYSCALLS) | KF_BIT(KF_CGROUP_ATTACH)), KF_USE_FORK, "x");
	cr_expect_eq(p.missing_required, 0);
	plan(&p, ALL & ~(KF_BIT(KF_SYSCALLS) | KF_BIT(KF_CGROUP_ATTACH)),
	     KF_USE_SYSCALLS | KF_USE_CGROUP, "x");
	cr_expect_eq(p.missing_required, KF_BIT(KF_SYSCALLS) | KF_BIT(KF_CGROUP_ATTACH));
}

Test(features, without_exit_mmap_the_plan_is_degraded)
{
	struct kplan p;
	const char *ids[8];
	char line[512];

	plan(&p, ALL & ~KF_BIT(KF_EXIT_MMAP), 0, "6.0.0");
	cr_expect_eq(p.missing_required, 0);
	features__describe(&p, line, sizeof(line));
	cr_expect_str_eq(line, "kernel 6.0.0: degraded, it lacks the mmap:exit_mmap tracepoint "
			       "(Linux 6.1)");
	cr_expect_eq(features__missing_ids(&p, ids, 8), 1);
	cr_expect_str_eq(ids[0], "exit_mmap");
	cr_expect_not_null(features__info(KF_EXIT_MMAP)->without);
}

/* What the kernel's BTF names: optional, and counted only where the session needs them. */
Test(features, the_btf_features_are_optional_and_per_mode)
{
	uint32_t btf = KF_BIT(KF_UPROBE_MULTI) | KF_BIT(KF_UPROBE_SESSION) |
		       KF_BIT(KF_ITER_TASK_VMA);
	struct kplan p;
	const char *ids[8];

	plan(&p, ALL & ~btf, 0, "6.1.0");
	cr_expect_eq(p.missing_required | p.missing_optional, 0);
	plan(&p, ALL & ~btf, KF_USE_FORK, "6.1.0");
	cr_expect_eq(p.missing_required, 0);
	cr_expect_eq(p.missing_optional, KF_BIT(KF_ITER_TASK_VMA));
	cr_expect_eq(features__missing_ids(&p, ids, 8), 1);
	cr_expect_str_eq(ids[0], "iter_task_vma");
	plan(&p, ALL & ~btf, KF_USE_ALLOC | KF_USE_SAMPLED, "6.1.0");
	cr_expect_eq(p.missing_optional, KF_BIT(KF_UPROBE_MULTI) | KF_BIT(KF_UPROBE_SESSION));
	for (int f = KF_UPROBE_MULTI; f <= KF_ITER_TASK_VMA; f++)
		cr_expect_not_null(features__info((enum kfeature)f)->without);
}

Test(features, the_missing_ids_list_required_first_and_fit_the_room)
{
	struct kplan p;
	const char *ids[8];

	/* --by mapping needs bpf_find_vma on any programs */
	plan(&p, K510, KF_USE_ALLOC | KF_USE_MAPPING, "5.10");
	cr_expect_eq(features__missing_ids(&p, ids, 8), 8);
	cr_expect_str_eq(ids[0], "find_vma");
	cr_expect_str_eq(ids[1], "task_storage");
	cr_expect_str_eq(ids[5], "hash_alloc");
	cr_expect_str_eq(ids[6], "attach_cookie");
	cr_expect_str_eq(ids[7], "exit_mmap");
	cr_expect_eq(features__missing_ids(&p, ids, 2), 2);
}

Test(features, a_line_too_long_for_the_buffer_is_cut_not_overrun)
{
	struct kplan p;
	char line[32];
	int n;

	plan(&p, 0, ~0u, "5.4");
	memset(line, 'x', sizeof(line));
	n = features__refusal(&p, line, 20);
	cr_expect_gt(n, 20);
	cr_expect_eq(strlen(line), 19);
	cr_expect_eq(line[20], 'x');
	features__describe(&p, line, 20);
	cr_expect_eq(strlen(line), 19);
}

Test(features, every_feature_has_a_name_an_id_and_a_release)
{
	for (int f = 0; f < KF__COUNT; f++) {
		const struct kfeature_info *i = features__info((enum kfeature)f);

		cr_assert_not_null(i->id, "feature %d", f);
		cr_expect_not_null(i->name, "feature %d", f);
		cr_expect_not_null(i->since, "feature %d", f);
	}
	cr_expect_null(features__info(KF__COUNT));
}

Test(features, what_a_session_uses_follows_its_options)
{
	struct tracer_opts o = { .alloc = true };

	/* exact --alloc records regions at the syscalls' exits */
	cr_expect_eq(features__uses(&o), KF_USE_ALLOC | KF_USE_SYSCALLS);
	/* sampled: no regions, and an entry that weighs (uprobe sessions) */
	o.sample_bytes = 4096;
	cr_expect_eq(features__uses(&o), KF_USE_ALLOC | KF_USE_SAMPLED);
	o = (struct tracer_opts){ .scope = FL_SCOPE_CGROUPS, .new_pages = true };
	cr_expect_eq(features__uses(&o), KF_USE_FORK | KF_USE_CGROUP | KF_USE_NEW);
	o = (struct tracer_opts){ .vm = true, .follow_children = true };
	cr_expect_eq(features__uses(&o), KF_USE_SYSCALLS | KF_USE_FORK);
	o = (struct tracer_opts){ .map_classes = true };
	cr_expect_eq(features__uses(&o), KF_USE_MAPPING);
}

Test(features, page_shift_is_the_systems)
{
	cr_expect_eq(1L << features__page_shift(), sysconf(_SC_PAGESIZE));
}
