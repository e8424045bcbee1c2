/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * GNU build-ids (the NT_GNU_BUILD_ID note): what a debug file is looked up by, and what shows
 * that a debug file belongs to the binary it was fetched for.
 */
#ifndef FAULTLINE_BUILDID_H
#define FAULTLINE_BUILDID_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* The build-id of @elf into @buf (@max bytes): its length, 0 when it has none (or a longer
 * one). */
size_t buildid__read(Elf *elf, uint8_t *buf, size_t max);

/* The build-id of the file open at @fd as buildid__read() reads it, in *@len. Returns 0, or
 * -ENOEXEC when the file is not ELF. */
int buildid__read_fd(int fd, uint8_t *buf, size_t max, size_t *len);

/* @id (@len bytes) in lowercase hex into @hex, which holds 2 * @len + 1 bytes. */
void buildid__hex(const uint8_t *id, size_t len, char *hex);

#endif /* FAULTLINE_BUILDID_H */
