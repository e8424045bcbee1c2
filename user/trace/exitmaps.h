/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * -f: the file mappings the BPF side records of each target as its last thread exits
 * (bpf/exitmaps.bpf.c), kept by process until its stacks are named from them: a process that
 * lived for milliseconds is gone before its /proc/PID/maps can be read. The records lost (the
 * ring full, a process's mm busy) are the drop FL_DROP_EXIT_MAPS.
 */
#ifndef FAULTLINE_EXITMAPS_H
#define FAULTLINE_EXITMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct exit_maps;

/* Reads the records of ring @ring_fd (tracer__exit_maps_fd()). Returns 0, or -errno with *@out
 * NULL. */
int exit_maps__open(struct exit_maps **out, int ring_fd);
void exit_maps__free(struct exit_maps *m); /* accepts NULL */

/* Takes in the records the ring holds. Returns 0 or -ENOMEM (what is left stays there). */
int exit_maps__poll(struct exit_maps *m);

/*
 * Writes the mappings recorded of process @pid that started at @start (fl_proc.start) to @f,
 * as lines of /proc/PID/maps, and forgets them. Returns how many (0: none recorded).
 */
size_t exit_maps__take(struct exit_maps *m, pid_t pid, uint64_t start, FILE *f);

/*
 * The path a record gives, from the leaf-first NUL-terminated components @comps of @len bytes,
 * into @buf: "/usr/lib/libc.so.6". Returns @buf, "" when @len is 0 or the path does not fit.
 */
const char *exit_maps__path(const char *comps, size_t len, char *buf, size_t size);

#endif /* FAULTLINE_EXITMAPS_H */
