/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The class of the mapping an address lies in (--by mapping): heap, stack, anonymous, file,
 * shmem, hugetlb. One bpf_find_vma() per classified event, so classification is opt-in.
 */
#ifndef FAULTLINE_MAPPING_BPF_H
#define FAULTLINE_MAPPING_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "pages.bpf.h"

/* --by mapping: tag every change with the class of the mapping it hit */
const volatile bool map_classes __weak = false;

#define FL_VM_HUGETLB 0x00400000  /* include/linux/mm.h */
#define FL_TMPFS_MAGIC 0x01021994 /* include/uapi/linux/magic.h: tmpfs, memfd, SysV shm */
#define FL_EBUSY 16

/* One lookup: the thread's stack pointer in, the mapping's range and class out. */
struct fl_map_probe {
	__u64 mm;    /* the mm the answer is about: an exec replaces it, the sequence restarts */
	__u64 sp;    /* the faulting thread's user stack pointer */
	__u64 start; /* out: the mapping's range */
	__u64 end;
	__u32 class; /* out: enum fl_map_class */
	__u32 seq;   /* the mm's mmap_lock sequence when the lookup began */
	__u64 file;  /* out: fl_file_id() for FL_MAP_FILE */
};

/*
 * Each thread's last lookup. bpf_find_vma() costs about 5 us inside the page fault handler
 * (interrupts are off there, so it releases mmap_lock through an irq_work), but a thread
 * faults through one mapping many times in a row: the last answer holds while the mm's
 * mmap_lock sequence, which every change of the mappings bumps, stays the same.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fl_map_probe);
} map_cache SEC(".maps") __weak;

/* mm_struct.mm_lock_seq: a seqcount since Linux 6.13 (as in vmlinux.h), an int from 6.4
 * (per-VMA locks). Each flavor is one more scan of the kernel's BTF at load: one only. */
struct mm_struct___int {
	int mm_lock_seq;
} __attribute__((preserve_access_index));

/* The mmap_lock sequence of @mm; false when this kernel has none (before 6.4), or a writer
 * holds it. */
static __always_inline bool fl_mm_seq(struct mm_struct *mm, __u32 *seq)
{
	if (bpf_core_field_exists(struct mm_struct, mm_lock_seq)) {
		*seq = BPF_CORE_READ(mm, mm_lock_seq.sequence);
		return !(*seq & 1);
	}
	if (bpf_core_field_exists(struct mm_struct___int, mm_lock_seq)) {
		*seq = (__u32)BPF_CORE_READ((struct mm_struct___int *)mm, mm_lock_seq);
		return true;
	}
	return false;
}

static long fl_vma_class(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	struct fl_map_probe *m = ctx;
	struct mm_struct *mm = BPF_CORE_READ(vma, vm_mm);
	struct file *f = BPF_CORE_READ(vma, vm_file);
	__u64 start = vma->vm_start, end = vma->vm_end, stack;

	m->start = start;
	m->end = end;
	if (vma->vm_flags & FL_VM_HUGETLB) {
		m->class = FL_MAP_HUGETLB;
	} else if (f) {
		struct inode *inode = BPF_CORE_READ(f, f_inode);
		struct super_block *sb = BPF_CORE_READ(inode, i_sb);

		if (BPF_CORE_READ(sb, s_magic) == FL_TMPFS_MAGIC) {
			m->class = FL_MAP_SHMEM;
		} else {
			m->class = FL_MAP_FILE;
			m->file = fl_file_id(BPF_CORE_READ(sb, s_dev), BPF_CORE_READ(inode, i_ino));
		}
	} else {
		stack = BPF_CORE_READ(mm, start_stack);
		if (start <= stack && stack < end)
			m->class = FL_MAP_STACK;
		else if (start < BPF_CORE_READ(mm, brk) && end > BPF_CORE_READ(mm, start_brk))
			m->class = FL_MAP_HEAP;
		else if (start <= m->sp && m->sp < end)
			m->class = FL_MAP_THREAD_STACK;
		else
			m->class = FL_MAP_ANON;
	}
	return 0;
}

/* Sets the mapping fields of @key from the mapping at @addr of the current process. */
static __noinline __attribute__((unused)) void fl_classify(struct fl_key *key, __u64 addr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	struct fl_map_probe *c, m = { .mm = (__u64)mm, .sp = regs->sp };
	bool cacheable = fl_mm_seq(mm, &m.seq), covered;
	long err;

	c = bpf_task_storage_get(&map_cache, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	covered = c && c->mm == m.mm && c->start <= addr && addr < c->end;
	if (covered && cacheable && c->seq == m.seq)
		goto cached;
	err = bpf_find_vma(task, addr, fl_vma_class, &m, 0);
	/* -EBUSY: the previous lookup's irq_work has not released mmap_lock yet (every other
	 * fault on kernels without the sequence): the last answer for this range is the best */
	if (err == -FL_EBUSY && covered)
		goto cached;
	if (err) {
		/* no mapping there yet: the main stack grows down to it (the fault is between the
		 * stack pointer and the top); else unknown */
		__u64 top = BPF_CORE_READ(task, mm, start_stack);

		m.class = m.sp <= addr && addr < top ? FL_MAP_STACK : FL_MAP_UNKNOWN;
		m.start = m.end = 0;
	}
	key->map_class = m.class;
	key->map_file = m.file;
	if (c && m.class != FL_MAP_UNKNOWN)
		*c = m;
	return;
cached:
	key->map_class = c->class;
	key->map_file = c->file;
	/* whose stack an anonymous mapping is depends on the faulting thread's sp */
	if (c->class == FL_MAP_ANON || c->class == FL_MAP_THREAD_STACK)
		key->map_class = c->start <= m.sp && m.sp < c->end ? FL_MAP_THREAD_STACK :
								     FL_MAP_ANON;
}

#endif /* FAULTLINE_MAPPING_BPF_H */
