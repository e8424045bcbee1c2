/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* ELF symbol tables shared by every process, keyed by file identity (device, inode, size and
 * mtime), each file loaded once. */
#ifndef FAULTLINE_ELFCACHE_H
#define FAULTLINE_ELFCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct elf_cache;
struct debuginfod;
struct elfsyms;
struct demangler;

struct elf_cache *elf_cache__new(void);
void elf_cache__free(struct elf_cache *c); /* accepts NULL */
/* Where separate debug files are looked for, inside each target's root (default
 * "/usr/lib/debug"); applies to files loaded afterwards. Returns 0 or -ENOMEM. */
int elf_cache__set_debug_dir(struct elf_cache *c, const char *dir);
/* How many distinct files (ELF or not) the cache holds. */
size_t elf_cache__nr_files(const struct elf_cache *c);

/* The symbols of the file open at @fd (known as @path under @rootfd, for its debuglink),
 * loaded once per file: *@out is NULL for a file that is not ELF or unreadable (remembered,
 * not retried). Returns 0 or -errno (-ENOMEM). */
int elf_cache__get(struct elf_cache *c, int fd, int rootfd, const char *path, struct elfsyms **out);

/* Whether files loaded from now on open their DWARF (default: yes). */
void elf_cache__set_dwarf(struct elf_cache *c, bool dwarf);

/*
 * Files loaded from now on (and those loaded already) that have neither DWARF nor a separate
 * debug file have their build-id queued to @d (borrowed; NULL: off).
 */
void elf_cache__set_debuginfod(struct elf_cache *c, struct debuginfod *d);

/*
 * Adds the debug files debuginfod brought since the last call to the files they belong to.
 * Returns how many files gained names or DWARF (stacks named before should be named again),
 * or -ENOMEM.
 */
int elf_cache__poll(struct elf_cache *c);

/* One "faultline: no debug info for PATH ..." line to @out per ELF file that has no symbol
 * table but .dynsym and no DWARF, saying whether debuginfod was asked. */
void elf_cache__print_undebugged(const struct elf_cache *c, FILE *out);

/* The demangler every symbol of the cache's files is demangled with. */
struct demangler *elf_cache__demangler(struct elf_cache *c);

#endif /* FAULTLINE_ELFCACHE_H */
