/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Every type and constant shared by the BPF programs (bpf/) and the loader (user/).
 * Fixed-width types only, explicit padding, sizes pinned by _Static_assert so both sides
 * agree on the layout of every map key and value.
 */
#ifndef FAULTLINE_H
#define FAULTLINE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define FL_COMM_LEN 16
/* Entries of the procs map: the -p targets (at most 64) and the children -f follows. */
#define FL_MAX_PROCS 4096
#define FL_MAX_STACK_DEPTH 127 /* the kernel's PERF_MAX_STACK_DEPTH */

/*
 * The processes the BPF side makes targets by itself, beyond the loader's (-p, a command) and
 * their children (-f): none, every process on the host (-a), or those of some cgroup v2
 * directories and their descendants (--cgroup), decided from the task's cgroup as it forks
 * or moves (bpf/scope.bpf.h).
 */
enum fl_scope {
	FL_SCOPE_PIDS = 0,
	FL_SCOPE_ALL = 1,
	FL_SCOPE_CGROUPS = 2,
};

#define FL_MAX_CGROUPS 16  /* --cgroup selectors */
#define FL_CGROUP_DEPTH 16 /* levels of a cgroup's ancestors checked for a selected one */

/* RSS counter members, in the kernel's order (include/linux/mm_types_task.h). */
enum fl_member {
	FL_FILE = 0,  /* MM_FILEPAGES */
	FL_ANON = 1,  /* MM_ANONPAGES */
	FL_SWAP = 2,  /* MM_SWAPENTS */
	FL_SHMEM = 3, /* MM_SHMEMPAGES */
	FL_MEMBERS = 4,
};

/*
 * Where a change was charged. USER means the user stack of the thread that caused it; the
 * others are pseudo-stacks for changes no user stack explains, so no byte is ever dropped.
 */
enum fl_origin {
	FL_ORIGIN_USER = 0,	  /* the current thread's user stack */
	FL_ORIGIN_EXIT = 1,	  /* the owner tearing its mm down (exit, or exec's old mm) */
	FL_ORIGIN_RECLAIM = 2,	  /* kswapd or direct reclaim by another task */
	FL_ORIGIN_REMOTE = 3,	  /* another process acting on the target's memory */
	FL_ORIGIN_STACK_LOST = 4, /* user stack could not be taken (see drops) */
	FL_ORIGIN_OVERFLOW = 5,	  /* the counts map was full: charged per process here */
	FL_ORIGIN_UNMATCHED = 6,  /* frees of blocks allocated before attach (--alloc) */
	FL_ORIGIN_EXEC = 7,	  /* the kernel loading a new image in exec (no user stack yet) */
	FL_ORIGIN__COUNT = 8,
};

/* Every loss the BPF side can suffer; userspace shows each one. */
enum fl_drop {
	FL_DROP_STACKS_FULL = 0, /* stacks map full: a new stack could not be stored */
	FL_DROP_STACK_FAILED =
		1, /* no user stack could be taken (no pc, or the CPU's walk was busy) */
	FL_DROP_COUNTS_FULL = 2,  /* counts map full: bytes went to the overflow key */
	FL_DROP_MM_FULL = 3,	  /* mm_state map full: that mm's changes are not seen */
	FL_DROP_THREADS_FULL = 4, /* threads map full: thread name unknown */
	FL_DROP_TASK_STORAGE = 5, /* no task storage: stack taken without the cache */
	FL_DROP_LIVE_FULL = 6,	  /* live table full: an allocation's free cannot be matched */
	FL_DROP_ALLOC_STATE = 7,  /* no per-thread state or probe site: an allocator call unseen */
	FL_DROP_HISTS_FULL = 8,	  /* alloc_hists map full: a call is missing from histograms */
	FL_DROP_PROCS_FULL = 9,	  /* procs map full: a forked child is not followed */
	FL_DROP_VM_STATE = 10,	  /* no task storage: a memory syscall was not seen */
	FL_DROP_PID_REUSED = 11,  /* a child reused the pid of an exited target not yet retired */
	FL_DROP_EXIT_MAPS = 12,	  /* an exiting target's mappings not recorded (ring full, no mm) */
	FL_DROP_REGIONS_FULL = 13, /* regions map full: who mapped an anonymous region is unknown */
	FL_DROP__COUNT = 14,
};

