/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The width the tables are cut to, and the count of cut lines that makes the session say how
 * to widen them (issue 25: a redirected table cut at 100 columns without a word). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"

Test(width, from_the_option_the_terminal_columns_or_the_session_terminal)
{
	/* --width first: 0 cuts none (the longest line faultline writes) */
	cr_expect_eq(units__pick_width(0, 80, "60", 120), UNITS_LINE_MAX);
	cr_expect_eq(units__pick_width(250, 80, "60", 120), 250);
	/* a terminal on stdout: the redraw must fit it, whatever $COLUMNS says */
	cr_expect_eq(units__pick_width(UNITS_WIDTH_UNSET, 80, "160", 120), 80);
	/* redirected: $COLUMNS, else the terminal the command was typed on */
	cr_expect_eq(units__pick_width(UNITS_WIDTH_UNSET, 0, "160", 120), 160);
	cr_expect_eq(units__pick_width(UNITS_WIDTH_UNSET, 0, NULL, 120), 120);
	cr_expect_eq(units__pick_width(UNITS_WIDTH_UNSET, 0, "abc", 120), 120);
	cr_expect_eq(units__pick_width(UNITS_WIDTH_UNSET, 0, "20", 0), UNITS_DEFAULT_COLS,
		     "a $COLUMNS too narrow for the tables is not taken");
	cr_expect_eq(units__pick_width(UNITS_WIDTH_UNSET, 0, NULL, 0), UNITS_DEFAULT_COLS);
	cr_expect_eq(units__pick_width(UNITS_WIDTH_UNSET, 0, "5000", 0), UNITS_LINE_MAX);
	cr_expect_eq(units__pick_width(UNITS_WIDTH_UNSET, 30, NULL, 0), UNITS_DEFAULT_COLS,
		     "a terminal narrower than the tables: as if none");
}

static char *emit(unsigned width, const char *line)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	units__emit(f, width, "%s", line);
	fclose(f);
	return buf;
}

Test(width, cut_lines_are_counted_and_said)
{
	unsigned long before = units__lines_cut();
	char long_line[200], *out, *said = NULL;
	size_t len = 0;
	FILE *f;

	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	out = emit(UNITS_LINE_MAX, long_line);
	cr_expect_eq(strlen(out), 200, "--width 0 cuts nothing");
	free(out);
	out = emit(40, "exactly forty columns, so nothing is cut");
	free(out);
	cr_expect_eq(units__lines_cut(), before, "nothing cut, nothing counted");
	out = emit(100, long_line);
	cr_expect_eq(strlen(out), 101);
	cr_expect_str_eq(out + 97, "...\n");
	free(out);
	cr_expect_eq(units__lines_cut(), before + 1);

	f = open_memstream(&said, &len);
	cr_assert_not_null(f);
	units__say_cut(f, "faultline", 100);
	fclose(f);
	cr_expect_str_eq(said, "faultline: lines cut at 100 columns (\"...\"); --width N or "
			       "COLUMNS=N widens them, --width 0 cuts none\n");
	free(said);
}
