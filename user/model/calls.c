// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/calls.h"
#include "faultline.h"

const char *call__name(uint32_t call)
{
	static const char *const names[FL_VM__END] = {
		[FL_FN_NONE] = "[none]",
		[FL_FN_MALLOC] = "malloc",
		[FL_FN_CALLOC] = "calloc",
		[FL_FN_REALLOC] = "realloc",
		[FL_FN_REALLOCARRAY] = "reallocarray",
		[FL_FN_POSIX_MEMALIGN] = "posix_memalign",
		[FL_FN_ALIGNED_ALLOC] = "aligned_alloc",
		[FL_FN_VALLOC] = "valloc",
		[FL_FN_NEW] = "operator new",
		[FL_FN_NEW_ARRAY] = "operator new[]",
		[FL_FN_FREE] = "free",
		/* bracketed: the syscall wrapper is the stack's own leaf already */
		[FL_VM_MMAP_ANON] = "[mmap anon]",
		[FL_VM_MMAP_SHARED] = "[mmap shared]",
		[FL_VM_MMAP_FILE] = "[mmap file]",
		[FL_VM_MUNMAP] = "[munmap]",
		[FL_VM_MREMAP] = "[mremap]",
		[FL_VM_BRK_GROW] = "[brk grow]",
		[FL_VM_BRK_SHRINK] = "[brk shrink]",
		[FL_VM_MADV_DONTNEED] = "[madvise DONTNEED]",
		[FL_VM_MADV_FREE] = "[madvise FREE]",
		[FL_VM_MADV_REMOVE] = "[madvise REMOVE]",
		[FL_VM_MADV_PAGEOUT] = "[madvise PAGEOUT]",
		[FL_VM_MADV_COLD] = "[madvise COLD]",
		[FL_VM_MADV_OTHER] = "[madvise other]",
	};

	return call < FL_VM__END && names[call] ? names[call] : "[unknown call]";
}

const char *origin__name(enum fl_origin origin)
{
	switch (origin) {
	case FL_ORIGIN_EXIT:
		return "[exit]";
	case FL_ORIGIN_RECLAIM:
		return "[reclaim]";
	case FL_ORIGIN_REMOTE:
		return "[other process]";
	case FL_ORIGIN_STACK_LOST:
		return "[stack lost]";
	case FL_ORIGIN_OVERFLOW:
		return "[counts map full]";
	case FL_ORIGIN_UNMATCHED:
		return "[freed, allocated before attach]";
	case FL_ORIGIN_EXEC:
		return "[exec]";
	default:
		return "[unknown origin]";
	}
}
