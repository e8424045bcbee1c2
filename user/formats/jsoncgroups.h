/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The JSON report's "cgroups" (docs/json.md): each --cgroup target's own memory counters at
 * the start and now, beside its traced processes' RSS change and faultline's net. */
#ifndef FAULTLINE_JSONCGROUPS_H
#define FAULTLINE_JSONCGROUPS_H

#include "formats/json.h"
#include "model/report.h"

/* Writes the member "cgroups" of @r: an array, null without --cgroup. */
void jsoncgroups__write(struct json *j, const struct fl_report *r);

#endif /* FAULTLINE_JSONCGROUPS_H */
