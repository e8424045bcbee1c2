/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Which object is the allocator, and the probe plan of the allocators Debian ships. The
 * libraries are read from this machine; a test whose library is missing is skipped (make test
 * installs them).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "probes/allocator.h"
#include "model/calls.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define JEMALLOC "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
#define TCMALLOC "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"

static void need(const char *path)
{
	if (access(path, R_OK))
		cr_skip_test("%s is not installed", path);
}

static const struct alloc_probe *probe(const struct alloc_plan *p, const char *symbol)
{
	for (size_t i = 0; i < p->nprobes; i++)
		if (!strcmp(p->probes[i].symbol, symbol))
			return &p->probes[i];
	cr_assert_fail("no probe %s in the plan", symbol);
	return NULL;
}

Test(allocator, a_preloaded_allocator_wins_over_libc)
{
	const char *paths[] = { "/proc/self/exe", LIBC, JEMALLOC };

	need(LIBC);
	need(JEMALLOC);
	cr_expect_eq(allocator__choose(AT_FDCWD, paths, 3, ""), 2);
	cr_expect_eq(allocator__choose(AT_FDCWD, paths, 2, ""), 1, "libc when alone");
	cr_expect_eq(allocator__choose(AT_FDCWD, paths, 1, ""), -ENOENT, "the test defines none");
	cr_expect_eq(allocator__choose(AT_FDCWD, paths, 3, "je_"), -ENOENT, "no je_malloc");
}

Test(allocator, glibc_plan)
{
	struct alloc_plan p;

	need(LIBC);
	cr_assert_eq(allocator__plan(AT_FDCWD, LIBC, "", 0, &p), 0);
	cr_expect_eq(probe(&p, "malloc")->state, ALLOC_PROBE_ATTACH);
	cr_expect_eq(probe(&p, "malloc")->fn, FL_FN_MALLOC);
	cr_expect(probe(&p, "malloc")->entry_off > 0);
	/* Debian 12's free starts with test %rdi,%rdi; je: the je is emulated */
	cr_expect(probe(&p, "free")->site.emulated);
	cr_expect_eq(probe(&p, "memalign")->state, ALLOC_PROBE_ALIAS, "aligned_alloc's address");
	cr_expect_eq(probe(&p, "_Znwm")->state, ALLOC_PROBE_MISSING, "glibc has no operator new");
}

Test(allocator, jemalloc_plan)
{
	struct alloc_plan p;

	need(JEMALLOC);
	cr_assert_eq(allocator__plan(AT_FDCWD, JEMALLOC, "", 0, &p), 0);
	cr_expect_eq(probe(&p, "_Znwm")->state, ALLOC_PROBE_ATTACH);
	cr_expect_eq(probe(&p, "_ZdlPv")->state, ALLOC_PROBE_TAIL_JUMP, "jmp free@plt");
	cr_expect_gt(probe(&p, "malloc")->site.offset, 0, "past cmp $0x1000,%%rdi");
	cr_expect(probe(&p, "malloc")->site.emulated);
}

/* --alloc=churn keeps rbp as the caller left it at each site: on Debian 12's glibc, jemalloc
 * and tcmalloc no site moves for it, so churn mode costs no single-step more than exact. */
Test(allocator, churn_sites_as_exact)
{
	static const char *const libs[] = { LIBC, JEMALLOC, TCMALLOC };

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		struct alloc_plan exact, churn;

		if (access(libs[i], R_OK))
			continue;
		cr_assert_eq(allocator__plan(AT_FDCWD, libs[i], "", 0, &exact), 0);
		cr_assert_eq(allocator__plan(AT_FDCWD, libs[i], "", PLACE_RBP, &churn), 0);
		for (size_t k = 0; k < exact.nprobes; k++)
			cr_expect_eq(exact.probes[k].site.offset, churn.probes[k].site.offset,
				     "%s %s: +%u exact, +%u churn", libs[i], exact.probes[k].symbol,
				     exact.probes[k].site.offset, churn.probes[k].site.offset);
	}
}

Test(allocator, tcmalloc_aliases)
{
	struct alloc_plan p;

	need(TCMALLOC);
	cr_assert_eq(allocator__plan(AT_FDCWD, TCMALLOC, "", 0, &p), 0);
	cr_expect_eq(probe(&p, "free")->state, ALLOC_PROBE_ATTACH);
	cr_expect_eq(probe(&p, "_ZdlPv")->state, ALLOC_PROBE_ALIAS, "operator delete is free");
}

Test(allocator, not_an_allocator)
{
	struct alloc_plan p;

	cr_expect_eq(allocator__plan(AT_FDCWD, "/proc/self/exe", "", 0, &p), -ENODATA);
	cr_expect_eq(allocator__plan(AT_FDCWD, "/tmp", "", 0, &p), -EISDIR);
	cr_expect_eq(allocator__plan(AT_FDCWD, "/etc/passwd", "", 0, &p), -ENOEXEC);
	cr_expect_eq(allocator__plan(AT_FDCWD, "/nonexistent.so", "", 0, &p), -ENOENT);
}

Test(allocator, names)
{
	cr_expect_str_eq(call__name(FL_FN_MALLOC), "malloc");
	cr_expect_str_eq(call__name(FL_FN_NEW_ARRAY), "operator new[]");
	cr_expect(alloc_fn__is_free(FL_FN_FREE));
	cr_expect_not(alloc_fn__is_free(FL_FN_REALLOC));
}
