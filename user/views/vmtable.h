/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The --vm part of the table: memory syscalls per process and by call site. */
#ifndef FAULTLINE_VMTABLE_H
#define FAULTLINE_VMTABLE_H

#include <stdio.h>
#include "model/report.h"

/* One line for process @pid: its calls, failures, bytes reserved, unmapped and advised, and
 * the resident bytes grown and given back inside them. */
void vmtable__render_summary(FILE *out, unsigned width, pid_t pid, const struct fl_report *r);

/* The memory call sites, heaviest first. */
void vmtable__render_calls(FILE *out, unsigned width, const struct fl_report *r);

#endif /* FAULTLINE_VMTABLE_H */
