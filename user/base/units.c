/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include "base/units.h"
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

void units__emit(FILE *out, unsigned width, const char *fmt, ...)
{
	char line[UNITS_LINE_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	units__sanitize(line);
	units__fit(line, width < UNITS_LINE_MAX ? width : UNITS_LINE_MAX);
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

void units__terminal(unsigned *cols, unsigned *rows)
{
	const char *env = getenv("COLUMNS");
	long c = env ? strtol(env, NULL, 10) : 0;
	struct winsize ws;

	*cols = c >= 40 ? (c < UNITS_LINE_MAX ? (unsigned)c : UNITS_LINE_MAX) : 100;
	*rows = 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) {
		*cols = ws.ws_col < UNITS_LINE_MAX ? ws.ws_col : UNITS_LINE_MAX;
		*rows = ws.ws_row;
	}
}
