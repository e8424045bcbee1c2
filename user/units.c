/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "units.h"

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
