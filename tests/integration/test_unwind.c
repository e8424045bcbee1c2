/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Whole stacks without frame pointers: the nofp workload (tests/workloads/nofp.c), built
 * -O2 -fomit-frame-pointer, goes through glibc (malloc, memset, free's munmap, madvise, a
 * thread, a signal handler that allocates). Its bytes must sit on stacks that reach the
 * process's start (_start, in the workload) or the thread's (start_thread's caller), through
 * the unwind tables: a frame-pointer walk stops in memset. Resident growth and releases
 * within 2% (the allocator's own pages), allocations exact.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/jsonread.h"
#include "harness.h"

TestSuite(unwind, .init = h_require_root, .fini = h_cleanup, .timeout = 90);

#define MIB H_MIB

/* _start, __libc_start_main, __libc_start_call_main, main, PATH, LEAF: the leaf at 6 */
#define MAIN_DEPTH 6
/* ... main, realign_path, realign_call (its CFA in rbx), realign_leaf */
#define REALIGN_DEPTH 7
/* clone3, start_thread, thread_main, thread_leaf */
#define THREAD_DEPTH 4
/* _start, __libc_start_main, __libc_start_call_main, main, signal_path, raise,
 * __pthread_kill_implementation, __restore_rt, on_signal, signal_leaf */
#define SIGNAL_DEPTH 10

/* Where @fn is in line @l, or 0 (frame 0 is the process name). */
static size_t frame_at(const struct h_fline *l, const char *fn)
{
	for (size_t j = 1; j < l->nframes; j++)
		if (!strcmp(l->frames[j], fn))
			return j;
	return 0;
}

/*
 * The bytes of the lines through @fn: in *@whole, those whose walk reached the start, where
 * @fn is frame @depth with every frame above it there, and frame 1 is @root (NULL: any; the
 * thread's start is named only where libc's symbols are at hand).
 */
static uint64_t through(const struct h_folded *f, const char *fn, size_t depth, const char *root,
			uint64_t *whole)
{
	uint64_t sum = 0;

	*whole = 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct h_fline *l = &f->lines[i];
		size_t at = frame_at(l, fn);

		if (!at)
			continue;
		sum += l->value;
		if (at == depth && (!root || !strcmp(l->frames[1], root)))
			*whole += l->value;
	}
	return sum;
}

static void expect_whole(const struct h_folded *f, const char *fn, size_t depth, uint64_t want,
			 bool exact)
{
	uint64_t whole,
		all = through(f, fn, depth, depth == THREAD_DEPTH ? NULL : "_start", &whole);

	cr_expect(exact ? whole == want : h_within((double)whole, (double)want),
		  "%s: %llu bytes on whole stacks, %llu in all, expected %llu", fn,
		  (unsigned long long)whole, (unsigned long long)all, (unsigned long long)want);
	cr_expect_eq(whole, all, "%s: %llu of its %llu bytes on cut stacks", fn,
		     (unsigned long long)(all - whole), (unsigned long long)all);
}

static void run(struct h_run *r, const char *const *fl)
{
	h_attach_run_whole_ok(r, "nofp", NULL, fl);
	h_folded_root_ok(&r->folded, "nofp");
}

Test(unwind, growth_on_whole_stacks)
{
	const char *fl[] = { "--metric", "resident", "-i", "0.5", "--json", NULL, NULL };
	char dir[64], json[128];
	uint64_t whole, all, cut = 0;
	struct h_run r;
	struct jv doc;
	char *text;

	h_temp_dir_ok(dir);
	snprintf(json, sizeof(json), "%s/nofp.json", dir);
	fl[5] = json;
	run(&r, fl);
	expect_whole(&r.folded, "heap_leaf", MAIN_DEPTH, 8 * MIB, false);
	expect_whole(&r.folded, "advise_leaf", MAIN_DEPTH, 4 * MIB, false);
	expect_whole(&r.folded, "thread_leaf", THREAD_DEPTH, 2 * MIB, false);
	expect_whole(&r.folded, "signal_leaf", SIGNAL_DEPTH, 1 * MIB, false);
	/* through a frame whose CFA is rbx-based, as ld.so's lazy-binding resolver's */
	expect_whole(&r.folded, "realign_leaf", REALIGN_DEPTH, 2 * MIB, false);
	/* under frames of kilobytes: the walk reads far past its first window of the stack */
	expect_whole(&r.folded, "wide_leaf", MAIN_DEPTH + 1, 3 * MIB, false);
	/* a fault on the first instruction of code without unwind info, rbp zeroed: its return
	 * address is at the stack pointer (the text pages mapped around it are its growth) */
	all = through(&r.folded, "nocfi_leaf", MAIN_DEPTH + 1, "_start", &whole);
	cr_expect(whole >= 4096 && whole == all,
		  "nocfi_leaf (no unwind info): %llu bytes on whole stacks of %llu",
		  (unsigned long long)whole, (unsigned long long)all);
	/* zlib, dlopen()ed after attach: its table came at a refresh, before it ran; compress2()
	 * writes 1 MiB of output through its own code (and the pages zlib's state takes) */
	all = through(&r.folded, "compress2", MAIN_DEPTH + 1, "_start", &whole);
	cr_expect(whole >= 1 * MIB && whole == all,
		  "compress2 (zlib, dlopen()ed): %llu bytes on whole stacks of %llu",
		  (unsigned long long)whole, (unsigned long long)all);
	h_folded_free(&r.folded);
	/* the header's figure: every byte of growth on a whole stack */
	text = h_read_file(json);
	cr_assert_eq(jv_parse(text, strlen(text), &doc), 0, "not JSON: %.300s", text);
	cr_assert(jv_u64(jv_path(&doc, "stack_walks.growth_bytes.whole"), &whole));
	for (const char *k = "frame_pointers_ended\0no_unwind_info\0unfollowable_rule\0"
			     "unreadable_stack\0depth\0frame_pointer_fallback\0stack_lost\0";
	     *k; k += strlen(k) + 1) {
		char path[96];
		uint64_t v = 0;

		snprintf(path, sizeof(path), "stack_walks.growth_bytes.%s", k);
		cr_assert(jv_u64(jv_path(&doc, path), &v), "%s", path);
		cut += v;
	}
	cr_expect_geq(whole, 18 * MIB, "whole: %llu", (unsigned long long)whole);
	cr_expect_leq(cut, whole / 100, "cut: %llu of %llu", (unsigned long long)cut,
		      (unsigned long long)(whole + cut));
	cr_assert(jv_u64(jv_path(&doc, "stack_walks.unwind_tables.objects"), &whole));
	cr_expect_geq(whole, 3, "tables for nofp, libc and ld.so: %llu", (unsigned long long)whole);
	jv_free(&doc);
	free(text);
}

/* A launched command stops after its exec and again at its entry point, its libraries mapped:
 * its tables and theirs are loaded before its program runs, so its stacks are whole from the
 * first fault on (they were cut until the first refresh found libc). */
Test(unwind, launched_whole_from_the_start)
{
	const char *fl[] = { "--metric", "resident", NULL };
	struct h_run r;

	h_launch_run_ok(&r, "nofp", NULL, fl);
	h_folded_root_ok(&r.folded, "nofp");
	expect_whole(&r.folded, "heap_leaf", MAIN_DEPTH, 8 * MIB, false);
	expect_whole(&r.folded, "advise_leaf", MAIN_DEPTH, 4 * MIB, false);
	expect_whole(&r.folded, "thread_leaf", THREAD_DEPTH, 2 * MIB, false);
	h_folded_free(&r.folded);
}

/*
 * A child -f follows that execs and does its work tens of milliseconds later (a compiler make
 * runs, a script's commands): its tables go in within milliseconds of its exec and of ld.so
 * mapping its libraries, not when faultline's loop next looks, up to 100 ms later (before,
 * such a child ran by frame pointers, which nofp has none of). The workload, a grandchild of
 * the launched command (whose own forks faultline hears of at once), starts its work 30 ms
 * after its exec, well before faultline's first refresh; nothing else execs meanwhile.
 */
Test(unwind, exec_child_whole_within_milliseconds)
{
	char script[512], path[128];
	const char *argv[] = {
		"-qf", "--metric=resident", "--folded", path, "--", "sh", "-c", script, NULL
	};
	struct h_session s;
	struct h_folded f;

	h_session_init_ok(&s);
	snprintf(path, sizeof(path), "%s/folded", s.dir);
	snprintf(script, sizeof(script), "sh -c '%s/nofp --in 30 --exit >/dev/null; true'",
		 getenv("WORKLOADS"));
	h_session_start_ok(&s, argv);
	cr_assert_eq(h_wait_exit(&s.proc, H_WORK_MS), 0, "faultline did not end with its command");
	cr_assert_eq(h_exit_code(&s.proc), 0, "faultline or nofp failed");
	h_folded_load_ok(path, &f);
	expect_whole(&f, "heap_leaf", MAIN_DEPTH, 8 * MIB, false);
	expect_whole(&f, "advise_leaf", MAIN_DEPTH, 4 * MIB, false);
	expect_whole(&f, "thread_leaf", THREAD_DEPTH, 2 * MIB, false);
	h_folded_free(&f);
}

/* free()'s munmap and madvise give the pages back inside a libc syscall wrapper, which has no
 * frame: the caller of the wrapper is there all the same. */
Test(unwind, releases_on_whole_stacks)
{
	const char *fl[] = { "--metric", "released", NULL };
	struct h_run r;

	run(&r, fl);
	expect_whole(&r.folded, "heap_leaf", MAIN_DEPTH, 8 * MIB, false);
	expect_whole(&r.folded, "advise_leaf", MAIN_DEPTH, 4 * MIB, false);
	h_folded_free(&r.folded);
}

/* The allocator's callers exactly; and the pages malloc itself touches while its return
 * probe is armed are its caller's, not the uprobe trampoline's. */
Test(unwind, allocations_on_whole_stacks)
{
	const char *fl[] = { "--alloc", "--metric", "alloc-bytes", NULL };
	const char *fl_res[] = { "--alloc", "--metric", "resident", NULL };
	struct h_run r;

	run(&r, fl);
	expect_whole(&r.folded, "heap_leaf", MAIN_DEPTH, 8 * MIB, true);
	expect_whole(&r.folded, "thread_leaf", THREAD_DEPTH, 2 * MIB, true);
	expect_whole(&r.folded, "signal_leaf", SIGNAL_DEPTH, 1 * MIB, true);
	expect_whole(&r.folded, "alloc_path", MAIN_DEPTH - 1, 64 * 1000, true);
	h_folded_free(&r.folded);

	run(&r, fl_res);
	for (size_t i = 0; i < r.folded.n; i++) {
		const struct h_fline *l = &r.folded.lines[i];
		size_t at = frame_at(l, "malloc");

		for (size_t j = 1; j < l->nframes; j++)
			cr_expect(!strstr(l->frames[j], "[uprobes]"),
				  "a trampoline frame: line %zu", i);
		/* called by a leaf or alloc_path, or by zlib and ld.so under dlopen_path */
		if (at && !frame_at(l, "dlopen_path"))
			cr_expect(at == MAIN_DEPTH + 1 || at == MAIN_DEPTH ||
					  at == THREAD_DEPTH + 1 || at == SIGNAL_DEPTH + 1,
				  "malloc at frame %zu, its caller lost: %s;%s;...", at,
				  l->frames[1], l->frames[2]);
	}
	h_folded_free(&r.folded);
}

/* The state letter of /proc/@pid/stat ('T' once stopped), or 0. */
static char proc_state(pid_t pid)
{
	char path[64], *text, *paren, state = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	text = h_read_file(path);
	paren = strrchr(text, ')');
	if (paren && paren[1] == ' ')
		state = paren[2];
	free(text);
	return state;
}

/* A frame name as eu-stack spells it, without a symbol version ("@@GLIBC_2.34"). */
static void plain_name(char *dst, size_t len, const char *name)
{
	snprintf(dst, len, "%s", name);
	dst[strcspn(dst, "@")] = '\0';
}

#define MAX_ORACLE 64

/*
 * An independent oracle for the shape of a walk: the workload stops itself in signal_leaf,
 * right after the memset whose faults faultline walked, and elfutils' eu-stack unwinds it
 * there (its own .eh_frame interpreter, through the signal frame). From signal_leaf out to
 * _start, the frames must be the same, one by one.
 */
Test(unwind, same_frames_as_eu_stack)
{
	const char *wl[] = { "stop", NULL };
	char cmd[96], line[256], names[MAX_ORACLE][128];
	size_t n = 0, from = MAX_ORACLE, at = 0;
	const struct h_fline *ours = NULL;
	struct h_run r;
	FILE *p;

	if (system("command -v eu-stack >/dev/null 2>&1"))
		cr_skip_test("eu-stack (elfutils) is not installed: scripts/deps.sh installs it");
	h_attach_start_whole_ok(&r, "nofp", wl, NULL);
	h_kill_ok(r.wl.pid, SIGUSR1);
	for (int i = 0; i < 500 && proc_state(r.wl.pid) != 'T'; i++)
		usleep(10000);
	cr_assert_eq(proc_state(r.wl.pid), 'T', "the workload never stopped in signal_leaf");
	snprintf(cmd, sizeof(cmd), "eu-stack -p %d 2>&1", r.wl.pid);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p) && n < MAX_ORACLE) {
		char addr[32], name[128];

		/* "#3  0x000055be6d7517b9 on_signal", or no name where it knows none; the main
		 * thread only, the one stopped */
		if (line[0] != '#' || sscanf(line, "#%*u %31s %127s", addr, name) < 1)
			continue;
		if (sscanf(line, "#%*u %31s %127s", addr, name) == 1)
			snprintf(name, sizeof(name), "??");
		plain_name(names[n], sizeof(names[n]), name);
		if (from == MAX_ORACLE && !strcmp(names[n], "signal_leaf"))
			from = n;
		n++;
	}
	pclose(p);
	h_kill_ok(r.wl.pid, SIGCONT);
	cr_assert_eq(h_wait_line(&r.wl, "done", H_WORK_MS), 0, "no \"done\" after SIGCONT");
	h_attach_stop_ok(&r, SIGINT);
	cr_assert_lt(from, n, "eu-stack shows no signal_leaf frame");
	for (size_t i = 0; i < r.folded.n; i++) {
		const struct h_fline *l = &r.folded.lines[i];

		/* memset's faults, the heaviest line that ends right below signal_leaf */
		size_t k = frame_at(l, "signal_leaf");

		if (k && k + 2 == l->nframes && (!ours || l->value > ours->value)) {
			ours = l;
			at = k;
		}
	}
	cr_assert_not_null(ours, "faultline has no signal_leaf;memset stack");
	cr_expect_eq(n - from, at, "eu-stack: %zu frames from signal_leaf out, faultline %zu",
		     n - from, at);
	for (size_t k = 0; k < at && from + k < n; k++) {
		const char *theirs = names[from + k], *mine = ours->frames[at - k];

		/* without libc's symbols, eu-stack and faultline name its static functions each
		 * their own way: "??" against "libc.so.6+0x3c04f" */
		if (!strcmp(theirs, "??") && strstr(mine, ".so"))
			continue;
		cr_expect_str_eq(mine, theirs, "frame %zu from signal_leaf out: %s, eu-stack %s", k,
				 mine, theirs);
	}
	h_folded_free(&r.folded);
}
