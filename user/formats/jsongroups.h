/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The JSON report's summary of its processes (docs/json.md): "process_groups", the processes
 * by executable as the final table shows them but none left out, and "shared_pages", the
 * figures behind the table's note on shared pages. The processes themselves stay in
 * "processes", every one.
 */
#ifndef FAULTLINE_JSONGROUPS_H
#define FAULTLINE_JSONGROUPS_H

#include "formats/json.h"
#include "model/report.h"

/* Writes the members "process_groups" (null when out of memory) and "shared_pages" of @r. */
void jsongroups__write(struct json *j, const struct fl_report *r);

#endif /* FAULTLINE_JSONGROUPS_H */
