/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The flame graphs' palette. Memory is drawn in greens to blues, a colour per name (a hash of
 * it), so a function keeps its colour from one graph to the next; faultline's own pseudo-frames
 * ("[exit]", "[heap]", "[munmap]") are violet and the allocator's functions and the memory
 * system calls amber, so that what is not the program's own code stands out. Differential
 * graphs use red for growth and blue for shrinking, deeper with the relative change.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include "formats/svg.h"

/* FNV-1a: a colour that depends on the name only. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static uint32_t hsl(double h, double s, double l)
{
	double c = (1 - fabs(2 * l - 1)) * s, hp = fmod(h, 360) / 60;
	double x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2, r = 0, g = 0, b = 0;

	if (hp < 1)
		r = c, g = x;
	else if (hp < 2)
		r = x, g = c;
	else if (hp < 3)
		g = c, b = x;
	else if (hp < 4)
		g = x, b = c;
	else if (hp < 5)
		r = x, b = c;
	else
		r = c, b = x;
	return (uint32_t)lround((r + m) * 255) << 16 | (uint32_t)lround((g + m) * 255) << 8 |
	       (uint32_t)lround((b + m) * 255);
}

/* "[exit]", "[heap]", "[munmap]": what faultline names itself. */
static bool is_pseudo(const char *name)
{
	size_t n = strlen(name);

	return n >= 2 && name[0] == '[' && name[n - 1] == ']';
}

/* The malloc family of glibc, jemalloc, tcmalloc, mimalloc, and the memory system calls. */
static bool is_allocator(const char *name)
{
	static const char *const exact[] = {
		"malloc",	  "calloc",	   "realloc",
		"reallocarray",	  "free",	   "cfree",
		"posix_memalign", "aligned_alloc", "memalign",
		"valloc",	  "pvalloc",	   "int_malloc",
		"int_free",	  "int_realloc",   "int_memalign",
		"sysmalloc",	  "libc_malloc",   "libc_calloc",
		"libc_realloc",	  "libc_free",	   "libc_memalign",
		"mmap",		  "mmap64",	   "munmap",
		"mremap",	  "madvise",	   "brk",
		"sbrk",
	};
	static const char *const prefix[] = { "operator new", "operator delete", "je_",	   "tc_",
					      "mi_",	      "tcache_",	 "malloc_" };
	size_t len;

	while (*name == '_')
		name++;
	len = strcspn(name, "(");
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strlen(exact[i]) == len && !strncmp(name, exact[i], len))
			return true;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

uint32_t svg__frame_color(const char *name, unsigned depth)
{
	uint32_t h = name_hash(name);
	double shade = (double)((h >> 8) % 16) / 100; /* 0 .. 0.15 */

	if (depth == 0)
		return 0xd0d0d0;
	if (is_pseudo(name)) /* violet */
		return hsl(265 + h % 35, 0.45, 0.62 + shade);
	if (is_allocator(name)) /* amber */
		return hsl(25 + h % 20, 0.85, 0.55 + shade);
	/* code: greens to blues */
	return hsl(95 + h % 115, 0.5, 0.55 + shade);
}

uint32_t svg__diff_color(uint64_t before, uint64_t after)
{
	uint64_t hi = before > after ? before : after;
	uint64_t d = before > after ? before - after : after - before;
	uint32_t c;

	if (!d)
		return 0xdcdcdc;
	/* 225 for the smallest change, 60 for a stack that is new or gone */
	c = 225 - (uint32_t)lround(165.0 * (double)d / (double)hi);
	return after > before ? 0xff0000 | c << 8 | c : c << 16 | c << 8 | 0xff;
}