/*
 * The allocator functions --alloc probes, by what their arguments mean. Every spelling of
 * operator new takes the size first, every operator delete the pointer first.
 */
enum fl_alloc_fn {
	FL_FN_NONE = 0, /* not an allocation row */
	FL_FN_MALLOC,
	FL_FN_CALLOC,
	FL_FN_REALLOC,
	FL_FN_REALLOCARRAY,
	FL_FN_POSIX_MEMALIGN,
	FL_FN_ALIGNED_ALLOC, /* also memalign: (alignment, size) */
	FL_FN_VALLOC,	     /* also pvalloc: (size) */
	FL_FN_NEW,
	FL_FN_NEW_ARRAY,
	FL_FN_FREE, /* also every operator delete: (pointer, ...) */
	FL_FN__COUNT,
};

/*
 * The memory syscalls --vm traces, by what they do. Their values follow the allocator
 * functions' so that one key field (fl_key.call) names either.
 */
enum fl_vm_call {
	FL_VM_MMAP_ANON = 16, /* private anonymous mmap */
	FL_VM_MMAP_SHARED,    /* shared anonymous mmap: shmem */
	FL_VM_MMAP_FILE,      /* file-backed mmap, private or shared */
	FL_VM_MUNMAP,
	FL_VM_MREMAP,
	FL_VM_BRK_GROW,
	FL_VM_BRK_SHRINK,
	FL_VM_MADV_DONTNEED,
	FL_VM_MADV_FREE,
	FL_VM_MADV_REMOVE,
	FL_VM_MADV_PAGEOUT,
	FL_VM_MADV_COLD,
	FL_VM_MADV_OTHER, /* every other advice */
	FL_VM__END,
};

/* fl_key.call names an allocator function (its stack starts where it returns to). */
static inline int fl_call_is_alloc(__u32 call)
{
	return call > FL_FN_NONE && call < FL_FN__COUNT;
}

static inline int fl_call_is_vm(__u32 call)
{
	return call >= FL_VM_MMAP_ANON && call < FL_VM__END;
}

/*
 * The kind of mapping a change hit (--by mapping). Faults are classified by their address,
 * memory calls by theirs; a change with neither (a kernel copy into user memory, reclaim) is
 * FL_MAP_UNKNOWN.
 */
enum fl_map_class {
	FL_MAP_UNKNOWN = 0,
	FL_MAP_HEAP,	     /* the brk heap */
	FL_MAP_STACK,	     /* the main thread's stack */
	FL_MAP_THREAD_STACK, /* the stack of the thread that faulted, not the main one */
	FL_MAP_ANON,	     /* any other private anonymous mapping */
	FL_MAP_THP,	     /* anonymous memory that arrived as a 2 MiB transparent huge page */
	FL_MAP_FILE,	     /* a file: fl_key.map_file names it */
	FL_MAP_SHMEM,	     /* shared anonymous, memfd, SysV shm, tmpfs files */
	FL_MAP_HUGETLB,	     /* hugetlbfs, MAP_HUGETLB, SHM_HUGETLB: outside RSS */
	FL_MAP__COUNT,
};

/* Key of the counts map: one row per (process, thread, stack, origin). */
struct fl_key {
	__u32 tgid;
	__u32 tid;
	__u16 origin;	 /* enum fl_origin */
	__u16 map_class; /* enum fl_map_class: 0 unless classifying (--by mapping) */
	/*
	 * 0, or the call the row counts: an allocator function (enum fl_alloc_fn; the stack
	 * starts in its caller, where it returns to, so all frames are return addresses, whether
	 * taken at the return or, --alloc=churn, at the entry), or a memory syscall
	 * (enum fl_vm_call, --vm) and the RSS changes made inside it.
	 */
	__u16 call;
	/*
	 * -f: the generation of the process (fl_proc.gen) on the rows of its faults and RSS
	 * changes, so that a child that gets the pid of an exited one has rows of its own; 0 on
	 * the rows of the loader's targets, and on allocator and memory call rows (userspace
	 * gives those to the newest process of the pid).
	 */
	__u16 gen;
	__u64 stack; /* key of the stacks map (a hash of the frames); 0 for origins but USER */
	/*
	 * The code address found at the user stack pointer, 0 when it points to no executable
	 * mapping. In a function without a frame (glibc's syscall wrappers, memset) it is the
	 * return address into the caller that a frame-pointer walk skips; userspace decides.
	 */
	__u64 leaf_ret;
	__u64 map_file; /* FL_MAP_FILE: fl_file_id() of the file; 0 when unknown */
};
_Static_assert(sizeof(struct fl_key) == 40, "fl_key layout");

