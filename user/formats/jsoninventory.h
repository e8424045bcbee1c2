/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* A process's resident inventory in the JSON report: each mapping with its addresses, kind,
 * name, owner and what it held at attach and at the end (docs/json.md). */
#ifndef FAULTLINE_JSONINVENTORY_H
#define FAULTLINE_JSONINVENTORY_H

#include "formats/json.h"
#include "model/inventory.h"

/* Writes @inv under @key (null when NULL). */
void jsoninventory__write(struct json *j, const char *key, const struct inventory *inv);

#endif /* FAULTLINE_JSONINVENTORY_H */
