/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* What a memory syscall did (bpf/vm_math.h, --vm), and how its row is named. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "model/calls.h"
#include "vm_math.h"

#define MIB (1024ULL * 1024ULL)

/* The flags, from the C library's own headers, map to the kinds. */
Test(vm_math, mmap_kinds)
{
	cr_expect_eq(fl_mmap_call(MAP_PRIVATE | MAP_ANONYMOUS), FL_VM_MMAP_ANON);
	cr_expect_eq(fl_mmap_call(MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_HUGETLB),
		     FL_VM_MMAP_ANON);
	cr_expect_eq(fl_mmap_call(MAP_SHARED | MAP_ANONYMOUS), FL_VM_MMAP_SHARED);
	cr_expect_eq(fl_mmap_call(MAP_SHARED_VALIDATE | MAP_ANONYMOUS), FL_VM_MMAP_SHARED);
	cr_expect_eq(fl_mmap_call(MAP_PRIVATE), FL_VM_MMAP_FILE);
	cr_expect_eq(fl_mmap_call(MAP_SHARED), FL_VM_MMAP_FILE);
}

Test(vm_math, madvise_kinds)
{
	cr_expect_eq(fl_madvise_call(MADV_DONTNEED), FL_VM_MADV_DONTNEED);
	cr_expect_eq(fl_madvise_call(MADV_FREE), FL_VM_MADV_FREE);
	cr_expect_eq(fl_madvise_call(MADV_REMOVE), FL_VM_MADV_REMOVE);
	cr_expect_eq(fl_madvise_call(MADV_PAGEOUT), FL_VM_MADV_PAGEOUT);
	cr_expect_eq(fl_madvise_call(MADV_COLD), FL_VM_MADV_COLD);
	cr_expect_eq(fl_madvise_call(MADV_NOHUGEPAGE), FL_VM_MADV_OTHER);
	cr_expect_eq(fl_madvise_call(MADV_WILLNEED), FL_VM_MADV_OTHER);
}

/* brk(0) and a brk to the current break change nothing: they are not counted as calls. */
Test(vm_math, brk_kinds)
{
	cr_expect_eq(fl_brk_call(0, 0x600000), 0);
	cr_expect_eq(fl_brk_call(0x600000, 0x600000), 0);
	cr_expect_eq(fl_brk_call(0x800000, 0x600000), FL_VM_BRK_GROW);
	cr_expect_eq(fl_brk_call(0x500000, 0x600000), FL_VM_BRK_SHRINK);
}

static struct fl_vm_bytes result(__u32 call, __u64 len, __u64 arg, __u64 old_brk, long ret)
{
	struct fl_vm_task v = { .call = call, .len = len, .arg = arg, .old_brk = old_brk };

	return fl_vm_result(&v, ret, 4096);
}

/* Lengths count whole pages, as the kernel maps them. */
Test(vm_math, mmap_munmap_madvise_bytes)
{
	struct fl_vm_bytes b = result(FL_VM_MMAP_ANON, 4 * MIB + 1, 0, 0, 0x7f0000000000);

	cr_expect_eq(b.reserved, 4 * MIB + 4096);
	cr_expect_eq(b.unmapped + b.advised, 0);
	cr_expect_not(b.failed);
	b = result(FL_VM_MUNMAP, 8 * MIB, 0, 0, 0);
	cr_expect_eq(b.unmapped, 8 * MIB);
	cr_expect_eq(b.reserved, 0);
	b = result(FL_VM_MADV_DONTNEED, 100, 0, 0, 0);
	cr_expect_eq(b.advised, 4096);
}

/* A failed call counts as a call and moves no byte; an address above 2^63 is no error. */
/* arm64 kernels with 16 KiB or 64 KiB pages round to theirs: the page size is never assumed. */
Test(vm_math, larger_pages)
{
	struct fl_vm_task v = { .call = FL_VM_MMAP_ANON, .len = 4 * MIB + 1 };

	cr_expect_eq(fl_vm_result(&v, 0x7f0000000000, 16384).reserved, 4 * MIB + 16384);
	cr_expect_eq(fl_vm_result(&v, 0x7f0000000000, 65536).reserved, 4 * MIB + 65536);
	v = (struct fl_vm_task){ .call = FL_VM_MUNMAP, .len = 1 };
	cr_expect_eq(fl_vm_result(&v, 0, 65536).unmapped, 65536);
	cr_expect_eq(fl_page_align(16384, 16384), 16384);
	cr_expect_eq(fl_page_align(0, 65536), 0);
}