/*
 * A file's identity from its device (the kernel's dev_t: major << 20 | minor, as
 * /proc/PID/maps prints it split) and inode number: a 64-bit mix, so a key holds one field.
 */
static inline __u64 fl_file_id(__u32 dev, __u64 ino)
{
	__u64 id = (ino ^ ((__u64)dev << 40)) * 0x9e3779b97f4a7c15ULL;

	return id ? id : 1;
}

/* Value of the counts map. Growth and release are kept apart, never netted. */
struct fl_counts {
	__u64 grow[FL_MEMBERS];	   /* bytes the RSS counter rose, by member */
	__u64 release[FL_MEMBERS]; /* bytes it fell, by member */
	__u64 faults;		   /* user page faults */
	__u64 write_faults;	   /* ... of which write faults (error_code bit 1) */
	/* --alloc rows: weights, so estimates under --sample-bytes (exact counts without) */
	__u64 allocs;	   /* allocations made here */
	__u64 alloc_bytes; /* bytes their callers asked for */
	__u64 frees;	   /* of those allocations, freed since */
	__u64 free_bytes;
	__u64 unmatched_frees; /* frees of blocks allocated before attach: no size known */
	/* Peak attribution (rss_math.h fl_at_peak): the row's net resident bytes when its mm
	 * last reached a new peak, valid while peak_seq equals the mm's. Userspace turns it into
	 * the net at the peak. */
	__s64 at_peak;
	__u64 peak_seq;
	/* --vm rows: virtual bytes, page-aligned, of the calls that succeeded */
	__u64 reserved;	 /* mapped by mmap, mremap growth, brk growth */
	__u64 unmapped;	 /* given back by munmap, mremap shrink, brk shrink */
	__u64 advised;	 /* covered by madvise */
	__u64 vm_calls;	 /* calls made, failed ones included */
	__u64 vm_failed; /* ... of which failed */
	/* --metric new: bytes of pages the kernel allocated for the target while it ran here
	 * (kmem:mm_page_alloc, movable: anon, page cache, shmem), whether mapped or not */
	__u64 new_bytes;
};
_Static_assert(sizeof(struct fl_counts) == 184, "fl_counts layout");

/* Value of the threads map (key: tid): the thread's name when it was last seen or renamed. */
struct fl_thread {
	__u32 tgid;
	__u32 _pad;
	char comm[FL_COMM_LEN];
};
_Static_assert(sizeof(struct fl_thread) == 24, "fl_thread layout");

#define FL_SIZE_UNKNOWN (-1LL)

/* fl_proc.flags */
#define FL_PROC_SEEDED (1u << 0)     /* seed[] holds the counters read at attach */
#define FL_PROC_AWAIT_EXEC (1u << 1) /* launched child: ignore it until it execs */
#define FL_PROC_FRESH (1u << 2)	     /* the next new mm of this process starts at 0 */
#define FL_PROC_MM_KNOWN (1u << 3)   /* mm_id holds the process's current mm */
#define FL_PROC_EXITED (1u << 4)     /* its last thread exited: nothing of it is charged since */
#define FL_PROC_LAST_KEPT (1u << 5)  /* gone_last holds its image's counters at its teardown */
#define FL_PROC_JOINED (1u << 6)     /* admitted as it moved into a selected cgroup, not forked */
#define FL_PROC_PRESENT (1u << 7)    /* in the scope as the session began (the loader seeded it) */

