/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Function symbols of one ELF file (libelf): .symtab, else a separate debug file found by
 * build-id or .gnu_debuglink, plus .dynsym; the file's type, PT_LOAD segments (for the load bias
 * of a mapping), GNU build-id and debuglink name. Every path is resolved under a root directory
 * (the target's /proc/PID/root), so containerised targets resolve to their own files.
 */
#ifndef FAULTLINE_ELFSYMS_H
#define FAULTLINE_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "symbols/debugfile.h"

/* Where separate debug files live when no other directory is given. */
#define ELFSYMS_DEFAULT_DEBUG_DIR "/usr/lib/debug"
#define ELFSYMS_MAX_BUILD_ID DEBUGFILE_MAX_BUILD_ID
/* How far past a sizeless code label (assembly: ld.so's _start) its name reaches. */
#define ELFSYMS_LABEL_REACH 4096

/* One STT_FUNC or STT_GNU_IFUNC symbol with a size: [addr, addr + size) in ELF virtual addresses;
 * or a code label without a size (assembly entry points such as ld.so's _start, size 0), which
 * names the addresses after it that no function holds, up to 4 KiB. */
struct elfsyms_sym {
	uint64_t addr;
	uint64_t size;
	char *name; /* as in the file, maybe mangled; NULL: a function known by its start alone */
	char *demangled; /* NULL until a user fills it (malloc'ed); elfsyms__free frees it */
	uint8_t bind;	 /* STB_GLOBAL, STB_WEAK, STB_LOCAL: picks one name among aliases */
};

struct elfsyms;

/* Reads the ELF file open at @fd, known as @path under @rootfd (for the debuglink search).
 * When the file has no function symbols in .symtab, looks for a separate debug file:
 * @debug_dir/.build-id/xx/rest.debug, then the debuglink name in @path's directory, in its .debug/
 * subdirectory, and in @debug_dir/<directory of @path>/; @debug_dir is under @rootfd too (NULL:
 * ELFSYMS_DEFAULT_DEBUG_DIR). A debug file whose build-id differs from the file's is ignored.
 * Without a debug file, the static functions of the file's MiniDebugInfo (.gnu_debugdata, xz)
 * are read. DWARF (line tables, inlined calls) is taken from the file itself, else from the
 * debug file. .dynsym functions are always added. Does not close @fd. Returns 0 with *@out set, -ENOEXEC when
 * the file is not ELF, -ENOMEM, or -EIO when libelf fails. A file without any symbols still loads
 * (its type and segments give module offsets). */
int elfsyms__load_fd(int fd, int rootfd, const char *path, const char *debug_dir,
		     struct elfsyms **out);

/* elfsyms__load_fd, and with @dwarf false no DWARF is opened (elfsyms__dwarf() stays NULL):
 * sessions that show no source line spare its memory. */
int elfsyms__load_fd_dwarf(int fd, int rootfd, const char *path, const char *debug_dir, bool dwarf,
			   struct elfsyms **out);

/* elfsyms__load_fd on @path opened under @rootfd. */
int elfsyms__load(int rootfd, const char *path, const char *debug_dir, struct elfsyms **out);

void elfsyms__free(struct elfsyms *e); /* accepts NULL */

/* The symbol with addr <= @vaddr < addr + size, or NULL. Symbols are sorted by address; among
 * aliases at one address one is kept (global over weak over local, then the plainer name). */
struct elfsyms_sym *elfsyms__find(struct elfsyms *e, uint64_t vaddr);

/* ET_EXEC, ET_DYN (PIE executables and shared libraries), ... */
int elfsyms__type(const struct elfsyms *e);

/* The load bias of a mapping of this file that starts at @start with file offset @offset
 * (both from /proc/PID/maps): ELF virtual address = runtime address - bias. The PT_LOAD segment
 * holding @offset is chosen, an executable one first when @exec. Returns 0, or -ENOENT when no
 * segment holds @offset. */
int elfsyms__bias(const struct elfsyms *e, uint64_t start, uint64_t offset, bool exec,
		  uint64_t *bias);

/* True when a mapping at @start of file offset @offset agrees with @bias: some PT_LOAD segment
 * holds its first ELF address, at the same distance from the segment's start in memory as in
 * the file. Used to carry the bias of an executable mapping over to the other mappings of the
 * same loaded object, where the offset alone is ambiguous (a read-only segment and the RELRO
 * page of the data segment can both start at one file page). */
bool elfsyms__bias_fits(const struct elfsyms *e, uint64_t start, uint64_t offset, uint64_t bias);

/* The GNU build-id (NT_GNU_BUILD_ID) bytes, and its length (0: none). */
size_t elfsyms__build_id(const struct elfsyms *e, const uint8_t **id);

/* The .gnu_debuglink file name, or NULL. */
const char *elfsyms__debuglink(const struct elfsyms *e);

/* The path (under the root) of the separate debug file whose symbols were used, or NULL. */
const char *elfsyms__debug_path(const struct elfsyms *e);

/* The DWARF of the file (its own, else its debug file's), or NULL. */
struct dwarfinfo;
struct dwarfinfo *elfsyms__dwarf(const struct elfsyms *e);

/* True when a symbol table beyond .dynsym was found: the file's own .symtab, its debug file's,
 * or its MiniDebugInfo's. */
bool elfsyms__has_symtab(const struct elfsyms *e);

/* True when the file itself has DWARF (.debug_info), opened or not. */
bool elfsyms__has_own_dwarf(const struct elfsyms *e);

/*
 * A separate debug file found later (debuginfod), open at @fd and known as @path: its .symtab
 * and DWARF are added as elfsyms__load_fd would have, when its build-id matches and @e has no
 * debug file yet. Returns 1 when it gave names or DWARF, 0 when unusable, or -ENOMEM.
 */
int elfsyms__add_debug_fd(struct elfsyms *e, int fd, const char *path);

/*
 * Adds functions known from another source (ELF virtual addresses, sizes, bind; a NULL name
 * for a function known by its start alone, e.g. an .eh_frame FDE: it yields to any symbol at
 * the same address and is named "module+0xSTART", so its frames fold together). Returns 0 or
 * -ENOMEM.
 */
int elfsyms__add_funcs(struct elfsyms *e, const struct elfsyms_sym *funcs, size_t n);

#endif /* FAULTLINE_ELFSYMS_H */
