// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * New memory (--metric new): the pages the kernel allocates while a target's thread runs,
 * charged to its user stack. An anonymous page a fault fills, a file page read into the page
 * cache, a shmem page: memory the machine did not hold before. A page that was resident already
 * (shared memory or a cached file another process maps too) allocates nothing, so mapping it
 * counts 0 here, where the RSS counters count it once per process.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "faultline.h"
#include "maps.bpf.h"
#include "pages.bpf.h"
#include "stack.bpf.h"
#include "vm_math.h"

/* include/linux/gfp_types.h: user pages (anon, page cache, shmem) are movable, the kernel's own
 * (page tables, slab, pipe buffers) are not */
#define FL_GFP_MOVABLE 0x08u

/* TP_PROTO(struct page *page, unsigned int order, gfp_t gfp_flags, int migratetype) */
SEC("raw_tp/mm_page_alloc")
int fl_page_alloc(__u64 *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fl_key key = { .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid };
	unsigned int order = (unsigned int)ctx[1];
	struct fl_counts *c;
	struct fl_proc *p;

	if (!ctx[0] || !((__u32)ctx[2] & FL_GFP_MOVABLE) || order > 18)
		return 0;
	p = fl_target(key.tgid);
	if (!p)
		return 0;
	key.gen = (__u16)p->gen;
	/* inside a fault the walk is the fault's, cached: the same row */
	fl_user_stack(ctx, &key, false, false);
	c = fl_counts_get(&key);
	if (c)
		__sync_fetch_and_add(&c->new_bytes, fl_page_bytes() << order);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
