/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* ELF symbol tables shared by every process, keyed by file identity (device, inode, size and
 * mtime), each file loaded once. */
#ifndef FAULTLINE_ELFCACHE_H
#define FAULTLINE_ELFCACHE_H

#include <stddef.h>

struct elf_cache;
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

/* The demangler every symbol of the cache's files is demangled with. */
struct demangler *elf_cache__demangler(struct elf_cache *c);

#endif /* FAULTLINE_ELFCACHE_H */
