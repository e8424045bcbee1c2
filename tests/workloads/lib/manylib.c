/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The library the manylibs workload maps hundreds of copies of: a call through it, built as
 * distributions build their libraries (-O2 -fomit-frame-pointer), is walked by its unwind
 * table or not at all.
 */
void lib_call(void (*fn)(void));

__attribute__((noinline)) void lib_call(void (*fn)(void))
{
	fn();
	__asm__ volatile("" ::: "memory"); /* a call, not a jump: this frame stays */
}