/*
 * Value of the procs map (key: tgid). Its keys are the target set: the loader adds -p targets
 * and a launched command, the fork program (-f) adds the children of targets.
 */
struct fl_proc {
	__u32 mm_id;
	__u32 flags;
	/* bytes: from /proc/PID/status at attach (FL_PROC_SEEDED); for a forked child, each
	 * member's baseline (its first value seen) once known, FL_SIZE_UNKNOWN before */
	__s64 seed[FL_MEMBERS];
	/* execs the process made since it became a target: userspace compares it with the count
	 * it last saw to reload the process's name and symbols (only the BPF side writes it, so
	 * no update of flags or mm_id can be lost to a read-modify-write from userspace) */
	__u32 execs;
	__u32 parent; /* -f: the target that forked it; 0 for the loader's targets */
	/* its task's self_exec_id (low half) after the last exec seen, 0 before any: the
	 * fl_live_key.gen of the blocks its current image allocates */
	__u32 exec_id;
	__u32 gen; /* -f: 1 to 65535, a child's generation (fl_key.gen); 0 for the loader's */
	/* -f: the child's start (the kernel's start_boottime, ns): with the pid, its identity, as
	 * /proc/PID/stat's starttime gives it in clock ticks; 0 for the loader's targets */
	__u64 start;
	/* the mm of the process's current image (a kernel address, only compared), once known:
	 * fork's for a child (-f), exec's after an exec. Another mm is one that exec is making */
	__u64 image_mm;
	/* the highest peak among its mms already torn down (exit_mmap) and that mm's peak_seq,
	 * which its rows' at_peak refer to; 0 when none */
	__s64 gone_peak;
	__u64 gone_peak_seq;
	/* with FL_PROC_LAST_KEPT, its image's counters as their teardown began (each member
	 * FL_SIZE_UNKNOWN when no event gave it): its RSS at exit, which /proc no longer tells
	 * once the teardown has begun */
	__s64 gone_last[FL_MEMBERS];
	/* the counters of the images its execs replaced, summed, each as its teardown began
	 * (as gone_last): the kernel's change over the images a process ran, which its rows
	 * cover, is theirs plus the current image's */
	__s64 exec_left[FL_MEMBERS];
};
_Static_assert(sizeof(struct fl_proc) == 152, "fl_proc layout");

/* fl_mm.flags */
#define FL_MM_IN_EXEC (1u << 0) /* made by an exec not finished yet: its changes are the kernel's */

/* Value of the mm_state map (key: the tracepoint's mm_id): last counter value per member. */
struct fl_mm {
	__u32 tgid;
	__u16 flags;
	__u16 gen;		/* its process's fl_proc.gen */
	__s64 last[FL_MEMBERS]; /* bytes, or FL_SIZE_UNKNOWN until the first event */
	__s64 peak;		/* the highest anon + file + shmem seen */
	__u64 peak_seq;		/* bumped each time peak rises */
	__u64 mm_ptr;		/* the mm's kernel address (the mm_ids key) */
};
_Static_assert(sizeof(struct fl_mm) == 64, "fl_mm layout");

/*
 * Value of the stacks map: user return addresses, leaf first, zero after the last. The key is
 * a 64-bit hash of the frames: unlike BPF_MAP_TYPE_STACK_TRACE, whose one-stack buckets drop a
 * new stack that lands in an occupied bucket, two stacks collide only with the odds of a
 * 64-bit hash.
 */
struct fl_stack {
	__u64 ips[FL_MAX_STACK_DEPTH]; /* addresses, or frames of objects (FL_FRAME_OBJ) */
	__u32 end;		       /* enum fl_stack_end: how the walk ended */
	__u32 _pad;
};
_Static_assert(sizeof(struct fl_stack) == 1024, "fl_stack layout");

/*
 * A frame in code the walk has an unwind table for is written as that object and the ELF
 * address in it, FL_FRAME_OBJ | table << 32 | vaddr: the same in every process that runs the
 * code, across ASLR, fork and exec, so the stacks map holds code paths, not (process, path)
 * pairs. Frames elsewhere (no table: code without unwind info, JIT, anonymous code) stay
 * addresses, which never have the top bit set. userspace turns each back into the address in
 * the process whose row it names (user/trace/frames.c).
 */
