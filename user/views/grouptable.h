/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The final report's process table, summarized by executable: a server's 43 backends or a
 * build's 628 processes in a few lines. One row per executable (processes, alive, growth,
 * total and median private cost), then the costliest few processes of each by themselves,
 * every cut said as "[N more ...]". The whole list is in the JSON report.
 */
#ifndef FAULTLINE_GROUPTABLE_H
#define FAULTLINE_GROUPTABLE_H

#include <stddef.h>
#include <stdio.h>
#include "model/procgroups.h"
#include "model/profile.h"
#include "model/report.h"

#define GROUPTABLE_GROUPS 10   /* executables shown; the rest summed in one line */
#define GROUPTABLE_PER_GROUP 3 /* processes of each listed by themselves */

/*
 * Writes the process table's title, the executables of @g (at most @max_groups, 0: all),
 * then the column heads of the process lines and, for each executable shown, its costliest
 * @per_group processes (0: all) and "[N more NAME processes]". Every line fits @width.
 */
void grouptable__render(FILE *out, unsigned width, const struct fl_proc_summary *procs, size_t n,
			const struct proc_groups *g, enum fl_metric m, size_t max_groups,
			size_t per_group);

#endif /* FAULTLINE_GROUPTABLE_H */
