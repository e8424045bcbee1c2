/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The page size of the running kernel, set by the loader (sysconf): 4 KiB on x86, 4, 16 or
 * 64 KiB on arm64. Never assumed: vm_pgoff, a syscall's rounded length, a page allocation's
 * bytes and a PMD-mapped huge page all follow it.
 */
#ifndef FAULTLINE_PAGES_BPF_H
#define FAULTLINE_PAGES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

const volatile __u32 page_shift __weak = 12;

static __always_inline __u64 fl_page_bytes(void)
{
	return 1ULL << page_shift;
}

/* A PMD maps a page of page table entries (8 bytes each): 2 MiB with 4 KiB pages, 32 MiB
 * with 16 KiB, 512 MiB with 64 KiB. */
static __always_inline __u64 fl_pmd_bytes(void)
{
	return 1ULL << (2 * page_shift - 3);
}

#endif /* FAULTLINE_PAGES_BPF_H */
