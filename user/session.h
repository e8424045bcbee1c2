/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* One profiling session: set up, refresh every interval, final report, tear down. */
#ifndef FAULTLINE_SESSION_H
#define FAULTLINE_SESSION_H

#include "cli.h"

/* Runs the session @cfg describes. Returns the process exit status: 0 success, 1 failure, or
 * a launched command's own status once it ran (128 + N when signal N killed it). */
int session__run(const struct fl_config *cfg);

#endif /* FAULTLINE_SESSION_H */
