/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The walk learns the code mappings a process's list lacks: a program just exec'd, a library
 * mapped since the loader last read the process's maps. A pc the walk finds in no mapping of
 * the list is looked up (bpf_find_vma()) where the walk stands; an executable file mapping
 * whose object has a table loaded (unwind_objects, by the file's identity) joins the list, and
 * the walk goes on by its rows, from the process's first fault on, without the loader building
 * a list first. Any other mapping found joins without rows, so it is looked up once (an object
 * without a table yet: the loader is woken to compile it). Only a pc the walk reached by rows
 * (or the leaf) is learned: one a frame-pointer step read may be none (unwind.bpf.h
 * fl_tabled_map).
 */
#ifndef FAULTLINE_UNWIND_LEARN_BPF_H
#define FAULTLINE_UNWIND_LEARN_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "legacy.bpf.h"
#include "maps.bpf.h"
#include "pages.bpf.h"
#include "unwind_procs.bpf.h"

#define FL_LEARN_VM_EXEC 0x00000004 /* include/linux/mm.h */

/* The objects with a table loaded, by fl_file_id() of their file: the loader adds each. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096); /* as unwind_tables */
	__type(key, __u64);
	__type(value, struct fl_unwind_object);
} unwind_objects SEC(".maps") __weak;

/* A blank list, to create a process's from (16 KiB: no BPF stack holds it). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fl_unwind_proc);
} unwind_blank SEC(".maps") __weak;

extern __u32 fl_learn_gen; /* the BPF side's list generations, counted up (faults.bpf.c) */

struct fl_learned {
	struct fl_unwind_map m; /* the mapping found; rows 0 when not code with a table */
	bool unknown;		/* code of a file whose object has no table yet */
};

static long fl_vma_learn(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	struct fl_learned *l = ctx;
	struct file *f = BPF_CORE_READ(vma, vm_file);
	struct fl_unwind_object *o;
	struct inode *inode;
	__u64 id;

	l->m.start = vma->vm_start;
	l->m.end = vma->vm_end;
	if (!f || !(vma->vm_flags & FL_LEARN_VM_EXEC))
		return 0;
	inode = BPF_CORE_READ(f, f_inode);
	id = fl_file_id(BPF_CORE_READ(inode, i_sb, s_dev), BPF_CORE_READ(inode, i_ino));
	o = bpf_map_lookup_elem(&unwind_objects, &id);
	if (!o) {
		l->unknown = true;
		return 0;
	}
	l->m.table = o->table;
	l->m.rows = o->rows;
	l->m.bias = vma->vm_start - (vma->vm_pgoff << page_shift) + o->off_minus_vaddr;
	return 0;
}

struct fl_insert {
	struct fl_unwind_proc *p; /* p->kept: entries kept so far */
	struct fl_unwind_map *m;
	__u32 at; /* where it went */
};

/* Keeps entry @i unless it overlaps the new mapping (an old one the range now holds). */
static long fl_compact_step(__u32 i, struct fl_insert *c)
{
	struct fl_unwind_proc *p = c->p;
	struct fl_unwind_map *e;
	__u32 kept = p->kept;

	if (i >= p->n || i >= FL_UNWIND_MAPS)
		return 1;
	e = &p->maps[i & (FL_UNWIND_MAPS - 1)];
	if (e->start < c->m->end && c->m->start < e->end)
		return 0;
	if (kept != i)
		p->maps[kept & (FL_UNWIND_MAPS - 1)] = *e;
	p->kept = kept + 1;
	return 0;
}

/* Moves entries up by one from the end until the new mapping's place, and puts it there. */
static long fl_shift_step(__u32 i, struct fl_insert *c)
{
	struct fl_unwind_proc *p = c->p;
	__u32 at = p->kept - i; /* the slot to fill: kept, kept - 1, ... */
	struct fl_unwind_map *prev;

	if (i > p->kept || at >= FL_UNWIND_MAPS)
		return 1;
	prev = at ? &p->maps[(at - 1) & (FL_UNWIND_MAPS - 1)] : NULL;
	if (prev && prev->start > c->m->start) {
		p->maps[at & (FL_UNWIND_MAPS - 1)] = *prev;
		return 0;
	}
	p->maps[at & (FL_UNWIND_MAPS - 1)] = *c->m;
	c->at = at;
	return 1;
}

/* The current process's list of mappings, made empty when it has none (NULL: the map full). */
static __always_inline struct fl_unwind_proc *fl_unwind_list(__u32 tgid)
{
	struct fl_unwind_proc *p = bpf_map_lookup_elem(&unwind_procs, &tgid), *blank;
	__u32 zero = 0;

	if (p)
		return p;
	blank = bpf_map_lookup_elem(&unwind_blank, &zero);
	/* BPF_NOEXIST: another CPU's walk may have made it first */
	if (blank)
		bpf_map_update_elem(&unwind_procs, &tgid, blank, BPF_NOEXIST);
	return bpf_map_lookup_elem(&unwind_procs, &tgid);
}

/*
 * Learns the mapping that holds @pc into the current process's list (see above). Returns its
 * index in the list plus one when it joined with rows, for the walk that met @pc to go on by
 * them; else 0. Global: the verifier checks it once, not at each step of a walk.
 */
__noinline __weak int fl_learn(__u64 pc)
{
#ifdef FL_LEGACY
	/* no bpf_find_vma(): the loader's lists alone (fl_learn_gen read, so that the globals lie
	 * as the main object has them: scripts/skel-same.sh) */
	return fl_learn_gen == ~0u;
#endif
	struct task_struct *task = fl_current_task();
	struct fl_learned l = {};
	struct fl_insert c = {};
	__u32 tgid = FL_TASK(task, tgid);
	struct fl_unwind_proc *p = fl_unwind_list(tgid);
	int found = 0;

	if (!p)
		return 0;
	/* one learner a process at a time; another CPU's walk tries again later */
	if (__sync_val_compare_and_swap(&p->learning, 0, 1))
		return 0;
	/* -EBUSY in a fault with interrupts off (mmap_lock given back by an irq_work): later */
	if (bpf_find_vma(task, pc, fl_vma_learn, &l, 0) || p->n >= FL_UNWIND_MAPS)
		goto out;
	c.p = p;
	c.m = &l.m;
	p->kept = 0;
	fl_loop(FL_UNWIND_MAPS, fl_compact_step, &c);
	fl_loop(FL_UNWIND_MAPS, fl_shift_step, &c);
	p->n = p->kept + 1;
	p->gen = FL_UNWIND_GEN_BPF | __sync_fetch_and_add(&fl_learn_gen, 1);
	fl_unwind_changed();
	if (l.unknown)
		fl_wake_loader(tgid);
	found = l.m.rows ? (int)c.at + 1 : 0;
out:
	__sync_lock_test_and_set(&p->learning, 0);
	return found;
}

#endif /* FAULTLINE_UNWIND_LEARN_BPF_H */
