// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * nofp: built -O2 -fomit-frame-pointer (the Makefile says so), as distributions build their
 * packages, and going through glibc, whose functions have no frame pointer either. Every
 * stack must still reach the process's start (_start) or the thread's (clone3) through the
 * unwind tables. One run does all of it (tests/integration/test_unwind.c checks the bytes):
 *
 *   heap_path -> heap_leaf        malloc(HEAP_BYTES) + memset: resident growth inside memset;
 *                                 then free(): released inside munmap (the block is mmapped)
 *   advise_path -> advise_leaf    mmap + touch ADVISE_BYTES, then madvise(MADV_DONTNEED)
 *   thread_main -> thread_leaf    in thread "nofp-worker": malloc(THREAD_BYTES) + memset
 *   signal_path -> raise -> on_signal -> signal_leaf
 *                                 a SIGURG handler: malloc(SIGNAL_BYTES) + memset
 *   alloc_path                    ALLOC_N x malloc(ALLOC_SIZE), kept (--alloc)
 *   realign_path -> realign_call -> realign_leaf
 *                                 mmap + touch REALIGN_BYTES, called through an assembly frame
 *                                 that realigns the stack and keeps its CFA in rbx, as ld.so's
 *                                 lazy-binding resolver (_dl_runtime_resolve) does
 *   wide_path -> wide_mid -> wide_leaf
 *                                 mmap + touch WIDE_BYTES under two frames of WIDE_FRAME bytes
 *                                 each: the walk reads words kilobytes above the stack pointer
 *   entry_path -> entry_call -> nocfi_leaf
 *                                 drops nocfi_leaf's page (MADV_DONTNEED) and calls it with rbp
 *                                 zeroed: a function without unwind info, alone on its page,
 *                                 faults on its first instruction, as crtstuff's destructors
 *                                 do when ld.so calls them at exit
 *   dlopen_path -> dlopen_leaf    dlopen()s zlib, waits DLOPEN_WAIT_MS (the profiler's tables
 *                                 for code mapped after attach come at its next refresh), then
 *                                 compress2() writes DLOPEN_BYTES into fresh pages: its stacks
 *                                 go through zlib's code, which has no frame pointers
 *
 *   nofp [--now] [--exit] [stop]
 *
 * stop: signal_leaf stops the process (SIGSTOP) after its memset, for a debugger to unwind
 * it there; continued (SIGCONT), it goes on.
 */
#include "workload.h" /* first: it defines _GNU_SOURCE */

#include <dlfcn.h>
#include <pthread.h>

#define HEAP_BYTES (8 * WL_MIB)
#define ADVISE_BYTES (4 * WL_MIB)
#define THREAD_BYTES (2 * WL_MIB)
#define SIGNAL_BYTES (1 * WL_MIB)
#define ALLOC_N 64
#define ALLOC_SIZE 1000
#define DLOPEN_BYTES (1 * WL_MIB)
#define DLOPEN_WAIT_MS 1500
#define REALIGN_BYTES (2 * WL_MIB)
#define WIDE_BYTES (3 * WL_MIB)
#define WIDE_FRAME 3000

static void *volatile sink;
static bool stop_in_signal;

/* Keeps a call from becoming a tail call (a jump), so its caller's frame stays. */
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")
/* Keeps the compiler from dropping a malloc, memset and free of memory nobody reads. */
#define USED(p) __asm__ volatile("" ::"r"(p) : "memory")

__attribute__((noinline)) void heap_leaf(void)
{
	char *p = malloc(HEAP_BYTES);

	if (!p)
		wl_die("malloc");
	memset(p, 1, HEAP_BYTES);
	USED(p);
	free(p);
	NO_TAIL_CALL();
}

__attribute__((noinline)) void heap_path(void)
{
	heap_leaf();
	NO_TAIL_CALL();
}

__attribute__((noinline)) void advise_leaf(void)
{
	char *p = wl_map_anon(ADVISE_BYTES);

	memset(p, 2, ADVISE_BYTES);
	USED(p);
	if (madvise(p, ADVISE_BYTES, MADV_DONTNEED))
		wl_die("madvise");
	NO_TAIL_CALL();
}

__attribute__((noinline)) void advise_path(void)
{
	advise_leaf();
	NO_TAIL_CALL();
}

__attribute__((noinline)) void thread_leaf(void)
{
	char *p = malloc(THREAD_BYTES);

	if (!p)
		wl_die("malloc");
	memset(p, 3, THREAD_BYTES);
	USED(p);
	sink = p;
	NO_TAIL_CALL();
}

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "nofp-worker");
	thread_leaf();
	NO_TAIL_CALL();
	return NULL;
}

__attribute__((noinline)) void signal_leaf(void)
{
	char *p = malloc(SIGNAL_BYTES); /* not async-signal-safe; the main thread is in raise() */

	if (!p)
		wl_die("malloc");
	memset(p, 4, SIGNAL_BYTES);
	USED(p);
	sink = p;
	if (stop_in_signal)
		raise(SIGSTOP);
	NO_TAIL_CALL();
}

static void on_signal(int sig)
{
	(void)sig;
	signal_leaf();
	NO_TAIL_CALL();
}

__attribute__((noinline)) void signal_path(void)
{
	raise(SIGURG);
	NO_TAIL_CALL();
}

__attribute__((noinline)) void alloc_path(void)
{
	for (int i = 0; i < ALLOC_N; i++)
		sink = malloc(ALLOC_SIZE);
	NO_TAIL_CALL();
}

__attribute__((noinline)) void realign_leaf(size_t len)
{
	char *p = wl_map_anon(len);

	memset(p, 5, len);
	USED(p);
	NO_TAIL_CALL();
}

