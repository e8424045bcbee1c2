/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * What a memory syscall did, from its arguments and its return value (--vm): used by the BPF
 * programs and compiled by the unit tests too. Static inline functions only, no BPF helpers.
 */
#ifndef FAULTLINE_VM_MATH_H
#define FAULTLINE_VM_MATH_H

#include "faultline.h"

/* include/uapi/linux/mman.h and asm-generic/mman-common.h */
#define FL_MAP_TYPE 0x0f
#define FL_MAP_SHARED 0x01
#define FL_MAP_SHARED_VALIDATE 0x03
#define FL_MAP_ANONYMOUS 0x20
#define FL_MADV_DONTNEED 4
#define FL_MADV_FREE 8
#define FL_MADV_REMOVE 9
#define FL_MADV_COLD 20
#define FL_MADV_PAGEOUT 21

#define FL_MAX_ERRNO 4095

/* @len rounded up to whole pages of @page bytes (a power of two). */
static inline __u64 fl_page_align(__u64 len, __u64 page)
{
	return (len + page - 1) & ~(page - 1);
}

/* The kind of an mmap with @flags. */
static inline __u32 fl_mmap_call(__u64 flags)
{
	__u64 type = flags & FL_MAP_TYPE;

	if (!(flags & FL_MAP_ANONYMOUS))
		return FL_VM_MMAP_FILE;
	return type == FL_MAP_SHARED || type == FL_MAP_SHARED_VALIDATE ? FL_VM_MMAP_SHARED :
									 FL_VM_MMAP_ANON;
}

#define FL_MAP_HUGETLB_FLAG 0x40000

/* The class of the mapping an mmap with @flags makes (its file is not known here). */
static inline __u32 fl_mmap_class(__u64 flags)
{
	if (flags & FL_MAP_HUGETLB_FLAG)
		return FL_MAP_HUGETLB;
	switch (fl_mmap_call(flags)) {
	case FL_VM_MMAP_SHARED:
		return FL_MAP_SHMEM;
	case FL_VM_MMAP_FILE:
		return FL_MAP_FILE;
	default:
		return FL_MAP_ANON;
	}
}

/* The kind of brk(@want) when the break is @old; 0 for a query (brk(0), or no change). */
static inline __u32 fl_brk_call(__u64 want, __u64 old)
{
	if (!want || want == old)
		return 0;
	return want > old ? FL_VM_BRK_GROW : FL_VM_BRK_SHRINK;
}

static inline __u32 fl_madvise_call(__u64 advice)
{
	switch (advice) {
	case FL_MADV_DONTNEED:
		return FL_VM_MADV_DONTNEED;
	case FL_MADV_FREE:
		return FL_VM_MADV_FREE;
	case FL_MADV_REMOVE:
		return FL_VM_MADV_REMOVE;
	case FL_MADV_PAGEOUT:
		return FL_VM_MADV_PAGEOUT;
	case FL_MADV_COLD:
		return FL_VM_MADV_COLD;
	default:
		return FL_VM_MADV_OTHER;
	}
}

/* What one call did to the address space. */
struct fl_vm_bytes {
	__u64 reserved;
	__u64 unmapped;
	__u64 advised;
	int failed;
};

/*
 * The bytes the call noted in @v did, given its return value @ret, with pages of @page bytes.
 * brk returns the new break, or the old one when it fails; the others return -errno on
 * failure.
 */
static inline struct fl_vm_bytes fl_vm_result(const struct fl_vm_task *v, long ret, __u64 page)
{
	struct fl_vm_bytes b = {};
	__u64 old, want;

	if (v->call == FL_VM_BRK_GROW || v->call == FL_VM_BRK_SHRINK) {
		b.failed = (__u64)ret != v->arg;
		old = fl_page_align(v->old_brk, page);
		want = fl_page_align(v->arg, page);
		if (b.failed)
			return b;
		if (want > old)
			b.reserved = want - old;
		else
			b.unmapped = old - want;
		return b;
	}
	b.failed = ret < 0 && ret >= -FL_MAX_ERRNO;
	if (b.failed)
		return b;
	switch (v->call) {
	case FL_VM_MMAP_ANON:
	case FL_VM_MMAP_SHARED:
	case FL_VM_MMAP_FILE:
		b.reserved = fl_page_align(v->len, page);
		break;
	case FL_VM_MUNMAP:
		b.unmapped = fl_page_align(v->len, page);
		break;
	case FL_VM_MREMAP:
		old = fl_page_align(v->len, page);
		want = fl_page_align(v->arg, page);
		if (want > old)
			b.reserved = want - old;
		else
			b.unmapped = old - want;
		break;
	default:
		b.advised = fl_page_align(v->len, page);
		break;
	}
	return b;
}

#endif /* FAULTLINE_VM_MATH_H */