#define FL_FRAME_OBJ (1ull << 63)

/* The value that turns an address @pc in a mapping of table @table and bias @bias (ELF vaddr
 * = pc - bias, below 4 GiB as rows are) into its frame: pc + delta. */
static inline __u64 fl_frame_delta(__u32 table, __u64 bias)
{
	return FL_FRAME_OBJ + ((__u64)table << 32) - bias;
}

static inline __u32 fl_frame_table(__u64 frame)
{
	return (__u32)((frame & ~FL_FRAME_OBJ) >> 32);
}

static inline __u32 fl_frame_vaddr(__u64 frame)
{
	return (__u32)frame;
}

/* How a walk ended: at the outermost frame (the stack is whole), or cut, and why. */
enum fl_stack_end {
	FL_END_FP = 0,	     /* the frame-pointer chain ended (no table where it did) */
	FL_END_WHOLE = 1,    /* an unwind table said the return address is undefined */
	FL_END_NO_TABLE = 2, /* a frame-pointer step failed where no table covered the pc */
	FL_END_INVALID = 3,  /* a frame-pointer step failed at a rule the walk cannot follow */
	FL_END_READ = 4,     /* the stack could not be read where a rule said */
	FL_END_DEPTH = 5,    /* FL_MAX_STACK_DEPTH frames */
	/* the walk reached the outermost frame, but by way of frame-pointer steps where no row
	 * covered the pc: a function there that keeps no frame pointer is skipped unseen */
	FL_END_FALLBACK = 6,
	FL_END__COUNT = 7,
};

#define FL_CACHE_WORDS 32 /* the words a cached walk may depend on (a power of 2) */

/* Per-thread cache of the last user stack taken, so one fault is walked once, and a fault
 * like the last one (same registers, same saved frames) not at all. */
struct fl_stack_cache {
	__u64 ip;
	__u64 sp;
	__u64 bp;
	__u64 stack; /* 0: the walk failed (FL_ORIGIN_STACK_LOST) */
	__u64 leaf_ret;
	__u32 sp_word_exec; /* sp_word lies in executable code */
	__u16 map_class;    /* --by mapping: the class of the mapping the fault or call hit */
	__u16 call;	    /* --vm: the memory syscall the walk was taken for (fl_key.call) */
	/* the last word seen at the stack pointer: bpf_find_vma() costs up to microseconds, and a
	 * loop that faults again and again sees the same word */
	__u64 sp_word;
	__u64 map_file;
	/*
	 * What a fault's walk read, so that the next fault at the same ip, sp and bp can reuse
	 * it once these words are found unchanged (the walk is a function of the registers, the
	 * words it reads and the process's unwind tables): the word index from sp of each word
	 * read, and its value. nwords 0: the walk cannot be checked (it read outside the
	 * window at sp, read more than FL_CACHE_WORDS words, met a uprobe, or was no fault's).
	 */
	__u32 unwind_epoch; /* unwind_epoch when the walk began (see unwind_procs.bpf.h) */
	__u8 nwords;
	__u8 maxidx; /* the highest of slots[] */
	__u8 _pad[2];
	__u8 slots[FL_CACHE_WORDS];
	__u64 words[FL_CACHE_WORDS];
};
_Static_assert(sizeof(struct fl_stack_cache) == 360, "fl_stack_cache layout");

/* Global counters in .bss, updated atomically: losses only, which are rare, since a counter
 * every CPU bumps on every event costs a contended cache line per fault. */
struct fl_stats {
	__u64 drops[FL_DROP__COUNT];
};

/*
 * -f on Linux 6.16 and later: the file mappings of a target as its last thread exits, before
 * its mm goes (bpf/exitmaps.bpf.c), so that its stacks can be named after it is gone. One
 * record per mapping, on a ring buffer; the path of a file comes with its first record only.
 */
#define FL_NAME_MAX 256 /* a path component, NUL included (NAME_MAX + 1) */
#define FL_PATH_MAX 512 /* a path's components, leaf first, each NUL-terminated */
#define FL_PATH_DEPTH 32

