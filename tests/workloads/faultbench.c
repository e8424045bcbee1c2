/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * faultbench: a fault-heavy workload for scripts/bench-overhead.sh, timed by itself.
 *
 *   faultbench [--now] [--exit] [TOTAL_MIB [CHUNK_MIB [SECONDS]]]   (default: 1024 256 0)
 *
 * Work: touch_chunk() maps CHUNK MiB of anonymous memory (MADV_NOHUGEPAGE, so one 4 KiB fault
 * per page), writes one byte per page, and munmaps it; repeated until TOTAL MiB have been
 * touched and, when SECONDS > 0, until SECONDS have passed (a busy target for measuring the
 * profiler's own CPU). Unmapping each chunk keeps the process small whatever TOTAL is.
 *
 * Around the work it reads CLOCK_MONOTONIC and getrusage(RUSAGE_SELF).ru_minflt, then prints
 *   result ns=NANOSECONDS faults=MINOR_FAULTS bytes=BYTES_TOUCHED
 * before "done", so the timed window holds nothing but mmap, faults and munmap: a profiler's
 * start-up and shutdown stay out of it.
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, result line, "done", SIGUSR2).
 */
#include "workload.h"

#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#define USAGE "faultbench [--now] [--exit] [TOTAL_MIB [CHUNK_MIB [SECONDS]]]"
#define MAX_TOTAL_MIB (1024UL * 1024UL)
#define MAX_CHUNK_MIB 4096
#define MAX_SECONDS 3600

static long minor_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		wl_die("getrusage");
	return ru.ru_minflt;
}

/* Every fault of the benchmark happens here, one per page. */
__attribute__((noinline)) void touch_chunk(size_t len)
{
	char *p = wl_map_anon(len);

	wl_write_pages(p, len);
	if (munmap(p, len))
		wl_die("munmap");
}

/* Returns the bytes touched: at least @total, and until @deadline_ns when that is not 0. */
__attribute__((noinline)) size_t touch_all(size_t total, size_t chunk, uint64_t deadline_ns)
{
	size_t done = 0;

	while (done < total || (deadline_ns && wl_now_ns() < deadline_ns)) {
		touch_chunk(chunk);
		done += chunk;
	}
	return done;
}

int main(int argc, char **argv)
{
	uint64_t t0, t1, deadline = 0;
	unsigned long seconds;
	size_t total, chunk, done;
	struct wl_args a;
	long f0, f1;
	char line[160];

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 3)
		wl_usage(USAGE);
	total = wl_arg_ulong(&a, 0, 1024, MAX_TOTAL_MIB, USAGE) * WL_MIB;
	chunk = wl_arg_ulong(&a, 1, 256, MAX_CHUNK_MIB, USAGE) * WL_MIB;
	seconds = wl_arg_ulong(&a, 2, 0, MAX_SECONDS, USAGE);
	if (!chunk)
		wl_usage(USAGE);

	wl_wait_start(&a);
	f0 = minor_faults();
	t0 = wl_now_ns();
	if (seconds)
		deadline = t0 + seconds * 1000000000ULL;
	done = touch_all(total, chunk, deadline);
	t1 = wl_now_ns();
	f1 = minor_faults();

	snprintf(line, sizeof(line), "result ns=%llu faults=%ld bytes=%zu\n",
		 (unsigned long long)(t1 - t0), f1 - f0, done);
	wl_say(line);
	wl_finish(&a);
}
