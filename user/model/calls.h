/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The calls a counts row can name (fl_key.call): allocator functions and memory syscalls. */
#ifndef FAULTLINE_CALLS_H
#define FAULTLINE_CALLS_H

#include <stdint.h>

/* The frame a row of @call shows below its caller: "malloc", "operator new", "[munmap]",
 * "[madvise DONTNEED]", ... */
const char *call__name(uint32_t call);

#endif /* FAULTLINE_CALLS_H */
