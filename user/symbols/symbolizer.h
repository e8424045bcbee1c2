/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Names user-space addresses of a target process: /proc/PID/maps snapshot, ELF .symtab then
 * .dynsym (libelf), load bias for PIE and shared libraries, separate debug files by build-id and
 * .gnu_debuglink, C++ demangling, files read through /proc/PID/root (containers).
 */
#ifndef FAULTLINE_SYMBOLIZER_H
#define FAULTLINE_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "symbols/elfcache.h"
#include "symbols/procmaps.h"

/* One per target process. It borrows @cache, which must outlive it. */
struct symbolizer;

/* Snapshots /proc/@pid/maps and loads the symbols of its executable mappings through @cache.
 * Files are opened through /proc/@pid/root (held open), so containerised targets resolve to
 * their own files and names still resolve after the target exits.
 * Returns NULL with errno set (ESRCH: no such process). */
struct symbolizer *symbolizer__new(struct elf_cache *cache, pid_t pid);

/* symbolizer__new(), but the objects of the mappings that @like (a symbolizer of @cache; NULL:
 * none) has alike are not opened again: a forked child maps what its parent does. */
struct symbolizer *symbolizer__new_like(struct elf_cache *cache, pid_t pid,
					const struct symbolizer *like);

/* For tests and offline use: the maps text is read from @maps and files are opened under the
 * directory @root_dir (NULL: "/"). symbolizer__refresh then has nothing to re-read.
 * Returns NULL with errno set. */
struct symbolizer *symbolizer__new_from(struct elf_cache *cache, FILE *maps, const char *root_dir);

/* For a process that is gone: the maps text is read from @maps, files are opened under
 * @rootfd (duplicated; AT_FDCWD or -1: faultline's own root), but those of mappings that
 * @like (NULL: none; a symbolizer of @cache) has alike, which are not opened again: a forked
 * child maps what its parent does. Returns NULL with errno set. */
struct symbolizer *symbolizer__new_offline(struct elf_cache *cache, FILE *maps, int rootfd,
					   const struct symbolizer *like);

/* Writes the snapshot's mappings to @f as /proc/PID/maps lines, but those overlapping an entry
 * of @except (NULL: none). Returns 0 or -EIO. */
int symbolizer__write_maps(const struct symbolizer *s, FILE *f, const struct procmaps *except);

/* The directory files are opened under: the process's root, or AT_FDCWD for faultline's own. */
int symbolizer__rootfd(const struct symbolizer *s);

/* The process is gone: lets go of its /proc entry (what is known stays; no more re-reads). */
void symbolizer__detach(struct symbolizer *s); /* accepts NULL */

void symbolizer__free(struct symbolizer *s); /* accepts NULL */

/* Re-reads /proc/PID/maps, keeping the old snapshot's entries if the process is gone.
 * Returns 0, -ESRCH when the process is gone, -EOPNOTSUPP for symbolizer__new_from. */
int symbolizer__refresh(struct symbolizer *s);

/* symbolizer__refresh() when the snapshot is older than 100 ms (a process that just started
 * may have been read before its libraries were mapped). Returns 0 or as symbolizer__refresh. */
int symbolizer__refresh_stale(struct symbolizer *s);

/* Names @addr into @buf: "function" (demangled), or "module+0xOFFSET" when no symbol covers it
 * (OFFSET is the ELF virtual address when the file could be read, else the offset in the file;
 * module is the file's basename, or "[vdso]", "[heap]", "[anon]"... with the offset in the
 * mapping), or "[unknown]+0xADDR" when no mapping does, after one re-read of the maps (at most
 * one per 100 ms, so garbage addresses cannot make every call read /proc). Returns @buf,
 * truncated to @len; never an empty string (a @len below 2 gets a static "?"). */
const char *symbolizer__name(struct symbolizer *s, uint64_t addr, char *buf, size_t len);

/* The most frames symbolizer__frames gives one address (deeper inlining is cut outermost). */
#define SYMBOLIZER_MAX_FRAMES 16

/* One frame of an address: an inlined call, or the function holding the address. */
struct symbolizer_frame {
	char name[512];	  /* as symbolizer__name spells it; inlined calls by their DWARF name */
	const char *file; /* the source file; NULL: unknown. Lives as long as the elf_cache */
	unsigned line;	  /* 0: unknown */
};