struct fl_map_rec {
	__u32 tgid;
	__u32 dev;   /* the kernel's dev_t of the file's file system: major << 20 | minor */
	__u64 start; /* the process's start_boottime (fl_proc.start) */
	__u64 vm_start;
	__u64 vm_end;
	__u64 pgoff; /* bytes */
	__u64 ino;
	__u32 prot;	/* FL_PROT_READ...: the mapping's permissions */
	__u32 path_len; /* bytes of path[] after the record: 0 when an earlier record gave it */
};
_Static_assert(sizeof(struct fl_map_rec) == 56, "fl_map_rec layout");

/* fl_map_rec.prot */
#define FL_PROT_READ (1u << 0)
#define FL_PROT_WRITE (1u << 1)
#define FL_PROT_EXEC (1u << 2)
#define FL_PROT_SHARED (1u << 3)
#define FL_PROT_PATH_CUT (1u << 4) /* the path was too long or deep: path[] is not whole */

struct fl_map_path {
	struct fl_map_rec rec;
	char path[FL_PATH_MAX + FL_NAME_MAX]; /* room for one more component past FL_PATH_MAX */
};

/* --by mapping, per thread: one lookup, the thread's stack pointer in, the mapping's range and class out. */
struct fl_map_probe {
	__u64 mm;    /* the mm the answer is about: an exec replaces it, the sequence restarts */
	__u64 sp;    /* the faulting thread's user stack pointer */
	__u64 start; /* out: the mapping's range */
	__u64 end;
	__u32 class; /* out: enum fl_map_class */
	__u32 seq;   /* the mm's mmap_lock sequence when the lookup began */
	__u64 file;  /* out: fl_file_id() for FL_MAP_FILE */
};
_Static_assert(sizeof(struct fl_map_probe) == 48, "fl_map_probe layout");

/* Per-thread state of a memory syscall between its entry and its exit (--vm). */
struct fl_vm_task {
	__u32 call; /* enum fl_vm_call; 0: in none */
	__u32 _pad;
	__u64 len;     /* mmap, munmap, madvise: the length; mremap: the old length */
	__u64 arg;     /* mremap: the new length; brk: the break asked for */
	__u64 old_brk; /* brk: the break before the call */
};
_Static_assert(sizeof(struct fl_vm_task) == 32, "fl_vm_task layout");

/*
 * --alloc: the anonymous regions the targets mapped during the session, so that userspace can
 * tell the allocator's mappings (heaps, arenas, large blocks) from the application's own (a
 * buffer pool): an mmap or mremap made inside an allocator call is the allocator's.
 */
#define FL_MAX_REGIONS 65536

enum fl_region_owner {
	FL_OWNER_APP = 1,	/* mapped outside any allocator call */
	FL_OWNER_ALLOCATOR = 2, /* mapped inside a malloc-family call */
};

struct fl_region_key {
	__u32 tgid;
	__u32 _pad;
	__u64 start; /* the address mmap or mremap returned */
};
_Static_assert(sizeof(struct fl_region_key) == 16, "fl_region_key layout");

struct fl_region {
	__u64 len;   /* bytes asked for */
	__u64 stack; /* key of the stacks map: who mapped it; 0 when the walk failed */
	__u32 tid;
	__u16 owner; /* enum fl_region_owner */
	__u16 _pad;
};
_Static_assert(sizeof(struct fl_region) == 24, "fl_region layout");

/* Key of the live map: one allocated block of a target. gen is the allocating task's
 * self_exec_id (low half), which every exec bumps and threads and forks inherit: after an exec,
 * the old image's blocks match no free and no new block, and userspace counts them as dropped
 * at exec (their gen is not fl_proc.exec_id). */
struct fl_live_key {
	__u32 tgid;
	__u32 gen;
	__u64 ptr;
};
_Static_assert(sizeof(struct fl_live_key) == 16, "fl_live_key layout");

/* Value of the live map: where a block was allocated and what it was charged, so its free
 * takes back exactly that from the same row. */
