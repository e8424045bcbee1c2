/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The shipping options of the command line (--otlp, --pyroscope and theirs). */
#ifndef FAULTLINE_CLI_SHIP_H
#define FAULTLINE_CLI_SHIP_H

#include "cli.h"

/* Parses shipping option @key with @arg into @cfg. Returns 0, -EINVAL after one usage line,
 * or -ENOENT when @key is not a shipping option. */
int cli_ship__parse(struct fl_config *cfg, int key, const char *arg);

/* The checks across options: a header or a CA file without an endpoint to use it. Returns 0
 * or -EINVAL after one usage line. */
int cli_ship__check(const struct fl_config *cfg);

#endif /* FAULTLINE_CLI_SHIP_H */
