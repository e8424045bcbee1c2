/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The allocs workload (tests/workloads/allocs.c): its numbers, and the checks that both
 * allocator modes (--alloc and --alloc=churn) make the same way. */
#ifndef FAULTLINE_ALLOCS_CHECKS_H
#define FAULTLINE_ALLOCS_CHECKS_H

#include <stdint.h>
#include "harness.h"

#define JEMALLOC "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
#define TCMALLOC "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"

#define LEAK_N 100
#define LEAK_SIZE 1000
#define CHURN_N 10000
#define CHURN_SIZE 64
#define DIRECT_SIZE 777
#define NEW_N 3 /* operator new */
#define NEW_SIZE 256
#define NESTED_N 4 /* nested_path: calls glibc passes on to another allocator function */
#define NESTED_SIZE 3000
#define THREAD_N (2 * 50)
#define THREAD_SIZE 2000

/* The bytes of the folded edge @caller;@callee of @r are exactly @want. */
void allocs_expect_edge(const struct h_run *r, const char *caller, const char *callee,
			uint64_t want);

/* The bytes asked on each known path of allocs, exact, each under the allocator function its
 * code called, in folded file @r of --metric alloc-bytes (either mode). */
void allocs_bytes_by_path_ok(const struct h_run *r);

/* allocs repeated 100 times under @mode (--alloc or --alloc=churn) with --sample-bytes 4096:
 * the estimates of leak_path and churn_path within 10% of the truth. */
void allocs_sampled_ok(const char *mode);

/* allocs launched under @mode: the probes placed before its exec count from the start. */
void allocs_launched_ok(const char *mode);

#endif /* FAULTLINE_ALLOCS_CHECKS_H */
