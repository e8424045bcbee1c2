/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * /proc/PID/smaps: every mapping with its resident, anonymous, swapped and proportional bytes.
 * The kernel walks the page tables to write it (its cost grows with what is resident), so it
 * is read seldom: the parser takes a FILE *, so tests feed fixtures.
 */
#ifndef FAULTLINE_SMAPS_H
#define FAULTLINE_SMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Bits of smaps_entry.perms, from the "rwxp" column. */
enum {
	SMAPS_READ = 1 << 0,
	SMAPS_WRITE = 1 << 1,
	SMAPS_EXEC = 1 << 2,
	SMAPS_SHARED = 1 << 3, /* 's'; 'p' leaves it clear */
};

/* The VmFlags the inventory uses (the two-letter codes of fs/proc/task_mmu.c). */
enum {
	SMAPS_VM_GROWSDOWN = 1 << 0,  /* gd: the main stack */
	SMAPS_VM_HUGETLB = 1 << 1,    /* ht: hugetlbfs pages, outside RSS */
	SMAPS_VM_SHARED = 1 << 2,     /* sh */
	SMAPS_VM_IO = 1 << 3,	      /* io: device memory (not pages) */
	SMAPS_VM_NOHUGEPAGE = 1 << 4, /* nh: MADV_NOHUGEPAGE */
	SMAPS_VM_HUGEPAGE = 1 << 5,   /* hg: MADV_HUGEPAGE */
};

/* One mapping: its /proc/PID/maps line and the figures below it, in bytes (the file says
 * kB). A figure this kernel does not print stays 0. */
struct smaps_entry {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t perms;	   /* SMAPS_READ ... */
	uint32_t vm_flags; /* SMAPS_VM_... (0 before Linux 3.8, which has no VmFlags line) */
	char *name;	   /* never NULL; "" for an anonymous mapping; as the kernel wrote it,
			    * " (deleted)" and all */
	uint64_t rss;
	uint64_t pss;
	uint64_t shared_clean;
	uint64_t shared_dirty;
	uint64_t private_clean;
	uint64_t private_dirty;
	uint64_t anonymous;
	uint64_t anon_huge; /* AnonHugePages: of anonymous, in transparent huge pages */
	uint64_t shared_hugetlb;
	uint64_t private_hugetlb;
	uint64_t swap;
	uint64_t swap_pss;
};

/* The mappings of a process, in the file's order (by start). */
struct smaps {
	struct smaps_entry *v;
	size_t n;
	size_t cap;
};

/*
 * Parses the smaps text of @f into @out (initialised here). A field line before any mapping
 * line, a malformed mapping line or a malformed figure is -EINVAL; unknown fields are
 * skipped. Returns 0, -EINVAL or -ENOMEM, with @out left empty on failure.
 */
int smaps__parse(FILE *f, struct smaps *out);

/* Reads /proc/@pid/smaps into @out. Returns 0, -ESRCH when the process is gone, or -errno. */
int smaps__read(pid_t pid, struct smaps *out);

/* Frees the entries of @m and leaves it empty; accepts NULL. */
void smaps__free(struct smaps *m);

#endif /* FAULTLINE_SMAPS_H */
