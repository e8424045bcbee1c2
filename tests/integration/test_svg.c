/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * --svg and faultline diff on real runs of the threads workload (touch_a/b/c touch 8/16/24
 * MiB by default, any sizes given): the flame graph's tooltips carry the bytes the folded
 * output of the same run has, and diff ranks the functions whose sizes changed first, with
 * the right signs and colours.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"

static void setup(void)
{
	h_require_root();
}

TestSuite(svg, .init = setup, .fini = h_cleanup, .timeout = 120);

/* The exact bytes of every frame titled @name ("NAME\nV (N bytes), ..."), summed; -1: none. */
static int64_t svg_frame_bytes(const char *svg, const char *name)
{
	char title[96];
	int64_t sum = -1;

	snprintf(title, sizeof(title), "<title>%s\n", name);
	for (const char *t = strstr(svg, title); t; t = strstr(t + 1, title)) {
		const char *open = strchr(t + strlen(title), '(');
		char digits[32];
		size_t n = 0;

		cr_assert_not_null(open, "no exact figure after %s", title);
		for (open++; *open != ' ' && n + 1 < sizeof(digits); open++)
			if (*open != ',')
				digits[n++] = *open;
		digits[n] = '\0';
		sum = (sum < 0 ? 0 : sum) + strtoll(digits, NULL, 10);
	}
	return sum;
}

Test(svg, threads_tooltips_carry_the_folded_bytes)
{
	char dir[64], path[96], title[96];
	const char *fl[] = { "--metric", "anon", "--svg", path, NULL };
	struct h_run r;
	char *svg;

	h_temp_dir_ok(dir);
	snprintf(path, sizeof(path), "%s/threads.svg", dir);
	h_attach_run_ok(&r, "threads", NULL, fl);
	svg = h_read_file(path);
	cr_assert(strstr(svg, "</svg>\n"), "no whole SVG at %s: %.300s", path, svg);
	snprintf(title, sizeof(title), "<title>faultline anon: ");
	cr_expect(strstr(svg, title), "%.400s", svg);
	snprintf(title, sizeof(title), ", pid %d threads</title>", r.wl.pid);
	cr_expect(strstr(svg, title), "title without '%s': %.400s", title, svg);
	cr_expect_eq(svg_frame_bytes(svg, "all"), (int64_t)h_folded_total(&r.folded));
	for (size_t i = 0; i < H_NTOUCHERS; i++) {
		int64_t got = svg_frame_bytes(svg, h_touchers[i].fn);

		cr_expect_eq(got, (int64_t)h_folded_frame(&r.folded, h_touchers[i].fn),
			     "%s: SVG %" PRId64 " bytes, folded %" PRIu64, h_touchers[i].fn, got,
			     h_folded_frame(&r.folded, h_touchers[i].fn));
		h_within_ok(h_touchers[i].fn, (uint64_t)(got < 0 ? 0 : got),
			    (int64_t)h_touchers[i].bytes, &r.folded);
	}
	free(svg);
	h_folded_free(&r.folded);
}

/* `faultline ARGS`, to its end: its exit status; its stdout in *@out (to free). */
static int run_faultline(const char *const *args, char **out)
{
	struct h_session s;
	int code;

	h_session_init_ok(&s);
	h_session_start_ok(&s, args);
	cr_assert_eq(h_wait_exit(&s.proc, H_EXIT_MS), 0, "faultline %s did not end", args[0]);
	code = h_exit_code(&s.proc);
	*out = h_read_file(s.out_path);
	return code;
}

/* The table row whose stack ends in ";@leaf", or NULL. */
static const char *row_of(const char *table, const char *leaf)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), ";%s\n", leaf);
	p = strstr(table, want);
	while (p && p > table && p[-1] != '\n')
		p--;
	return p;
}

/* The fill of the first frame titled @name in @svg, as "rrggbb". */
static void frame_fill(const char *svg, const char *name, char fill[7])
{
	char title[64];
	const char *t, *f;

	snprintf(title, sizeof(title), "<title>%s\n", name);
	t = strstr(svg, title);
	cr_assert_not_null(t, "no frame %s in the diff SVG", name);
	f = strstr(t, "fill=\"#");
	cr_assert_not_null(f);
	memcpy(fill, f + 7, 6);
	fill[6] = '\0';
}

