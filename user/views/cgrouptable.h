/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* --cgroup: each selected cgroup's own memory counters beside its traced processes' RSS. */
#ifndef FAULTLINE_CGROUPTABLE_H
#define FAULTLINE_CGROUPTABLE_H

#include <stdio.h>
#include "model/cgroupmem.h"

void cgrouptable__render(FILE *out, unsigned width, const struct cgroup_recon *r);

#endif /* FAULTLINE_CGROUPTABLE_H */
