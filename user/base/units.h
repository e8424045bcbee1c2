/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Human-readable figures and fitted lines, shared by the text views. */
#ifndef FAULTLINE_UNITS_H
#define FAULTLINE_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Big enough for any result of the functions below. */
#define UNITS_BUF 32

/*
 * Writes @v bytes to @buf: "999 B", "1.5 KiB", "12.0 MiB", "3.2 GiB" (binary units, one
 * decimal). The next unit starts at 1000 of the current one, so that "1000.0 KiB" never
 * appears and a figure below 1000 GiB takes at most 9 columns. Returns @buf.
 */
const char *units__bytes(char *buf, size_t len, uint64_t v);
/* As units__bytes() with a sign always shown: "+1.5 KiB", "-12.0 MiB", "+0 B". */
const char *units__sbytes(char *buf, size_t len, int64_t v);
/* @v as units__bytes() when @bytes, else as a plain decimal count. Returns @buf. */
const char *units__value(char *buf, size_t len, uint64_t v, bool bytes);
/* ... signed, with the sign always shown: "+1.5 KiB", "-3". Returns @buf. */
const char *units__svalue(char *buf, size_t len, int64_t v, bool bytes);
/* @after - @before as units__svalue() writes it, for any two values (the difference of two
 * uint64_t may not fit an int64_t). Returns @buf. */
const char *units__delta(char *buf, size_t len, uint64_t before, uint64_t after, bool bytes);
/* The relative change from @before to @after: "+12.5%", "new" when @before is 0 ("+0.0%"
 * when both are), and "gone" when @after is 0 and @say_gone. Returns @buf. */
const char *units__change(char *buf, size_t len, uint64_t before, uint64_t after, bool say_gone);

#define UNITS_MIN_COLS 40      /* the narrowest width taken from --width or $COLUMNS */
#define UNITS_DEFAULT_COLS 100 /* ... when nothing says one */
#define UNITS_WIDTH_UNSET (-1) /* no --width on the command line */

/*
 * The width lines are cut to: @given (--width N; 0: no cut, that is UNITS_LINE_MAX columns;
 * UNITS_WIDTH_UNSET: not given), else the terminal of stdout (@stdout_cols; 0: none), else
 * $COLUMNS (@columns, NULL when unset; below UNITS_MIN_COLS ignored), else the terminal the
 * session runs on (@tty_cols: stderr's or stdin's, where `faultline > file` is typed; 0:
 * none), else UNITS_DEFAULT_COLS.
 */
unsigned units__pick_width(long given, unsigned stdout_cols, const char *columns,
			   unsigned tty_cols);

/* units__pick_width() of this process's terminals and environment into *@cols, and the
 * rows of the terminal on stdout into *@rows (0 when stdout is not one: no limit). */
void units__terminal(long given, unsigned *cols, unsigned *rows);

/* How many lines units__emit() cut to their width so far, in this process: the session says
 * once how to widen them. */
unsigned long units__lines_cut(void);
/* That line, on @out: lines cut at @width columns, and how to widen them. */
void units__say_cut(FILE *out, const char *who, unsigned width);

/* Cuts @s to at most @width bytes, ending it with "..." when something was cut (never in the
 * middle of a UTF-8 sequence). */
void units__fit(char *s, size_t width);
/* Replaces control characters in @s (a newline in a thread name) with '?'. */
void units__sanitize(char *s);

/* The length of the well-formed UTF-8 sequence at @s (@n >= 1 bytes left; 1 for ASCII), or
 * 0 and in @bad the length of its maximal invalid subpart (at least 1). Overlongs,
 * surrogates and code points above U+10FFFF are invalid. */
size_t units__utf8_len(const unsigned char *s, size_t n, size_t *bad);

#define UNITS_LINE_MAX 1000 /* the widest line units__emit() writes */

/* A --width value @arg into *@out: 0 (no cut) or UNITS_MIN_COLS..UNITS_LINE_MAX. Returns 0,
 * -EINVAL (no whole number), -ERANGE (above UNITS_LINE_MAX) or -EDOM (too narrow), and
 * prints nothing: each command reports it, units__width_problem() saying what is wrong. */
int units__parse_width(const char *arg, long *out);
/* "not a number", "out of range", "too narrow": what units__parse_width()'s @err means. */
const char *units__width_problem(int err);

/* printf()s one line to @out: control characters replaced, cut to @width (<= UNITS_LINE_MAX)
 * with units__fit(), then a newline. */
__attribute__((format(printf, 3, 4))) void units__emit(FILE *out, unsigned width, const char *fmt,
						       ...);

#endif /* FAULTLINE_UNITS_H */
