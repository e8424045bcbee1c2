/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* A scratch directory for each test that builds or writes files, and commands run for it. */
#ifndef FAULTLINE_TEST_SCRATCH_H
#define FAULTLINE_TEST_SCRATCH_H

#include <stdint.h>

/* The current test's directory, /tmp/faultline-unit-XXXXXX. */
extern char scratch_dir[64];

/* For a TestSuite's .init and .fini: makes scratch_dir, and removes it with all it holds (the
 * .fini runs even after a failed assertion). */
void scratch_setup(void);
void scratch_teardown(void);

/* Runs the shell command printf(@fmt, ...) and asserts that it succeeds. */
void scratch_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes @text to @path, asserting that it can. */
void scratch_write(const char *path, const char *text);

/* The value of symbol @name in the ELF file @bin, by nm; asserts that it has one. */
uint64_t scratch_symbol(const char *bin, const char *name);

#endif /* FAULTLINE_TEST_SCRATCH_H */
