/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The allocator arithmetic the BPF side runs: histogram buckets and byte-weighted sampling. */
#include <criterion/criterion.h>
#include <math.h>
#include "alloc_math.h"

Test(alloc_math, bit_width_and_buckets)
{
	cr_expect_eq(fl_bit_width(0), 0);
	cr_expect_eq(fl_bit_width(1), 1);
	cr_expect_eq(fl_bit_width(2), 2);
	cr_expect_eq(fl_bit_width(3), 2);
	cr_expect_eq(fl_bit_width(4096), 13);
	cr_expect_eq(fl_bit_width(~0ull), 64);
	/* every highest bit, with the bits below it all clear and all set */
	for (__u32 b = 0; b < 64; b++) {
		cr_expect_eq(fl_bit_width(1ull << b), b + 1, "bit %u alone", b);
		cr_expect_eq(fl_bit_width((2ull << b) - 1), b + 1, "bits 0 to %u", b);
	}
	cr_expect_eq(fl_hist_bucket(0), 0);
	cr_expect_eq(fl_hist_bucket(1), 1);
	cr_expect_eq(fl_hist_bucket(1000), 10, "512 <= 1000 < 1024");
	cr_expect_eq(fl_hist_bucket(1024), 11);
	cr_expect_eq(fl_hist_bucket(1ull << 40), FL_HIST_BUCKETS - 1, "capped at the last");
	for (__u32 b = 1; b < FL_HIST_BUCKETS; b++) {
		cr_expect_eq(fl_hist_bucket(fl_hist_floor(b)), b, "bucket %u holds its floor", b);
		cr_expect_eq(fl_hist_bucket(fl_hist_floor(b) - 1), b - 1, "and not one less");
	}
}

Test(alloc_math, log2_q16_is_close)
{
	static const __u64 xs[] = { 1, 2, 3, 5, 1000, 65535, 123456789, 4294967295ull,
				    4294967296ull };

	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		double want = log2((double)xs[i]) * 65536.0;
		double got = (double)fl_log2_q16(xs[i]);

		cr_expect(fabs(got - want) <= 32.0, "log2(%llu): %f, expected %f",
			  (unsigned long long)xs[i], got / 65536, want / 65536);
	}
}

/* The intervals are exponential of the given mean: check the mean and one quantile over a
 * uniform sweep of the 32-bit random input (no randomness in the test). */
Test(alloc_math, interval_is_exponential)
{
	const __u64 mean = 524288;
	const __u32 steps = 1u << 20;
	double sum = 0;
	__u64 below_mean = 0;

	for (__u32 i = 0; i < steps; i++) {
		__u32 r = i * (__u32)(4294967296ull / steps) + 2048;
		__u64 v = fl_sample_interval(mean, r);

		cr_assert_gt(v, 0);
		sum += (double)v;
		below_mean += v < mean;
	}
	cr_expect(fabs(sum / steps / mean - 1.0) < 0.01, "mean interval %f x the mean",
		  sum / steps / mean);
	/* P(X < mean) = 1 - 1/e for an exponential */
	cr_expect(fabs((double)below_mean / steps - (1 - exp(-1))) < 0.01,
		  "P(interval < mean) = %f", (double)below_mean / steps);
	cr_expect_eq(fl_sample_interval(1, 4294967295u), 1, "never 0");
}

Test(alloc_math, weight_without_sample)
{
	__s64 left = 1000;

	cr_expect_eq(fl_sample_weight(&left, 300, 4096), 0);
	cr_expect_eq(left, 700, "the interval shrinks by the size");
	cr_expect_eq(fl_sample_weight(&left, 0, 4096), 0, "0 bytes are never sampled");
	cr_expect_eq(left, 700);
}

Test(alloc_math, weight_of_a_sample)
{
	__s64 left = 100;

	/* the sample point falls 100 bytes into a 300-byte block: 300 - 100 + mean */
	cr_expect_eq(fl_sample_weight(&left, 300, 4096), 300 - 100 + 4096);
}

Test(alloc_math, count_rounds_without_bias)
{
	const __u32 steps = 1u << 16;
	__u64 sum = 0;

	cr_expect_eq(fl_sample_count(4096, 1024, 0), 4, "whole multiples are exact");
	cr_expect_eq(fl_sample_count(100, 0, 0), 0);
	/* 10 / 4 = 2.5: half the draws give 2, half 3 */
	for (__u32 i = 0; i < steps; i++)
		sum += fl_sample_count(10, 4, i * (__u32)(4294967296ull / steps));
	cr_expect_eq(sum, steps * 5 / 2, "sum %llu", (unsigned long long)sum);
	/* huge sizes do not overflow the comparison */
	cr_expect_eq(fl_sample_count(3ull << 40, 1ull << 40, 12345), 3);
}

/*
 * The whole estimator, simulated: a stream of allocations of mixed sizes goes through the
 * sampler with a real pseudo-random source; the scaled bytes and counts must land within 2%
 * of the truth on a large run (the BPF side does exactly these steps).
 */
Test(alloc_math, estimates_are_unbiased)
{
	static const __u64 sizes[] = { 16, 48, 64, 200, 1000, 4096, 30000, 1 << 20 };
	const __u64 mean = 65536;
	__u64 state = 0x9e3779b97f4a7c15ull, true_bytes = 0, true_count = 0;
	double est_bytes = 0, est_count = 0;
	__s64 left;

#define NEXT_RAND()                                                                       \
	((__u32)((state = state * 6364136223846793005ull + 1442695040888963407ull) >> 32))
	left = (__s64)fl_sample_interval(mean, NEXT_RAND());
	for (int i = 0; i < 4000000; i++) {
		__u64 size = sizes[i % 8 == 7 ? (i / 8) % 8 : i % 7];
		__u64 w = fl_sample_weight(&left, size, mean);

		true_bytes += size;
		true_count++;
		if (!w)
			continue;
		left = (__s64)fl_sample_interval(mean, NEXT_RAND());
		est_bytes += (double)w;
		est_count += (double)fl_sample_count(w, size, NEXT_RAND());
	}
#undef NEXT_RAND
	cr_expect(fabs(est_bytes / true_bytes - 1) < 0.02, "bytes: estimate %f x the truth",
		  est_bytes / true_bytes);
	cr_expect(fabs(est_count / true_count - 1) < 0.02, "count: estimate %f x the truth",
		  est_count / true_count);
}
