// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * -f: the file mappings of a target as its last thread exits, so that its stacks can be named
 * after it is gone (a program a build or a shell starts lives for milliseconds: it is gone
 * before userspace reads its /proc/PID/maps). Each file's path, found by walking its dentries
 * and mounts as d_path() does, is sent with the file's first record only.
 *
 * Since Linux 6.16 sched_process_exit fires before the task lets go of its mm (before, after
 * it: then task->mm is NULL here and nothing is recorded), and bpf_iter_task_vma needs 6.7:
 * its kfuncs are weak, and the loader loads this program only where the kernel has them. An
 * object of its own: kfuncs make libbpf read the kernel's whole BTF (5 MB, 10-20 ms), which
 * the main object, relocated against cached types, does not need; this one is loaded on a
 * thread beside it. It is attached before fl_exit, so that it runs first at an exit.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "pages.bpf.h"
#include "targets.bpf.h"

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __ksym __weak;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym __weak;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym __weak;

/* this object's drops (FL_DROP_EXIT_MAPS) */
struct fl_stats stats;

/* The records, read by userspace at each wake-up (100 ms): 1 MiB holds 16,000 (64 bytes each
 * with its header), the mappings of some 400 processes, paths aside. A page when unused. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} exit_maps SEC(".maps");

/* Files whose path was sent (by fl_file_id()): their next records carry none. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} paths_sent SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fl_map_path);
} path_scratch SEC(".maps");

#define VM_READ 0x1 /* include/linux/mm.h; the same bits as FL_PROT_* */
#define VM_WRITE 0x2
#define VM_EXEC 0x4
#define VM_SHARED 0x8

struct fl_path_walk {
	struct fl_map_path *out;
	struct dentry *d;
	struct mount *mnt;
	__u32 len;
	bool whole;
};

/*
 * One step up from @w->d: into the mount below when @w->d is its mount's root, else to its
 * parent directory after writing its name (leaf first, each NUL-terminated).
 */
static long fl_path_step(__u32 i, struct fl_path_walk *w)
{
	struct dentry *d = w->d, *up;
	struct mount *mnt = w->mnt, *below;
	long n;

	if (d == BPF_CORE_READ(mnt, mnt.mnt_root)) {
		below = BPF_CORE_READ(mnt, mnt_parent);
		if (below == mnt) {
			w->whole = true;
			return 1;
		}
		w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = below;
		return 0;
	}
	up = BPF_CORE_READ(d, d_parent);
	if (up == d) {
		w->whole = true;
		return 1;
	}
	if (w->len >= FL_PATH_MAX)
		return 1;
	n = bpf_probe_read_kernel_str(&w->out->path[w->len & (FL_PATH_MAX - 1)], FL_NAME_MAX,
				      BPF_CORE_READ(d, d_name.name));
	if (n <= 0)
		return 1;
	w->len += n;
	w->d = up;
	return 0;
}

/* The path of @f into @out->path; returns its length, and marks @out cut when not whole. */
static __always_inline __u32 fl_file_path(struct file *f, struct fl_map_path *out)
{
	struct vfsmount *vfsmnt = BPF_CORE_READ(f, f_path.mnt);
	struct fl_path_walk w = {
		.out = out,
		.d = BPF_CORE_READ(f, f_path.dentry),
		.mnt = (void *)vfsmnt - bpf_core_field_offset(struct mount, mnt),
	};

	bpf_loop(FL_PATH_DEPTH, fl_path_step, &w, 0);
	if (!w.whole)
		out->rec.prot |= FL_PROT_PATH_CUT;
	return w.len < FL_PATH_MAX + FL_NAME_MAX ? w.len : 0;
}

static __noinline void fl_record(struct vm_area_struct *vma, __u32 tgid, __u64 start)
{
	struct file *f = BPF_CORE_READ(vma, vm_file);
	struct fl_map_path *s;
	__u32 zero = 0, len = 0;
	__u8 yes = 1;
	__u64 id;

	if (!f)
		return;
	s = bpf_map_lookup_elem(&path_scratch, &zero);
	if (!s)
		return;
	s->rec.tgid = tgid;
	s->rec.start = start;
	s->rec.dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	s->rec.ino = BPF_CORE_READ(f, f_inode, i_ino);
	s->rec.vm_start = vma->vm_start;
	s->rec.vm_end = vma->vm_end;
	s->rec.pgoff = (__u64)vma->vm_pgoff << page_shift;
	s->rec.prot = vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC | VM_SHARED);
	id = fl_file_id(s->rec.dev, s->rec.ino);
	if (!bpf_map_lookup_elem(&paths_sent, &id))
		len = fl_file_path(f, s);
	s->rec.path_len = len;
	if (len > sizeof(s->path))
		return;
	if (bpf_ringbuf_output(&exit_maps, s, sizeof(s->rec) + len, 0)) {
		fl_drop(FL_DROP_EXIT_MAPS);
		return;
	}
	if (len)
		bpf_map_update_elem(&paths_sent, &id, &yes, BPF_ANY);
}

/* TP_PROTO(struct task_struct *p, bool group_dead): runs in the exiting task. */
SEC("raw_tp/sched_process_exit")
int fl_exit_maps(__u64 *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	__u32 tgid = task->tgid;
	struct fl_proc *p;
	__u64 start;

	/* the last thread only (see fl_exit) */
	if (BPF_CORE_READ(task, signal, live.counter))
		return 0;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	/* before Linux 6.16 the task let go of its mm already: the records are lost, and said */
	if (!BPF_CORE_READ(task, mm)) {
		fl_drop(FL_DROP_EXIT_MAPS);
		return 0;
	}
	start = p->start;
	/* the lock is only tried: a busy one (another reader of the maps) loses the records */
	if (bpf_iter_task_vma_new(&it, task, 0))
		fl_drop(FL_DROP_EXIT_MAPS);
	else
		while ((vma = bpf_iter_task_vma_next(&it)))
			fl_record(vma, tgid, start);
	bpf_iter_task_vma_destroy(&it);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