/*
 * Before: 8 16 24 MiB; after: 8 32 12 MiB. touch_b grew most (+16 MiB), touch_c shrank
 * (-12 MiB); touch_a stayed. Launch mode: each run ends by itself.
 */
Test(svg, diff_ranks_the_changed_functions)
{
	static const char *const wl_before[] = { "8", "16", "24", NULL };
	static const char *const wl_after[] = { "8", "32", "12", NULL };
	char dir[64], svg_path[96], fill[7], *out, *svg;
	char json_b[96], json_a[96];
	const char *fl_b[] = { "--metric", "anon", "--json", json_b, NULL };
	const char *fl_a[] = { "--metric", "anon", "--json", json_a, NULL };
	struct h_run before, after;
	const char *table, *b, *c, *a;

	h_temp_dir_ok(dir);
	snprintf(svg_path, sizeof(svg_path), "%s/diff.svg", dir);
	snprintf(json_b, sizeof(json_b), "%s/before.json", dir);
	snprintf(json_a, sizeof(json_a), "%s/after.json", dir);
	h_launch_run_ok(&before, "threads", wl_before, fl_b);
	h_launch_run_ok(&after, "threads", wl_after, fl_a);
	{
		/* the same two runs as --json profiles: the same ranking */
		const char *args[] = { "diff", "--metric", "anon", json_b, json_a, NULL };

		cr_assert_eq(run_faultline(args, &out), 0, "faultline diff (JSON) failed:\n%s", out);
		table = strstr(out, "stacks by absolute change");
		cr_assert_not_null(table, "%s", out);
		table = strchr(strchr(table, '\n') + 1, '\n') + 1;
		b = row_of(table, "touch_b");
		cr_expect(b == table && strstr(b, "+16.0 MiB  +100.0%"), "JSON diff:\n%s", out);
		free(out);
	}
	{
		const char *args[] = { "diff", "--metric", "anon", "--svg", svg_path,
				       before.fl.folded_path, after.fl.folded_path, NULL };

		cr_assert_eq(run_faultline(args, &out), 0, "faultline diff failed:\n%s", out);
	}
	table = strstr(out, "stacks by absolute change");
	cr_assert_not_null(table, "%s", out);
	table = strchr(strchr(table, '\n') + 1, '\n') + 1; /* past the column titles */
	b = row_of(table, "touch_b");
	c = row_of(table, "touch_c");
	a = row_of(table, "touch_a");
	cr_expect_eq(b, table, "touch_b is not first:\n%s", out);
	cr_expect_eq(c, strchr(table, '\n') + 1, "touch_c is not second:\n%s", out);
	cr_expect(b && strstr(b, "+16.0 MiB  +100.0%"), "%s", out);
	cr_expect(c && strstr(c, "-12.0 MiB   -50.0%"), "%s", out);
	/* touch_a is unchanged, or moved by a page or so */
	cr_expect(!a || strstr(a, " KiB ") || strstr(a, " B "), "touch_a moved:\n%s", out);
	free(out);

	svg = h_read_file(svg_path);
	frame_fill(svg, "touch_b", fill);
	cr_expect_eq(strncmp(fill, "ff", 2), 0, "touch_b is #%s, not red", fill);
	frame_fill(svg, "touch_c", fill);
	cr_expect_str_eq(fill + 4, "ff", "touch_c is #%s, not blue", fill);
	cr_expect(strstr(svg, "<title>touch_b\nbefore 16.0 MiB (16,777,216 bytes), after 32.0 MiB "
			      "(33,554,432 bytes), change +16.0 MiB (+100.0%)</title>"));
	free(svg);
	h_folded_free(&before.folded);
	h_folded_free(&after.folded);
}

Test(svg, diff_exit_status)
{
	static const char *const missing[] = { "diff", "/nonexistent/a", "/nonexistent/b", NULL };
	static const char *const usage[] = { "diff", "only-one", NULL };
	static const char *const help[] = { "diff", "--help", NULL };
	char *out;

	cr_expect_eq(run_faultline(missing, &out), 1);
	free(out);
	cr_expect_eq(run_faultline(usage, &out), 2);
	free(out);
	cr_expect_eq(run_faultline(help, &out), 0);
	cr_expect(strstr(out, "Usage: faultline diff"), "%s", out);
	free(out);
}
