/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * A process's inventory read from /proc: smaps (the kernel walks every page table for it),
 * the threads' stack pointers, the tmpfs devices, then VmRSS to check the sum against;
 * classified and taken as one side of the inventory, with what the reads cost.
 */
#ifndef FAULTLINE_INVENTORYREAD_H
#define FAULTLINE_INVENTORYREAD_H

#include <sys/types.h>
#include "model/inventory.h"

/* Reads process @pid's mappings into side @side of @inv. Returns 0, -ESRCH when the process
 * is gone, or another -errno (@inv as it was). */
int inventory_read(struct inventory *inv, pid_t pid, enum inv_side side);

#endif /* FAULTLINE_INVENTORYREAD_H */
