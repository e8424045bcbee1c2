/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * MiniDebugInfo: the xz-compressed ELF file in section .gnu_debugdata that Fedora, RHEL and
 * their derivatives ship in stripped binaries, holding the .symtab of the static functions
 * that .dynsym lacks (gdb's and perf's "MiniDebuginfo"). Decompressed with liblzma.
 */
#ifndef FAULTLINE_MINIDEBUG_H
#define FAULTLINE_MINIDEBUG_H

#include <libelf.h>
#include <stddef.h>

/* The largest decompressed section accepted: a symbol table, never a whole debug file. */
#define MINIDEBUG_MAX_SIZE (256u << 20)

/*
 * Decompresses the .gnu_debugdata of @elf into a malloc'ed buffer (*@buf, *@len). Returns 0,
 * -ENOENT when @elf has no such section, -EINVAL when it is not valid xz (or larger than
 * MINIDEBUG_MAX_SIZE), or -ENOMEM.
 */
int minidebug__read(Elf *elf, void **buf, size_t *len);

#endif /* FAULTLINE_MINIDEBUG_H */
