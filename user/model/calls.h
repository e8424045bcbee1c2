/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The calls a counts row can name (fl_key.call): allocator functions and memory syscalls; and
 * the pseudo-frames of rows without a user stack (fl_key.origin). */
#ifndef FAULTLINE_CALLS_H
#define FAULTLINE_CALLS_H

#include <stdint.h>
#include "faultline.h"

/* The frame a row of @call shows below its caller: "malloc", "operator new", "[munmap]",
 * "[madvise DONTNEED]", ... */
const char *call__name(uint32_t call);

/* The frame that stands for a stack of @origin: "[exit]", "[reclaim]", "[other process]", ...
 * (the process's own stack for USER). */
const char *origin__name(enum fl_origin origin);

#endif /* FAULTLINE_CALLS_H */
