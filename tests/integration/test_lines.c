/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Source lines and inlined frames from DWARF on the threads workload (built -g; its
 * wl_write_pages is always inlined): with --inline, every location of the workload in the
 * --pprof profile, read back by `go tool pprof -raw`, must carry the functions and lines that
 * `addr2line -i -f` gives for its address, and the folded tree the inlined call; the JSON stack
 * its lines. Skipped when Go is not installed.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"

#define GO "PATH=\"$PATH:/usr/local/go/bin\" go"

static void setup(void)
{
	h_require_root();
	if (system("PATH=\"$PATH:/usr/local/go/bin\" command -v go >/dev/null 2>&1"))
		cr_skip_test("Go is not installed (no go on PATH nor /usr/local/go/bin/go)");
}

TestSuite(lines, .init = setup, .fini = h_cleanup, .timeout = 120);

/* "name file:line" of each line of addr2line -i -f for @addr in @bin, joined by " | ". */
static void addr2line(const char *bin, uint64_t addr, char *out, size_t len)
{
	char cmd[1100], fn[512], src[512];
	size_t used = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "addr2line -i -f -e '%s' 0x%" PRIx64, bin, addr);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	out[0] = '\0';
	while (fgets(fn, sizeof(fn), p) && fgets(src, sizeof(src), p)) {
		const char *base;

		fn[strcspn(fn, "\n")] = '\0';
		src[strcspn(src, " \n")] = '\0';
		base = strrchr(src, '/');
		used += (size_t)snprintf(out + used, len - used, "%s%s %s", used ? " | " : "", fn,
					 base ? base + 1 : src);
		if (used >= len)
			break;
	}
	pclose(p);
}

/* The same from a location of `pprof -raw`: "name file:line:col" lines, first on @first. */
static void raw_lines(char *first, FILE *p, char *next, size_t nlen, char *out, size_t len)
{
	size_t used = 0;
	char *line = first;

	out[0] = '\0';
	for (;;) {
		char fn[512], src[512];
		const char *base;
		char *colon;

		cr_assert_eq(sscanf(line, "%511s %511s", fn, src), 2, "pprof line: %s", line);
		colon = strrchr(src, ':'); /* the column */
		if (colon)
			*colon = '\0';
		/* no line: the object's file name stands in the Function, addr2line says ?? */
		if (strlen(src) > 2 && !strcmp(src + strlen(src) - 2, ":0"))
			strcpy(src, "??:?");
		base = strrchr(src, '/');
		used += (size_t)snprintf(out + used, len - used, "%s%s %s", used ? " | " : "", fn,
					 base ? base + 1 : src);
		if (!fgets(next, (int)nlen, p) || strncmp(next, "             ", 13)) {
			return;
		}
		line = next + 13;
	}
}

