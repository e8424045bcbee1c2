/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* x86_64 numbers of the memory syscalls (arch/x86/entry/syscalls/syscall_64.tbl): a stable ABI. */
#ifndef FAULTLINE_SYSCALLS_X86_H
#define FAULTLINE_SYSCALLS_X86_H

#define NR_MMAP 9
#define NR_MUNMAP 11
#define NR_BRK 12
#define NR_MREMAP 25
#define NR_MADVISE 28

#endif /* FAULTLINE_SYSCALLS_X86_H */
