/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * allocbench: a malloc/free workload for scripts/bench-alloc.sh, timed by itself; and the
 * bare cost of a uprobe.
 *
 *   allocbench [--now] [--exit] [THREADS [SECONDS [PAIRS]]]   (default: 2 5 0)
 *   allocbench [--now] [--exit] probe push|mov [CALLS]        (default CALLS: 1000000)
 *   allocbench [--now] [--exit] live BLOCKS [STACKS [CHURN]]   (default: STACKS 16, CHURN 1000)
 *
 * Throughput: THREADS threads named "alloc-N" each run malloc(size) + free(p) pairs, one
 * pair at a time, until SECONDS have passed (0: no time limit) or the thread has done PAIRS
 * pairs (0: no count limit), whichever comes first; one of the two must be set. Sizes follow
 * one fixed pseudo-random sequence of SEQ_LEN entries (xorshift32, fixed seed) over 16..4096
 * bytes, the same in every thread and every run. Each pair is made by a named out-of-line
 * function of its size class: alloc_small() up to 64 bytes, alloc_medium() up to 512,
 * alloc_large() above, so a profiler sees three call sites. Before "ready", each thread is
 * created and runs the sequence once (its arena and tcache exist before the timed window).
 * After the window, before "done", one line:
 *   pairs TOTAL_PAIRS rate PAIRS_PER_SECOND ns WINDOW_NS threads THREADS
 * where the rate is all threads' pairs over the wall-clock window (start barrier to last join).
 *
 * Probe: calls probe_target_push() or probe_target_mov() CALLS times from one thread, then
 * prints
 *   probe push|mov calls CALLS ns WINDOW_NS per_call NS_PER_CALL
 * The two targets are written in assembly so that their first instruction is certain:
 * probe_target_push starts with `push %rbp`, which the kernel's uprobe code emulates;
 * probe_target_mov starts with a `mov`, which it must single-step out of line (two traps).
 *
 * Live: a heap of BLOCKS small blocks kept alive (16..128 bytes), for the cost of a profiler's
 * refresh against the size of its live table and its number of stacks (scripts/bench-refresh.sh).
 * After the go signal, block i is allocated from stack i % STACKS: a chain of calls through
 * live_a() and live_b(), one per bit of that number (as many as STACKS needs), so the blocks
 * come from STACKS distinct call stacks of one depth; then one line
 *   live BLOCKS stacks STACKS ns BUILD_NS
 * and light churn until SIGUSR2, SIGTERM or SIGINT: CHURN times a second (in steps of 10 ms) a
 * block picked by xorshift32 is freed and allocated again from its own stack, so the number of
 * live blocks stays BLOCKS and the oldest of each stack moves on. Then
 *   churn PAIRS
 * and "done", exiting at once (the signal that ended the churn is the protocol's last).
 *
 * Start/stop protocol: see workload.h ("ready", SIGUSR1, work, result line, "done", SIGUSR2).
 */
#include "workload.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define USAGE                                                                                  \
	"allocbench [--now] [--exit] [THREADS [SECONDS [PAIRS]]]\n"                            \
	"       allocbench [--now] [--exit] probe push|mov [CALLS]\n"                          \
	"       allocbench [--now] [--exit] live BLOCKS [STACKS [CHURN]]"
#define MAX_THREADS 64
#define MAX_SECONDS 3600
#define MAX_PAIRS (1UL << 40)
#define MAX_CALLS (1UL << 36)
#define SEQ_LEN 256	/* a power of two: n % SEQ_LEN is a mask */
#define CLOCK_EVERY 1024 /* pairs between two reads of the clock */
#define MAX_BLOCKS (1UL << 26)
#define MAX_STACKS 65536
#define MAX_CHURN 1000000
#define CHURN_STEP_MS 10

/* The two uprobe targets: return their argument. Exported, so bpftrace finds them by name. */
int probe_target_push(int x);
int probe_target_mov(int x);

__asm__(".pushsection .text\n"
	".globl probe_target_push\n"
	".type probe_target_push, @function\n"
	".p2align 4\n"
	"probe_target_push:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	mov %edi, %eax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size probe_target_push, .-probe_target_push\n"
	".globl probe_target_mov\n"
	".type probe_target_mov, @function\n"
	".p2align 4\n"
	"probe_target_mov:\n"
	"	mov %edi, %eax\n"
	"	ret\n"
	".size probe_target_mov, .-probe_target_mov\n"
	".popsection\n");

struct worker {
	pthread_t tid;
	unsigned long pairs;	/* done in the timed window */
	unsigned long max_pairs;	/* 0: no limit */
	uint64_t deadline_ns;	/* 0: no limit; set before the start barrier */
} __attribute__((aligned(64))); /* one worker per cache line: no false sharing */

static uint32_t sizes[SEQ_LEN];
volatile long allocbench_sink; /* gives the probe targets' results a use */
static pthread_barrier_t ready_barrier, start_barrier;

/* The fixed sequence: xorshift32 from a fixed seed, over a few sizes from 16 to 4096. */
static void make_sizes(void)
{
	static const uint32_t choice[] = { 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 4096 };
	uint32_t x = 2463534242u;

	for (int i = 0; i < SEQ_LEN; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		sizes[i] = choice[x % (sizeof(choice) / sizeof(choice[0]))];
	}
}

/*
 * One pair. The byte written through a volatile pointer is the allocation's use: without a
 * use, GCC may delete a malloc/free pair altogether.
 */
static inline __attribute__((always_inline)) void pair(size_t len)
{
	volatile char *p = malloc(len);

	if (!p)
		wl_die("malloc");
	p[0] = 1;
	free((void *)p);
}

__attribute__((noinline)) void alloc_small(size_t len)
{
	pair(len);
}

__attribute__((noinline)) void alloc_medium(size_t len)
{
	pair(len);
}

__attribute__((noinline)) void alloc_large(size_t len)
{
	pair(len);
}

__attribute__((noinline)) void alloc_one(size_t len)
{
	if (len <= 64)
		alloc_small(len);
	else if (len <= 512)
		alloc_medium(len);
	else
		alloc_large(len);
}

/* Runs pairs until @w's limits; returns how many. */
__attribute__((noinline)) unsigned long alloc_loop(const struct worker *w)
{
	unsigned long n = 0;

	for (;;) {
		alloc_one(sizes[n % SEQ_LEN]);
		n++;
		if (w->max_pairs && n >= w->max_pairs)
			break;
		if (w->deadline_ns && n % CLOCK_EVERY == 0 && wl_now_ns() >= w->deadline_ns)
			break;
	}
	return n;
}

static void barrier_wait(pthread_barrier_t *b)
{
	int err = pthread_barrier_wait(b);

	if (err && err != PTHREAD_BARRIER_SERIAL_THREAD) {
		errno = err;
		wl_die("pthread_barrier_wait");
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < SEQ_LEN; i++)	/* warm-up, before "ready" */
		alloc_one(sizes[i]);
	barrier_wait(&ready_barrier);
	barrier_wait(&start_barrier);
	w->pairs = alloc_loop(w);
	return NULL;
}

static void check(int err, const char *what)
{
	if (err) {
		errno = err;
		wl_die(what);
	}
}

static void start_workers(struct worker *w, unsigned long n)
{
	char name[32]; /* "alloc-63" at most; the size quiets -Wformat-truncation */

	check(pthread_barrier_init(&ready_barrier, NULL, n + 1), "pthread_barrier_init");
	check(pthread_barrier_init(&start_barrier, NULL, n + 1), "pthread_barrier_init");
	for (unsigned long i = 0; i < n; i++) {
		check(pthread_create(&w[i].tid, NULL, worker_main, &w[i]), "pthread_create");
		snprintf(name, sizeof(name), "alloc-%lu", i);
		check(pthread_setname_np(w[i].tid, name), "pthread_setname_np");
	}
	barrier_wait(&ready_barrier);
}

static void run_throughput(const struct wl_args *a)
{
	static struct worker w[MAX_THREADS];
	unsigned long n, seconds, max_pairs, total = 0;
	uint64_t t0, t1;
	char line[160];

	if (a->nargs > 3)
		wl_usage(USAGE);
	n = wl_arg_ulong(a, 0, 2, MAX_THREADS, USAGE);
	seconds = wl_arg_ulong(a, 1, 5, MAX_SECONDS, USAGE);
	max_pairs = wl_arg_ulong(a, 2, 0, MAX_PAIRS, USAGE);
	if (!n || (!seconds && !max_pairs))
		wl_usage(USAGE);
	make_sizes();
	for (unsigned long i = 0; i < n; i++)
		w[i].max_pairs = max_pairs;
	start_workers(w, n);

	wl_wait_start(a);
	t0 = wl_now_ns();
	for (unsigned long i = 0; i < n; i++)
		w[i].deadline_ns = seconds ? t0 + seconds * 1000000000ULL : 0;
	barrier_wait(&start_barrier);	/* a barrier orders the deadlines before the reads */
	for (unsigned long i = 0; i < n; i++) {
		check(pthread_join(w[i].tid, NULL), "pthread_join");
		total += w[i].pairs;
	}
	t1 = wl_now_ns();

	snprintf(line, sizeof(line), "pairs %lu rate %.1f ns %llu threads %lu\n", total,
		 (double)total * 1e9 / (double)(t1 - t0), (unsigned long long)(t1 - t0), n);
	wl_say(line);
}

/* Calls @fn @n times; the sum gives the calls a use. */
__attribute__((noinline)) long call_target(int (*fn)(int), unsigned long n)
{
	long sum = 0;

	for (unsigned long i = 0; i < n; i++)
		sum += fn((int)i);
	return sum;
}

static void run_probe(const struct wl_args *a)
{
	int (*fn)(int);
	unsigned long calls;
	uint64_t t0, t1;
	char line[160];

	if (a->nargs < 2 || a->nargs > 3)
		wl_usage(USAGE);
	if (!strcmp(a->args[1], "push"))
		fn = probe_target_push;
	else if (!strcmp(a->args[1], "mov"))
		fn = probe_target_mov;
	else
		wl_usage(USAGE);
	calls = wl_arg_ulong(a, 2, 1000000, MAX_CALLS, USAGE);
	if (!calls)
		wl_usage(USAGE);

	wl_wait_start(a);
	t0 = wl_now_ns();
	allocbench_sink = call_target(fn, calls);
	t1 = wl_now_ns();

	snprintf(line, sizeof(line), "probe %s calls %lu ns %llu per_call %.1f\n", a->args[1],
		 calls, (unsigned long long)(t1 - t0), (double)(t1 - t0) / (double)calls);
	wl_say(line);
}

static unsigned long live_stacks;
static int live_bits; /* calls between live_block() and live_leaf(): log2 of live_stacks */

__attribute__((noinline)) void *live_leaf(unsigned long i)
{
	volatile char *p = malloc(16 + (i * 2654435761u) % 113);

	if (!p)
		wl_die("malloc");
	p[0] = 1;
	return (void *)p;
}

void *live_a(unsigned long s, int bits, unsigned long i);
void *live_b(unsigned long s, int bits, unsigned long i);

/* The rest of stack @s's chain: its next bit says which function is the next frame. */
static void *live_step(unsigned long s, int bits, unsigned long i)
{
	void *p;

	if (!bits)
		return live_leaf(i);
	p = s & 1 ? live_a(s >> 1, bits - 1, i) : live_b(s >> 1, bits - 1, i);
	__asm__ volatile("" ::: "memory"); /* no tail call: each call keeps its frame */
	return p;
}

__attribute__((noinline)) void *live_a(unsigned long s, int bits, unsigned long i)
{
	return live_step(s, bits, i);
}

__attribute__((noinline)) void *live_b(unsigned long s, int bits, unsigned long i)
{
	return live_step(s, bits, i);
}

/* Block @i of a live heap, from stack i % live_stacks. */
__attribute__((noinline)) void *live_block(unsigned long i)
{
	return live_step(i % live_stacks, live_bits, i);
}

/* Churns @n blocks of @v, @rate a second, until a signal of the protocol's last step. */
static unsigned long live_churn(void **v, unsigned long n, unsigned long rate)
{
	const struct timespec step = { 0, CHURN_STEP_MS * 1000000L };
	uint64_t t0 = wl_now_ns();
	unsigned long done = 0;
	uint32_t x = 2463534242u;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	for (;;) {
		/* what the time since the start asks for: a late step catches up */
		unsigned long due = (unsigned long)((wl_now_ns() - t0) / 1000000 * rate / 1000);

		for (; done < due; done++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			free(v[x % n]);
			v[x % n] = live_block(x % n);
		}
		if (sigtimedwait(&set, NULL, &step) >= 0)
			return done;
		if (errno != EAGAIN && errno != EINTR)
			wl_die("sigtimedwait");
	}
}

static void run_live(const struct wl_args *a)
{
	unsigned long n, churn, pairs;
	uint64_t t0, t1;
	char line[160];
	void **v;

	if (a->nargs < 2 || a->nargs > 4)
		wl_usage(USAGE);
	n = wl_arg_ulong(a, 1, 0, MAX_BLOCKS, USAGE);
	live_stacks = wl_arg_ulong(a, 2, 16, MAX_STACKS, USAGE);
	churn = wl_arg_ulong(a, 3, 1000, MAX_CHURN, USAGE);
	if (!n || !live_stacks)
		wl_usage(USAGE);
	while ((1UL << live_bits) < live_stacks)
		live_bits++;
	/* the table of blocks is not part of the live heap: made before the go signal */
	v = calloc(n, sizeof(*v));
	if (!v)
		wl_die("calloc");

	wl_wait_start(a);
	t0 = wl_now_ns();
	for (unsigned long i = 0; i < n; i++)
		v[i] = live_block(i);
	t1 = wl_now_ns();
	snprintf(line, sizeof(line), "live %lu stacks %lu ns %llu\n", n, live_stacks,
		 (unsigned long long)(t1 - t0));
	wl_say(line);
	pairs = live_churn(v, n, churn);
	snprintf(line, sizeof(line), "churn %lu\n", pairs);
	wl_say(line);
	wl_say("done\n");
	exit(0);
}

int main(int argc, char **argv)
{
	struct wl_args a;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs && !strcmp(a.args[0], "probe"))
		run_probe(&a);
	else if (a.nargs && !strcmp(a.args[0], "live"))
		run_live(&a);
	else
		run_throughput(&a);
	wl_finish(&a);
}
