/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The library the badcfi workload loads with its .eh_frame overwritten: three calls deep,
 * built -O2 -fomit-frame-pointer, so that rbp still holds the caller's frame pointer inside
 * it and a frame-pointer step from its code skips all three and the caller too.
 */
#include <string.h>

void lib_touch(char *p, unsigned long len);

__attribute__((noinline)) static void lib_leaf(char *p, unsigned long len)
{
	memset(p, 1, len);
	__asm__ volatile("" ::: "memory"); /* a call, not a jump: this frame stays */
}

__attribute__((noinline)) static void lib_mid(char *p, unsigned long len)
{
	lib_leaf(p, len);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void lib_touch(char *p, unsigned long len)
{
	lib_mid(p, len);
	__asm__ volatile("" ::: "memory");
}
