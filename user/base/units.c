/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include "base/units.h"
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *const unit_names[] = { "B", "KiB", "MiB", "GiB" };
#define NUNITS (sizeof(unit_names) / sizeof(unit_names[0]))

static const char *fmt_bytes(char *buf, size_t len, const char *sign, uint64_t v)
{
	double d = (double)v;
	size_t u = 0;

	if (v < 1000) {
		snprintf(buf, len, "%s%" PRIu64 " B", sign, v);
		return buf;
	}
	/* 999.95 and above would print as "1000.0": move to the next unit instead. */
	do {
		d /= 1024.0;
		u++;
	} while (d >= 999.95 && u < NUNITS - 1);
	snprintf(buf, len, "%s%.1f %s", sign, d, unit_names[u]);
	return buf;
}

const char *units__bytes(char *buf, size_t len, uint64_t v)
{
	return fmt_bytes(buf, len, "", v);
}

const char *units__sbytes(char *buf, size_t len, int64_t v)
{
	/* -INT64_MIN overflows: take the magnitude in unsigned arithmetic. */
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	return fmt_bytes(buf, len, v < 0 ? "-" : "+", mag);
}

const char *units__value(char *buf, size_t len, uint64_t v, bool bytes)
{
	if (bytes)
		return units__bytes(buf, len, v);
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

void units__fit(char *s, size_t width)
{
	size_t cut;

	if (strlen(s) <= width)
		return;
	if (width < 3) {
		s[width] = '\0';
		return;
	}
	cut = width - 3;
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	memcpy(s + cut, "...", 4);
}

void units__sanitize(char *s)
{
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
	}
}

/* process-wide, as the width it counts against: one session or diff per process */
static unsigned long lines_cut;

unsigned long units__lines_cut(void)
{
	return lines_cut;
}

void units__say_cut(FILE *out, const char *who, unsigned width)
{
	fprintf(out,
		"%s: lines cut at %u columns (\"...\"); --width N or COLUMNS=N widens them, "
		"--width 0 cuts none\n",
		who, width);
}

void units__emit(FILE *out, unsigned width, const char *fmt, ...)
{
	char line[UNITS_LINE_MAX + 1];
	size_t len, fit = width < UNITS_LINE_MAX ? width : UNITS_LINE_MAX;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	units__sanitize(line);
	len = strlen(line);
	units__fit(line, fit);
	lines_cut += len > fit;
	fprintf(out, "%s\n", line);
}

size_t units__utf8_len(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	*bad = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0; /* a continuation byte, C0, C1, F5..FF */
	/* the second byte's range excludes overlongs, surrogates and > U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < len; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

const char *units__svalue(char *buf, size_t len, int64_t v, bool bytes)
{
	if (bytes)
		return units__sbytes(buf, len, v);
	snprintf(buf, len, "%+" PRId64, v);
	return buf;
}

const char *units__delta(char *buf, size_t len, uint64_t before, uint64_t after, bool bytes)
{
	const char *sign = after < before ? "-" : "+";
	uint64_t mag = after < before ? before - after : after - before;

	if (bytes)
		return fmt_bytes(buf, len, sign, mag);
	snprintf(buf, len, "%s%" PRIu64, sign, mag);
	return buf;
}

const char *units__change(char *buf, size_t len, uint64_t before, uint64_t after, bool say_gone)
{
	if (!before)
		snprintf(buf, len, "%s", after ? "new" : "+0.0%");
	else if (!after && say_gone)
		snprintf(buf, len, "gone");
	else
		snprintf(buf, len, "%+.1f%%",
			 100.0 * ((double)after - (double)before) / (double)before);
	return buf;
}

static unsigned within_line_max(unsigned long c)
{
	return c < UNITS_LINE_MAX ? (unsigned)c : UNITS_LINE_MAX;
}

unsigned units__pick_width(long given, unsigned stdout_cols, const char *columns, unsigned tty_cols)
{
	long c = columns ? strtol(columns, NULL, 10) : 0;

	if (given != UNITS_WIDTH_UNSET)
		return given ? within_line_max((unsigned long)given) : UNITS_LINE_MAX;
	/* the redraw must fit the screen it is on: the terminal before $COLUMNS */
	if (stdout_cols >= UNITS_MIN_COLS)
		return within_line_max(stdout_cols);
	if (c >= UNITS_MIN_COLS)
		return within_line_max((unsigned long)c);
	if (tty_cols >= UNITS_MIN_COLS)
		return within_line_max(tty_cols);
	return UNITS_DEFAULT_COLS;
}

/* The columns of the terminal on @fd, 0 when it is none; its rows into *@rows. */
static unsigned tty_cols(int fd, unsigned *rows)
{
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) || !ws.ws_col)
		return 0;
	if (rows)
		*rows = ws.ws_row;
	return ws.ws_col;
}

void units__terminal(long given, unsigned *cols, unsigned *rows)
{
	unsigned out, other;

	*rows = 0;
	out = tty_cols(STDOUT_FILENO, rows);
	if (out < UNITS_MIN_COLS)
		*rows = 0;
	other = tty_cols(STDERR_FILENO, NULL) ?: tty_cols(STDIN_FILENO, NULL);
	*cols = units__pick_width(given, out, getenv("COLUMNS"), other);
}

int units__parse_width(const char *arg, long *out)
{
	unsigned long v = 0;
	const char *p = arg;

	for (; *p >= '0' && *p <= '9' && v <= UNITS_LINE_MAX; p++)
		v = v * 10 + (unsigned long)(*p - '0');
	if (p == arg || (*p && (*p < '0' || *p > '9')))
		return -EINVAL;
	if (*p || v > UNITS_LINE_MAX)
		return -ERANGE;
	if (v && v < UNITS_MIN_COLS)
		return -EDOM;
	*out = (long)v;
	return 0;
}

const char *units__width_problem(int err)
{
	return err == -EDOM ? "too narrow" : err == -ERANGE ? "out of range" : "not a number";
}
