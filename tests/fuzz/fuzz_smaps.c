// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * libFuzzer target: the /proc/PID/smaps parser (smaps__parse on the input as a file), then
 * what reads its result: the classifier (with a thread whose stack pointer is in the first
 * mapping) and the inventory, the input taken as both reads, named mapping by mapping.
 * Properties beyond the sanitizers: every mapping has a name and start <= end, the
 * inventory's rows sum to what smaps listed, and each mapping pairs with itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "model/inventory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct smaps *m)
{
	struct thread_sp t = { .tid = 1, .comm = "t" };
	struct map_kind_hints h = { .threads = &t, .nthreads = 1 };
	struct inv_read r = { .have_vm_rss = true };
	struct inventory inv = {};
	struct map_kind_of *k = calloc(m->n ? m->n : 1, sizeof(*k));
	struct inv_figures sum;
	uint64_t rss = 0;
	char name[256];

	if (!k)
		abort();
	for (size_t i = 0; i < m->n; i++) {
		if (!m->v[i].name || m->v[i].start > m->v[i].end)
			abort();
		rss += m->v[i].rss;
	}
	t.sp = m->n ? m->v[0].start : 0;
	mapkind__classify(m, &h, k);
	for (size_t i = 0; i < m->n; i++)
		if ((unsigned)k[i].kind >= MAPKIND__COUNT)
			abort();
	if (!inventory__take(&inv, INV_AT_ATTACH, m, k, &r) &&
	    !inventory__take(&inv, INV_AT_END, m, k, &r)) {
		inventory__totals(&inv, INV_AT_END, &sum);
		if (sum.rss != rss)
			abort();
		for (size_t i = 0; i < inv.n; i++)
			(void)inventory__name(&inv.v[i], name, sizeof(name));
		(void)inventory__note_origin(&inv, 0, UINT64_MAX, INV_OWNER_APPLICATION, 1);
	}
	inventory__free(&inv);
	free(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smaps m;
	FILE *f;

	if (!size) /* fmemopen refuses a size of 0 */
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	if (!smaps__parse(f, &m)) {
		check(&m);
		smaps__free(&m);
	}
	fclose(f);
	return 0;
}
