// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "formats/jsoninventory.h"
#include "base/smaps.h"

static const char *const side_keys[INV_SIDES] = { "at_attach", "at_end" };

/* What a read saw as a whole: the rows' sum against VmRSS read with them. */
static void read_figures(struct json *j, const struct inventory *inv, enum inv_side side)
{
	const struct inv_read *r = &inv->reads[side];
	struct inv_figures sum;

	if (!r->taken) {
		json__null(j, side_keys[side]);
		return;
	}
	inventory__totals(inv, side, &sum);
	json__object_begin(j, side_keys[side]);
	json__u64(j, "mappings", r->nmappings);
	json__u64(j, "threads", r->nthreads);
	json__u64(j, "rss", sum.rss);
	json__u64(j, "anon", sum.anon);
	json__u64(j, "swap", sum.swap);
	json__u64(j, "pss", sum.pss);
	json__u64(j, "anon_huge", sum.anon_huge);
	json__u64(j, "hugetlb", sum.hugetlb);
	if (r->have_vm_rss) {
		json__u64(j, "vm_rss", r->vm_rss);
		json__i64(j, "gap", inventory__gap(inv, side));
	} else {
		json__null(j, "vm_rss");
		json__null(j, "gap");
	}
	json__u64(j, "cost_ns", r->cost_ns);
	json__object_end(j);
}

static void figures(struct json *j, const struct inv_mapping *m, enum inv_side side)
{
	const struct inv_figures *f = &m->at[side];

	if (!m->seen[side]) {
		json__null(j, side_keys[side]);
		return;
	}
	json__object_begin(j, side_keys[side]);
	json__u64(j, "start", f->start);
	json__u64(j, "end", f->end);
	json__u64(j, "rss", f->rss);
	json__u64(j, "anon", f->anon);
	json__u64(j, "swap", f->swap);
	json__u64(j, "pss", f->pss);
	json__u64(j, "anon_huge", f->anon_huge);
	json__u64(j, "hugetlb", f->hugetlb);
	json__object_end(j);
}

static void mapping(struct json *j, const struct inventory *inv, const struct inv_mapping *m)
{
	char name[512], perms[5] = {
		m->perms & SMAPS_READ ? 'r' : '-',
		m->perms & SMAPS_WRITE ? 'w' : '-',
		m->perms & SMAPS_EXEC ? 'x' : '-',
		m->perms & SMAPS_SHARED ? 's' : 'p',
		'\0',
	};

	json__object_begin(j, NULL);
	json__u64(j, "start", m->start);
	json__u64(j, "end", m->end);
	json__str(j, "perms", perms);
	json__str(j, "kind", mapkind__name(m->kind.kind));
	json__str(j, "name", inventory__name(m, name, sizeof(name)));
	json__str(j, "smaps_name", m->name);
	if (m->kind.tid) {
		json__object_begin(j, "thread");
		json__i64(j, "tid", m->kind.tid);
		json__strn(j, "name", m->kind.comm, sizeof(m->kind.comm));
		json__object_end(j);
	}
	json__str(j, "owner", inv_owner__name(m->owner));
	if (m->mapped_by && inventory__caller(inv, m->mapped_by))
		json__str(j, "mapped_by_caller", inventory__caller(inv, m->mapped_by));
	if (m->mapped_by)
		json__u64(j, "mapped_by", m->mapped_by);
	else
		json__null(j, "mapped_by");
	figures(j, m, INV_AT_ATTACH);
	figures(j, m, INV_AT_END);
	json__object_end(j);
}

void jsoninventory__write(struct json *j, const char *key, const struct inventory *inv)
{
	if (!inv) {
		json__null(j, key);
		return;
	}
	json__object_begin(j, key);
	json__object_begin(j, "reads");
	read_figures(j, inv, INV_AT_ATTACH);
	read_figures(j, inv, INV_AT_END);
	json__object_end(j);
	json__array_begin(j, "mappings");
	for (size_t i = 0; i < inv->n && !j->err; i++)
		mapping(j, inv, &inv->v[i]);
	json__array_end(j);
	json__object_end(j);
}