/*
 * The frames of @addr, innermost first, at most @max (and SYMBOLIZER_MAX_FRAMES): where DWARF
 * is at hand (in the file or its debug file), each function inlined at @addr with the line in
 * it, as `addr2line -i` gives them, the last being the function holding @addr named as
 * symbolizer__name does, with the line of @addr or of the outermost inlined call; without
 * DWARF that one frame and no line. Returns how many (at least 1 when @max is).
 */
size_t symbolizer__frames(struct symbolizer *s, uint64_t addr, struct symbolizer_frame *out,
			  size_t max);

/* The address where the function containing @addr begins, from the snapshot (no re-read).
 * Returns 0, or -ENOENT when no symbol covers @addr. */
int symbolizer__func_start(struct symbolizer *s, uint64_t addr, uint64_t *start);

/* Reads @len bytes of code at @addr from the file mapped there (so it works after the process
 * exits). Returns 0, -ENOENT when @addr..@addr+@len is not in one executable file mapping, or
 * -errno. */
int symbolizer__read_code(struct symbolizer *s, uint64_t addr, void *buf, size_t len);

/* True when @addr lies in an executable mapping of the snapshot. */
bool symbolizer__is_code(struct symbolizer *s, uint64_t addr);

/* The name of ELF address @vaddr of object @elf (the elf_cache @cache's), known as @module:
 * its function's, demangled, or "module+0xVADDR". Into @buf; returns it. */
const char *symbolizer__object_name(struct elf_cache *cache, struct elfsyms *elf,
				    const char *module, uint64_t vaddr, char *buf, size_t len);

/* The address in this process of ELF address @vaddr of object @elf (the elf_cache's), from its
 * executable mappings of it, into *@addr. Returns 0, or -ENOENT when no such mapping holds it
 * (not mapped, or mapped after the maps were read). */
int symbolizer__addr_of(const struct symbolizer *s, const struct elfsyms *elf, uint64_t vaddr,
			uint64_t *addr);

/* The object of the executable mapping holding @addr, and @addr's ELF address in it: the
 * reverse of symbolizer__addr_of(). Returns 0, or -ENOENT when no such mapping holds it. */
int symbolizer__object_at(const struct symbolizer *s, uint64_t addr, const struct elfsyms **elf,
			  uint64_t *vaddr);

/* The path of the file with fl_file_id() @file_id that any maps snapshot showed, or NULL. */
const char *symbolizer__file_name(const struct symbolizer *s, uint64_t file_id);

/* The mapping of the snapshot that holds an address, with its file's build-id. */
struct symbolizer_mapping {
	uint64_t start, end, offset; /* [start, end) from file offset @offset */
	const char *path;	     /* "" for anonymous memory; "[vdso]", "[heap]", ... */
	const uint8_t *build_id;     /* NULL when none is known (not ELF, unreadable, none) */
	size_t build_id_len;
};

/* The mapping holding @addr in the snapshot (no re-read). Its pointers stay valid until the
 * next refresh. Returns 0, or -ENOENT when no mapping holds @addr. */
int symbolizer__mapping(const struct symbolizer *s, uint64_t addr, struct symbolizer_mapping *out);

/*
 * A hash of where each executable file is mapped (address range, offset, device, inode): two
 * processes with the same layout, a fork that did not exec, name every code address alike.
 * It changes when a refresh finds other code mapped.
 */
uint64_t symbolizer__layout(const struct symbolizer *s);

struct elfsyms;

/* An executable file mapping of the snapshot, with what the unwinder needs of it. */
struct symbolizer_code {
	uint64_t start, end;
	uint64_t bias;		   /* ELF virtual address = address - bias */
	const struct elfsyms *elf; /* one per file (the elf_cache's), in every process */
	size_t index;		   /* for symbolizer__open_code() */
	const char *path;	   /* as the maps say: valid until the next refresh */
	uint64_t offset;	   /* the file offset mapped at start */
	uint64_t file_id;	   /* fl_file_id() of the file, as the BPF side reads it */
};

/* The executable file mappings with a known bias, sorted by start, up to @max into @out;
 * returns how many there are. */
size_t symbolizer__code(const struct symbolizer *s, struct symbolizer_code *out, size_t max);

/* Opens the file of code mapping @index (read-only); the fd or -errno. */
int symbolizer__open_code(const struct symbolizer *s, size_t index);

/* How many times the maps were read again (explicitly or on a miss). */
unsigned long symbolizer__nr_refreshes(const struct symbolizer *s);

#endif /* FAULTLINE_SYMBOLIZER_H */
