/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Names user-space addresses of a target process: /proc/PID/maps snapshot, ELF .symtab then
 * .dynsym (libelf), load bias for PIE and shared libraries, separate debug files by build-id and
 * .gnu_debuglink, C++ demangling, files read through /proc/PID/root (containers).
 */
#ifndef FAULTLINE_SYMBOLIZER_H
#define FAULTLINE_SYMBOLIZER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ELF symbol tables shared by every process, keyed by file identity (device, inode). */
struct elf_cache;
struct elf_cache *elf_cache__new(void);
void elf_cache__free(struct elf_cache *c); /* accepts NULL */

/* One per target process. */
struct symbolizer;

/* Snapshots /proc/@pid/maps and loads the symbols of its executable mappings through @cache.
 * Returns NULL with errno set (ESRCH: no such process). */
struct symbolizer *symbolizer__new(struct elf_cache *cache, pid_t pid);
void symbolizer__free(struct symbolizer *s); /* accepts NULL */

/* Re-reads /proc/PID/maps, keeping the old snapshot's entries if the process is gone. */
int symbolizer__refresh(struct symbolizer *s);

/* Names @addr into @buf: "function" (demangled), or "module+0xOFFSET" when no symbol covers it,
 * or "[unknown]+0xADDR" when no mapping does (after one re-read of the maps). Returns @buf. */
const char *symbolizer__name(struct symbolizer *s, uint64_t addr, char *buf, size_t len);

#endif /* FAULTLINE_SYMBOLIZER_H */