/* realign_call(fn, arg): fn(arg) on a stack aligned down to 64 bytes; the frame's CFA is
 * rbx + 16 from its second instruction on. */
void realign_call(void (*fn)(size_t), size_t arg);

__asm__(".pushsection .text\n"
	".globl realign_call\n"
	".type realign_call, @function\n"
	".p2align 4\n"
	"realign_call:\n"
	"	.cfi_startproc\n"
	"	push %rbx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %rbx, 0\n"
	"	mov %rsp, %rbx\n"
	"	.cfi_def_cfa_register %rbx\n"
	"	and $-64, %rsp\n"
	"	sub $64, %rsp\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	call *%rax\n"
	"	mov %rbx, %rsp\n"
	"	.cfi_def_cfa_register %rsp\n"
	"	pop %rbx\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %rbx\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size realign_call, .-realign_call\n"
	".popsection\n");

__attribute__((noinline)) void realign_path(void)
{
	realign_call(realign_leaf, REALIGN_BYTES);
	NO_TAIL_CALL();
}

__attribute__((noinline)) void wide_leaf(void)
{
	char *p = wl_map_anon(WIDE_BYTES);

	memset(p, 6, WIDE_BYTES);
	USED(p);
	NO_TAIL_CALL();
}

/* A frame of WIDE_FRAME bytes that the compiler cannot shrink. */
#define WIDE_LOCALS()                     \
	volatile char pad[WIDE_FRAME];    \
	pad[0] = pad[WIDE_FRAME - 1] = 1; \
	USED(&pad[0])

__attribute__((noinline)) void wide_mid(void)
{
	WIDE_LOCALS();
	wide_leaf();
	NO_TAIL_CALL();
}

__attribute__((noinline)) void wide_path(void)
{
	WIDE_LOCALS();
	wide_mid();
	NO_TAIL_CALL();
}

/* entry_call(fn): fn() with rbp zeroed, as ld.so's _dl_call_fini leaves it (it has unwind
 * info); nocfi_leaf: a function without any, alone on its page. */
void entry_call(void (*fn)(void));
void nocfi_leaf(void);

__asm__(".pushsection .text\n"
	".globl entry_call\n"
	".type entry_call, @function\n"
	".p2align 4\n"
	"entry_call:\n"
	"	.cfi_startproc\n"
	"	push %rbp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %rbp, 0\n"
	"	xor %ebp, %ebp\n"
	"	call *%rdi\n"
	"	pop %rbp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.cfi_restore %rbp\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size entry_call, .-entry_call\n"
	".popsection\n"
	".pushsection .text.nocfi, \"ax\", @progbits\n"
	".globl nocfi_leaf\n"
	".type nocfi_leaf, @function\n"
	".p2align 12\n"
	"nocfi_leaf:\n"
	"	ret\n"
	".size nocfi_leaf, .-nocfi_leaf\n"
	".p2align 12\n"
	".popsection\n");

__attribute__((noinline)) void entry_path(void)
{
	uintptr_t page = (uintptr_t)nocfi_leaf & ~(uintptr_t)4095;

	/* out of the page tables: the call faults on nocfi_leaf's first instruction */
	if (madvise((void *)page, 4096, MADV_DONTNEED))
		wl_die("madvise");
	entry_call(nocfi_leaf);
	NO_TAIL_CALL();
}

typedef int (*compress2_fn)(unsigned char *dst, unsigned long *dst_len, const unsigned char *src,
			    unsigned long src_len, int level);

__attribute__((noinline)) void dlopen_leaf(compress2_fn compress2)
{
	unsigned char *src = (unsigned char *)wl_map_anon(DLOPEN_BYTES);
	unsigned char *dst = (unsigned char *)wl_map_anon(2 * DLOPEN_BYTES);
	unsigned long len = 2 * DLOPEN_BYTES;

	/* incompressible: the output is as large as the input, and all written by zlib */
	for (size_t i = 0; i < DLOPEN_BYTES; i++)
		src[i] = (unsigned char)((i * 2654435761u) >> 13);
	if (compress2(dst, &len, src, DLOPEN_BYTES, 0) != 0)
		wl_die("compress2");
	USED(dst);
	NO_TAIL_CALL();
}

__attribute__((noinline)) void dlopen_path(void)
{
	struct timespec wait = { DLOPEN_WAIT_MS / 1000, (DLOPEN_WAIT_MS % 1000) * 1000000L };
	void *z = dlopen("libz.so.1", RTLD_NOW);
	compress2_fn compress2 = z ? (compress2_fn)dlsym(z, "compress2") : NULL;

	if (!compress2)
		wl_die("dlopen libz.so.1");
	nanosleep(&wait, NULL);
	dlopen_leaf(compress2);
	NO_TAIL_CALL();
}

int main(int argc, char **argv)
{
	static const char usage[] = "nofp [--now] [--exit] [stop]";
	struct sigaction sa = { .sa_handler = on_signal };
	struct wl_args a;
	pthread_t t;

	wl_init(argc, argv, &a, usage);
	if (a.nargs > 1 || (a.nargs == 1 && strcmp(a.args[0], "stop")))
		wl_usage(usage);
	stop_in_signal = a.nargs == 1;
	if (sigaction(SIGURG, &sa, NULL))
		wl_die("sigaction");
	wl_wait_start(&a);
	heap_path();
	advise_path();
	if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, NULL))
		wl_die("pthread");
	signal_path();
	alloc_path();
	realign_path();
	wide_path();
	entry_path();
	dlopen_path();
	wl_finish(&a);
	return 0;
}
