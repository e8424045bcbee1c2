/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The files the outputs go to (--folded, --json, --json-stream, --svg, --pprof, diff --svg). */
#ifndef FAULTLINE_OUTPUT_H
#define FAULTLINE_OUTPUT_H

#include <stdio.h>

/* @path opened for writing ("-": stdout) in *@f. Returns 0 or -errno (reported). */
int output_open(const char *path, FILE **f);

/* Closes what output_open() gave (stdout is only flushed) after a write that returned @err;
 * returns the first error, reported. */
int output_close(FILE *f, const char *path, int err);

#endif /* FAULTLINE_OUTPUT_H */
