// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * libFuzzer target: the /proc/PID/maps parser (procmaps__parse on the input as a file, and
 * procmaps__parse_line on its first line), then lookups in what it read. Properties beyond the
 * sanitizers: entries come out sorted by start with start <= end, and when no two overlap (as
 * in a real maps file) procmaps__find finds each non-empty one by its start.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct procmaps *m)
{
	bool disjoint = true;

	for (size_t i = 1; i < m->nr; i++)
		disjoint &= m->entries[i - 1].end <= m->entries[i].start;
	for (size_t i = 0; i < m->nr; i++) {
		const struct procmap_entry *e = &m->entries[i], *hit;

		if (e->start > e->end || !e->path || (i && m->entries[i - 1].start > e->start))
			abort();
		(void)procmap_entry__is_file(e);
		(void)procmap_entry__basename(e);
		hit = procmaps__find(m, e->start);
		if (disjoint && e->start < e->end && hit != e)
			abort();
		(void)procmaps__find(m, e->end);
		(void)procmaps__find(m, e->start - 1);
	}
	(void)procmaps__find(m, 0);
	(void)procmaps__find(m, UINT64_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procmap_entry e;
	struct procmaps m;
	char *line;
	FILE *f;

	if (!size) /* fmemopen refuses a size of 0 */
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	if (!procmaps__parse(f, &m)) {
		check(&m);
		procmaps__free(&m);
	}
	fclose(f);
	line = strndup((const char *)data, size); /* up to the first NUL */
	if (!line)
		abort();
	if (!procmaps__parse_line(line, &e))
		free(e.path);
	free(line);
	return 0;
}
