/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The source of fuzz_elf's built seeds (tests/fuzz/run.sh compiles them into OUT/seeds/elf):
 * a function, an alias of it and a weak one, as relocatable objects of both ELF classes, a
 * shared library with a build-id, the same stripped with a debuglink, a truncated copy, and a
 * static executable. (corpus/elf/sizeless-label stays in git: a regression input.)
 */
int helper(int x)
{
	return x * 3 + 1;
}

int alias_fn(int x) __attribute__((alias("helper")));

__attribute__((weak)) int weak_fn(int x)
{
	return helper(x) - 1;
}
