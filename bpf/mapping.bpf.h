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
#include "legacy.bpf.h"
#include "pages.bpf.h"
#include "regs_x86.bpf.h"
#include "threads.bpf.h"

/* --by mapping: tag every change with the class of the mapping it hit */
const volatile bool map_classes __weak = false;

#define FL_VM_HUGETLB 0x00400000  /* include/linux/mm.h */
#define FL_TMPFS_MAGIC 0x01021994 /* include/uapi/linux/magic.h: tmpfs, memfd, SysV shm */
#define FL_EBUSY 16

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

static __attribute__((unused)) long fl_vma_class(struct task_struct *task,
						 struct vm_area_struct *vma, void *ctx)
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
#ifndef FL_LEGACY /* no bpf_find_vma(): the loader refuses --by mapping */
	struct task_struct *task = fl_current_task();
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	struct fl_map_probe *c, m = { .mm = (__u64)mm };
	bool cacheable = fl_mm_seq(mm, &m.seq), covered;
	struct fl_uregs r;
	long err;

	fl_user_regs(task, &r);
	m.sp = r.sp;
	c = fl_thread_get(&map_cache, task, true);
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
#endif
}

#endif /* FAULTLINE_MAPPING_BPF_H */