Test(vm_math, failures)
{
	cr_expect(result(FL_VM_MMAP_ANON, MIB, 0, 0, -ENOMEM).failed);
	cr_expect_eq(result(FL_VM_MMAP_ANON, MIB, 0, 0, -ENOMEM).reserved, 0);
	cr_expect(result(FL_VM_MUNMAP, MIB, 0, 0, -EINVAL).failed);
	cr_expect_eq(result(FL_VM_MUNMAP, MIB, 0, 0, -EINVAL).unmapped, 0);
	cr_expect(result(FL_VM_MADV_FREE, MIB, 0, 0, -EINVAL).failed);
	cr_expect(result(FL_VM_MREMAP, MIB, 2 * MIB, 0, -EFAULT).failed);
	cr_expect_not(result(FL_VM_MMAP_FILE, MIB, 0, 0, -4096).failed);
}

Test(vm_math, mremap_grow_and_shrink)
{
	struct fl_vm_bytes b = result(FL_VM_MREMAP, 16 * MIB, 24 * MIB, 0, 0x7f0000000000);

	cr_expect_eq(b.reserved, 8 * MIB);
	cr_expect_eq(b.unmapped, 0);
	b = result(FL_VM_MREMAP, 24 * MIB, 20 * MIB, 0, 0x7f0000000000);
	cr_expect_eq(b.unmapped, 4 * MIB);
	cr_expect_eq(b.reserved, 0);
	b = result(FL_VM_MREMAP, MIB, MIB, 0, 0x7f0000000000); /* a move */
	cr_expect_eq(b.reserved + b.unmapped, 0);
	cr_expect_not(b.failed);
}

/* brk returns the new break, or the old one when it fails; the heap spans whole pages. */
Test(vm_math, brk_bytes)
{
	struct fl_vm_bytes b = result(FL_VM_BRK_GROW, 0, 0x600100, 0x400000, 0x600100);

	cr_expect_eq(b.reserved, 0x201000);
	cr_expect_not(b.failed);
	b = result(FL_VM_BRK_GROW, 0, 0x600100, 0x400000, 0x400000);
	cr_expect(b.failed);
	cr_expect_eq(b.reserved, 0);
	b = result(FL_VM_BRK_SHRINK, 0, 0x400000, 0x600000, 0x400000);
	cr_expect_eq(b.unmapped, 0x200000);
	cr_expect_not(b.failed);
	/* within one page: nothing given back */
	b = result(FL_VM_BRK_SHRINK, 0, 0x400800, 0x400f00, 0x400800);
	cr_expect_eq(b.unmapped, 0);
}

/* Every call has a name; a vm call's name is a pseudo-frame, an allocator's a function. */
Test(vm_math, call_names)
{
	for (__u32 c = FL_VM_MMAP_ANON; c < FL_VM__END; c++) {
		const char *n = call__name(c);

		cr_expect(n[0] == '[' && n[strlen(n) - 1] == ']', "call %u: %s", c, n);
		cr_expect(fl_call_is_vm(c));
		cr_expect_not(fl_call_is_alloc(c));
	}
	cr_expect_str_eq(call__name(FL_VM_MADV_DONTNEED), "[madvise DONTNEED]");
	cr_expect_str_eq(call__name(FL_VM__END), "[unknown call]");
	cr_expect_str_eq(call__name(12), "[unknown call]");
	cr_expect(fl_call_is_alloc(FL_FN_MALLOC));
	cr_expect_not(fl_call_is_vm(FL_FN_FREE));
	cr_expect_not(fl_call_is_alloc(FL_FN_NONE));
}