struct fl_live {
	__u64 stack;
	__u32 tid;
	__u16 alloc_fn;
	__u16 origin;
	__u64 ts;    /* bpf_ktime_get_ns() at the allocation */
	__u64 bytes; /* weight charged to alloc_bytes */
	__u64 count; /* weight charged to allocs */
};
_Static_assert(sizeof(struct fl_live) == 40, "fl_live layout");

#define FL_HIST_BUCKETS 32

/* Value of the alloc_hists map (key: a counts key): log2 histograms of the recorded calls.
 * Bucket 0 holds 0, bucket b holds [2^(b-1), 2^b), the last bucket everything above. */
struct fl_alloc_hist {
	__u64 size[FL_HIST_BUCKETS];	/* bytes asked for */
	__u64 latency[FL_HIST_BUCKETS]; /* nanoseconds from entry to return */
};
_Static_assert(sizeof(struct fl_alloc_hist) == 512, "fl_alloc_hist layout");

#define FL_RET_SITES 4 /* call sites whose walks an allocating thread keeps (a power of 2) */

/* Per-thread state of the allocator probes (task storage). */
struct fl_alloc_task {
	__u64 sp;	   /* stack pointer at the outermost allocator entry; 0: in none */
	__u64 ts;	   /* bpf_ktime_get_ns() at that entry */
	__u64 size;	   /* bytes asked for */
	__u64 arg;	   /* realloc: the old block; posix_memalign: where the pointer goes */
	__u32 fn;	   /* enum fl_alloc_fn */
	__u32 have_old;	   /* realloc: old holds the old block's live entry */
	__s64 sample_left; /* --sample-bytes: bytes until the next sample point (0: unseeded) */
	__u64 bytes;	   /* the call's weights (fl_live), given at its entry */
	__u64 count;
	struct fl_live old;
	/* the walks of the last call sites the thread's allocations returned to (see
	 * fl_ret_stack): a malloc called in a loop is walked once */
	__u32 ret_next; /* the entry the next new site replaces */
	__u32 ret_at;	/* the entry this return uses (read back: see fl_ret_stack) */
	struct fl_stack_cache ret[FL_RET_SITES];
};
_Static_assert(sizeof(struct fl_alloc_task) == 112 + FL_RET_SITES * 360, "fl_alloc_task layout");

/*
 * --alloc=churn: the allocator's entry probes alone, one trap per call. A probe's cookie holds
 * its function (bits 0-7), its site's offset from the function's entry (bits 8-31) and the
 * function's size (bits 32-63; 0: unknown), so that the program knows where the function it
 * stopped in begins and ends: a call made from inside another allocator call is part of it.
 */
static inline __u64 fl_churn_cookie(__u32 fn, __u32 site, __u64 size)
{
	if (size > 0xffffffffull)
		size = 0;
	return (fn & 0xff) | (__u64)(site & 0xffffff) << 8 | size << 32;
}

/*
 * The legacy object's stand-in for attach cookies (bpf_get_attach_cookie, Linux 5.15): the
 * cookie of each allocator probe by the address it stops at in its process, which the loader
 * writes as it attaches (probe_sites map).
 */
#define FL_PROBE_SITES 4096

struct fl_probe_site {
	__u32 tgid;
	__u32 _pad;
	__u64 addr; /* the probe's address in the process */
};
_Static_assert(sizeof(struct fl_probe_site) == 16, "fl_probe_site layout");

/* Per-thread state of the churn probe (task storage): the allocator call it counted last. */
struct fl_churn_task {
	__u64 sp;	   /* the stack pointer at its entry */
	__u64 ret;	   /* its return address */
	__u64 lo, hi;	   /* the function it entered, [lo, hi); hi 0: its size is unknown */
	__u64 in_lo;	   /* the innermost allocator function entered inside it since */
	__u64 in_hi;	   /* ... its end */
	__s64 sample_left; /* --sample-bytes: bytes until the next sample point (0: unseeded) */
	__u32 fn;	   /* its enum fl_alloc_fn */
	__u32 _pad;
};
_Static_assert(sizeof(struct fl_churn_task) == 64, "fl_churn_task layout");

/* The unwind tables and the lists of mappings the walk reads them by. */
#include "faultline_unwind.h"

#endif /* FAULTLINE_H */
