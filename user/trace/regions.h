/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The anonymous regions the targets mapped during the session (bpf/regions.bpf.c): who mapped
 * each, and whether an allocator call did, noted on a target's inventory so that its
 * mappings say whose they are.
 */
#ifndef FAULTLINE_REGIONS_H
#define FAULTLINE_REGIONS_H

#include <sys/types.h>
#include "model/inventory.h"

/* Notes every region of @tgid in the regions map @fd (tracer__regions_fd()) on @inv. Returns
 * how many, or -errno. */
int regions__note(int fd, pid_t tgid, struct inventory *inv);

#endif /* FAULTLINE_REGIONS_H */
