/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Allocator arithmetic both sides must agree on: log2 histogram buckets and byte-weighted
 * sampling. Plain static inline C with no BPF helpers, so the unit tests compile it too.
 */
#ifndef FAULTLINE_ALLOC_MATH_H
#define FAULTLINE_ALLOC_MATH_H

#include "faultline.h"

/*
 * The number of bits @v needs: 0 for 0, else floor(log2 v) + 1. BPF has no count-leading-zeros
 * instruction: the highest set bit is smeared down and the bits set are counted. Without a
 * branch: a binary search on the highest bit was six branches, which the verifier followed
 * path by path in each program that takes a histogram (1,400 instructions of fl_alloc_exit).
 */
static inline __u32 fl_bit_width(__u64 v)
{
	v |= v >> 1;
	v |= v >> 2;
	v |= v >> 4;
	v |= v >> 8;
	v |= v >> 16;
	v |= v >> 32;
	v -= (v >> 1) & 0x5555555555555555ull;
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (__u32)((v * 0x0101010101010101ull) >> 56);
}

/* Bucket of @v in an fl_alloc_hist: fl_bit_width(), capped at the last bucket. */
static inline __u32 fl_hist_bucket(__u64 v)
{
	__u32 b = fl_bit_width(v);

	return b < FL_HIST_BUCKETS ? b : FL_HIST_BUCKETS - 1;
}

/* The smallest value bucket @b holds (the histogram's labels). */
static inline __u64 fl_hist_floor(__u32 b)
{
	return b ? 1ull << (b - 1) : 0;
}

/* log2(1 + i/16) in units of 2^-16, i = 0..16: the fraction part of fl_log2_q16(). */
static const __u32 fl_log2_frac[17] = {
	0,     5732,  11136, 16248, 21098, 25711, 30109, 34312, 38336,
	42196, 45904, 49472, 52911, 56229, 59434, 62534, 65536,
};

/* log2(@x) in units of 2^-16 for 1 <= @x < 2^32, by table and linear interpolation (error
 * below 2^-11). */
static inline __u64 fl_log2_q16(__u64 x)
{
	__u32 e = fl_bit_width(x) - 1;		  /* floor(log2 x) */
	__u64 m = (x << (32 - e)) - (1ull << 32); /* the mantissa's fraction, 32 bits */
	__u32 i = (m >> 28) & 15, rest = (m >> 12) & 0xffff;
	__u64 lo = fl_log2_frac[i], hi = fl_log2_frac[i + 1];

	return ((__u64)e << 16) + lo + (((hi - lo) * rest) >> 16);
}

/*
 * An exponentially distributed byte interval of mean @mean, from a uniform 32-bit @rand:
 * -mean * ln((rand + 1) / 2^32). The gaps between sample points of a Poisson process over the
 * allocated bytes, as tcmalloc and jemalloc sample. Never 0.
 */
static inline __u64 fl_sample_interval(__u64 mean, __u32 rand)
{
	__u64 neg_log2 = (32ull << 16) - fl_log2_q16((__u64)rand + 1); /* -log2(u), Q16 */
	__u64 neg_ln = (neg_log2 * 45426) >> 16;		       /* x ln 2, Q16 */
	__u64 v = (mean * neg_ln) >> 16;

	return v ? v : 1;
}

/*
 * Byte-weighted sampling. *@left is the number of bytes until the next sample point. An
 * allocation of @size bytes is sampled when a point falls inside it; it then stands for
 * @size - *@left + @mean bytes, an unbiased estimate of @size: with *@left exponential of mean
 * @mean, E[(size - left + mean) ; left <= size] = size. Returns that weight, or 0 when the
 * allocation is not sampled (then *@left shrinks by @size). After a sample the caller draws a
 * new *@left with fl_sample_interval().
 */
static inline __u64 fl_sample_weight(__s64 *left, __u64 size, __u64 mean)
{
	if (!size)
		return 0;
	if ((__s64)size < *left) {
		*left -= size;
		return 0;
	}
	return size - *left + mean;
}

/*
 * The allocation count a sample of @weight bytes stands for, @weight / @size, rounded to an
 * integer at random (up with the probability of the fraction, from a uniform @rand) so the sum
 * stays unbiased.
 */
static inline __u64 fl_sample_count(__u64 weight, __u64 size, __u32 rand)
{
	__u64 whole, frac;
	__u32 b, shift;

	if (!size)
		return 0;
	whole = weight / size;
	frac = weight - whole * size; /* < size */
	/* rand / 2^32 < frac / size, with both scaled below 2^32 so nothing overflows */
	b = fl_bit_width(size);
	shift = b > 32 ? b - 32 : 0;
	return whole + ((__u64)rand * (size >> shift) < (frac >> shift) << 32 ? 1 : 0);
}

/* The key of the counts row a live block of process @tgid was charged to: where its free
 * goes back (BPF) and whose oldest live block it may be (userspace). */
static inline struct fl_key fl_live_row(__u32 tgid, const struct fl_live *l)
{
	struct fl_key key = { .tgid = tgid,
			      .tid = l->tid,
			      .origin = l->origin,
			      .call = l->alloc_fn,
			      .stack = l->stack };

	return key;
}

#endif /* FAULTLINE_ALLOC_MATH_H */
