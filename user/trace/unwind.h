/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The unwind tables of the targets' code, loaded into the BPF maps the stack walk reads
 * (bpf/unwind.bpf.h): one table per object file, compiled once (symbols/cfi.c) and shared by
 * every process that maps it, and for each target its executable mappings with their tables.
 * A memory bound keeps the tables from growing without end; objects past it are walked by
 * frame pointers, and counted.
 */
#ifndef FAULTLINE_UNWIND_H
#define FAULTLINE_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "model/stackshare.h"
#include "symbols/symbolizer.h"

struct unwinder;

/* @tables_fd, @procs_fd, @objects_fd: the unwind_tables, unwind_procs and unwind_objects
 * maps (-1: no objects map); @epoch: the BPF side's
 * unwind_epoch, bumped after each change of unwind_procs (NULL: none); @max_bytes: the bound on
 * the rows loaded (0: no tables at all). NULL when out of memory. */
struct unwinder *unwinder__new(int tables_fd, int procs_fd, int objects_fd, uint32_t *epoch,
			       uint64_t max_bytes);
void unwinder__free(struct unwinder *u); /* accepts NULL */

/* Loads the tables of the code @sym maps for process @pid (compiling those not loaded yet)
 * and its list of mappings. Returns 0 or -errno (the walk then uses frame pointers). */
int unwinder__sync(struct unwinder *u, pid_t pid, const struct symbolizer *sym);

/*
 * Loads the tables of the code @sym maps that have none yet, for the BPF side's walk to
 * learn (bpf/unwind_learn.bpf.h), with no list of mappings: @sym is a process's that is gone
 * (named from its mappings at exit), and the next to run the same files, a storm's next
 * program, is walked by their rows from its first fault. Returns 0 or -ENOMEM.
 */
int unwinder__publish(struct unwinder *u, const struct symbolizer *sym);

/* @pid is no target any more: its list goes (the tables stay for others). */
void unwinder__forget(struct unwinder *u, pid_t pid);

void unwinder__stats(const struct unwinder *u, struct fl_unwind_figures *out);

/* The object whose table is @table (fl_frame_table() of a frame the walk wrote), or NULL,
 * and its file's name into *@name (may be NULL): tables are never dropped during a session, so
 * a frame names its object for good. */
const struct elfsyms *unwinder__object(const struct unwinder *u, uint32_t table, const char **name);

/* The table of object @elf into *@table: 0, or -ENOENT when it has none (yet). */
int unwinder__table_of(const struct unwinder *u, const struct elfsyms *elf, uint32_t *table);

/*
 * When a process maps more code than the walk's list holds (@n > @max mappings of @code,
 * sorted by start): keeps in @code[0, @max), still sorted by start, those its stacks most
 * likely go through: the executable (the lowest mapping), the dynamic loader, the C library
 * and the vdso first, then the language and allocator runtimes, then the largest. The files of
 * those left out go, comma-separated, into @names (@len bytes, "..." when they do not fit).
 * Returns how many are kept: min(@n, @max).
 */
size_t unwind__pick(struct symbolizer_code *code, size_t n, size_t max, char *names, size_t len);

#endif /* FAULTLINE_UNWIND_H */
