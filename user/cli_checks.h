/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The command line's checks across options (cli_checks.c), and its one way to say a usage
 * error, shared with the parsing of each option (cli.c). */
#ifndef FAULTLINE_CLI_CHECKS_H
#define FAULTLINE_CLI_CHECKS_H

#include "cli.h"

/* "faultline: " @fmt on one line of stderr. */
__attribute__((format(printf, 1, 2))) void usage_error(const char *fmt, ...);

/*
 * The one number parser: @s must be a whole decimal number (a decimal fraction too unless
 * @integer) within [@min, @max]. Rejects "", signs, spaces, "1x", "inf", "nan", hex and
 * overflow. Prints the error for option @opt. Returns 0 or -EINVAL.
 */
int cli__parse_number(const char *opt, const char *s, bool integer, double min, double max,
		      double *out);

/* The options of @cfg that do not go together: 0, or -EINVAL with one line said. */
int cli__check(const struct fl_config *cfg);

#endif /* FAULTLINE_CLI_CHECKS_H */
