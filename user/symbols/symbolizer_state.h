/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The symbolizer's state, shared by its two halves: the per-process mapping table and its
 * refresh (symbolizer.c) and the names of addresses in it (symbolizer_names.c). Private to
 * user/symbols/.
 */
#ifndef FAULTLINE_SYMBOLIZER_STATE_H
#define FAULTLINE_SYMBOLIZER_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include "symbols/elfcache.h"
#include "symbols/mapclass.h"
#include "symbols/procmaps.h"

struct sym_map {
	struct elfsyms *elf; /* borrowed from the cache */
	uint64_t bias;
	bool have_bias;
};

struct symbolizer {
	struct elf_cache *cache;
	int procfd; /* /proc/PID, -1 for symbolizer__new_from; stale (ESRCH) once PID is gone */
	int rootfd; /* /proc/PID/root or the root_dir */
	struct procmaps maps;
	struct sym_map *mods;	 /* one per maps entry */
	struct file_names files; /* every file any snapshot mapped */
	uint64_t last_refresh_ns;
	unsigned long nr_refreshes;
	uint64_t layout; /* symbolizer__layout() of maps */
};

/* The entry covering @addr, re-reading the maps once per burst of misses. */
const struct procmap_entry *symbolizer_find_entry(struct symbolizer *s, uint64_t addr);

#endif /* FAULTLINE_SYMBOLIZER_STATE_H */