Test(lines, pprof_lines_match_addr2line)
{
	static const char *const wl_args[] = { NULL };
	char pb[128], cmd[512], line[1024], next[1024], got[2048], want[2048];
	char *fl_args[] = { "--inline", "--pprof", pb, NULL };
	uint64_t start = 0, off = 0;
	int compared = 0, inlined = 0;
	const char *bin;
	struct h_run r;
	FILE *p;

	snprintf(pb, sizeof(pb), "/tmp/faultline-lines-%d.pb.gz", (int)getpid());
	h_launch_run_ok(&r, "threads", wl_args, (const char *const *)fl_args);
	h_folded_free(&r.folded);
	snprintf(cmd, sizeof(cmd), "%s/threads", getenv("WORKLOADS"));
	bin = cmd;
	snprintf(line, sizeof(line), GO " tool pprof -raw %s 2>/dev/null | grep ' %s '", pb, bin);
	p = popen(line, "r");
	cr_assert_not_null(p);
	/* "1: 0xSTART/0xLIMIT/0xOFFSET path build-id [FN]": the mapping of the text */
	while (fgets(line, sizeof(line), p)) {
		unsigned long long s, l, o;

		if (sscanf(line, "%*d: 0x%llx/0x%llx/0x%llx", &s, &l, &o) == 3 && o) {
			start = s;
			off = o;
		}
	}
	pclose(p);
	cr_assert_neq(start, 0, "no executable mapping of %s in the profile", bin);

	snprintf(line, sizeof(line),
		 GO " tool pprof -raw %s 2>/dev/null | sed -n '/^Locations/,/^Mappings/p'", pb);
	p = popen(line, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(line, sizeof(line), p));
	while (fgets(line, sizeof(line), p)) {
		unsigned long long addr;
		int pos = 0;

again:
		if (sscanf(line, "%*d: 0x%llx M=%*d %n", &addr, &pos) < 1 || !pos)
			continue;
		/* the workload's own code: a PIE's text has ELF addresses equal to file offsets */
		if (addr < start || addr >= start + 0x100000)
			continue;
		raw_lines(line + pos, p, next, sizeof(next), got, sizeof(got));
		addr2line(bin, addr - start + off, want, sizeof(want));
		/* the toolchain's glue, not the workload's code: crtstuff's functions have no size
		 * (faultline names them object+offset) and no lines; a whole stack of the exit
		 * path goes through __do_global_dtors_aux */
		if (!strstr(want, " crtstuff.c:")) {
			cr_expect_str_eq(got, want, "0x%llx: pprof %s, addr2line %s", addr, got,
					 want);
			compared++;
			inlined += strstr(got, " | ") != NULL;
		}
		if (next[0] && strncmp(next, "             ", 13)) {
			strcpy(line, next);
			next[0] = '\0';
			goto again;
		}
	}
	pclose(p);
	/* and what a user reads: -lines ranks touch_c by its line in threads.c */
	snprintf(line, sizeof(line),
		 GO " tool pprof -lines -top %s 2>/dev/null | "
		    "grep -c 'touch_c .*threads.c:[0-9]'",
		 pb);
	p = popen(line, "r");
	cr_assert_not_null(p);
	cr_expect(fgets(next, sizeof(next), p) && atoi(next) >= 1,
		  "go tool pprof -lines -top shows no touch_c with its line");
	pclose(p);
	unlink(pb);
	cr_expect_geq(compared, 4, "only %d locations in the workload", compared);
	cr_expect_geq(inlined, 3, "only %d locations with an inlined call (wl_write_pages)",
		      inlined);
}

/* --inline: wl_write_pages below touch_a/b/c with their bytes; JSON gives touch_c's line. */
Test(lines, inline_frames_in_the_tree)
{
	static const char *const wl_args[] = { NULL };
	char json[128], *text, *at;
	char *fl_args[] = { "--inline", "--json", json, NULL };
	struct h_run r;

	snprintf(json, sizeof(json), "/tmp/faultline-lines-%d.json", (int)getpid());
	h_launch_run_ok(&r, "threads", wl_args, (const char *const *)fl_args);
	for (int i = 0; i < H_NTOUCHERS; i++)
		h_within_ok(h_touchers[i].fn,
			    h_folded_edge(&r.folded, h_touchers[i].fn, "wl_write_pages"),
			    (int64_t)h_touchers[i].bytes, &r.folded);
	h_folded_free(&r.folded);
	text = h_read_file(json);
	at = strstr(text, "\"touch_c\",\"wl_write_pages\"]");
	cr_assert_not_null(at, "no stack ending touch_c;wl_write_pages in %s", json);
	at = strstr(at, "\"lines\":[");
	cr_assert_not_null(at);
	cr_expect(strstr(at, "threads.c:") && strstr(at, "workload.h:"),
		  "lines of touch_c;wl_write_pages: %.200s", at);
	free(text);
	unlink(json);

	/* without --inline the inlined call is no frame */
	h_launch_run_ok(&r, "threads", wl_args, NULL);
	cr_expect_eq(h_folded_frame(&r.folded, "wl_write_pages"), 0);
	h_folded_free(&r.folded);
}
