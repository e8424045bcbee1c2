/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * faultbench_nofp: faultbench built -O2 -fomit-frame-pointer (the Makefile says so), for the
 * cost of walking stacks by the unwind tables where frame pointers are not there
 * (scripts/bench-overhead.sh, section unwind).
 */
#include "faultbench.c"
