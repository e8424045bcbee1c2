/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Reads the BPF maps: the counts rows, the stacks they name, the thread names. */
#ifndef FAULTLINE_COLLECTOR_H
#define FAULTLINE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "faultline.h"
#include "trace/window.h"

struct retired_proc;

struct fl_row {
	struct fl_key key;
	struct fl_counts counts;
};

/* The histograms of one allocation row, and when its oldest live block was allocated. */
struct collector_hist {
	struct fl_key key;
	struct fl_alloc_hist hist;
	/* bpf_ktime_get_ns() (CLOCK_MONOTONIC) time; 0: nothing live at the last walk */
	uint64_t oldest_ts;
};

/* A process's exec id (fl_proc.exec_id): the fl_live_key.gen of its current image's blocks. */
struct collector_gen {
	uint32_t tgid;
	uint32_t gen;
};

/* Live blocks that an exec left behind, charged to row: their weights, summed. */
struct collector_drop {
	struct fl_key row;
	uint64_t count;
	uint64_t bytes;
};

struct collector;
struct retired_sum;

/* @max_rows: the counts map's max_entries. Returns NULL on -ENOMEM. */
struct collector *collector__new(int counts_fd, int stacks_fd, int threads_fd, uint32_t max_rows);
void collector__free(struct collector *c); /* accepts NULL */

/* Also reads the mm_state map (RSS peaks) at each collector__read(). */
void collector__set_mm_state(struct collector *c, int mm_fd);

/* The target set (the procs map), read by collector__read_procs() and collector__read(): the
 * peaks of mms already torn down are in it. */
void collector__set_procs(struct collector *c, int procs_fd);

/* An entry of the target set. */
struct collector_proc {
	pid_t pid;
	struct fl_proc p;
};

/* Reads the target set. Returns 0 or -errno. */
int collector__read_procs(struct collector *c);
/* The target set at the last read, by pid. */
const struct collector_proc *collector__procs(const struct collector *c, size_t *n);
/* The entry of @pid at the last read, or NULL. */
const struct collector_proc *collector__proc(const struct collector *c, pid_t pid);

/* The state of the mm of process @tgid of generation @gen (fl_key.gen) with the highest peak
 * at the last read (its peak and peak_seq), or NULL; for @gen 0 (rows without one), that of
 * the newest generation. The rows of collector__rows() already carry their net at that peak
 * in counts.at_peak. */
const struct fl_mm *collector__mm(const struct collector *c, uint32_t tgid, uint16_t gen);

/* Keeps the @n @mms, the last states of an exited process's mms that the loader took out of
 * the map, for collector__mm(). Returns 0 or -ENOMEM. */
int collector__keep_mms(struct collector *c, const struct fl_mm *mms, size_t n);

/*
 * Also reads the allocator maps (--alloc) at each collector__read(), with the targets' exec ids
 * from the target set (collector__set_procs()): a live block of an image its process exec'd
 * away from can never be freed, so its row counts it as freed (it is not live) and
 * collector__exec_dropped() counts it.
 */
void collector__set_alloc(struct collector *c, int live_fd, int hists_fd);

/*
 * What collector__read() does with the live table (--alloc) besides its rows: a walk, which
 * reads every live block, finds the oldest live block of each row (collector__hist()). Its
 * cost is the number of live blocks, not of rows, so it is made only when asked. A read after
 * an exec that may have left blocks behind walks whatever this says: the blocks are found by
 * the walk, and the rows' live figures must not count them.
 */
enum collector_walk {
	COLLECTOR_WALK_PACED = 0, /* when due: a walk's CPU is at most ~1% of the time between */
	COLLECTOR_WALK_NONE,	  /* nothing shows the ages: only for an exec */
	COLLECTOR_WALK_NOW,	  /* at this read: the final report's ages are of its moment */
};

/* What the next reads do (COLLECTOR_WALK_PACED until set). */
void collector__set_walk(struct collector *c, enum collector_walk w);

/* The CLOCK_MONOTONIC ns at the start of the walk the oldest live blocks of collector__hist()
 * come from (0: none yet); *@now: whether the last read made it. */
uint64_t collector__walked(const struct collector *c, bool *now);

/* Keeps the last exec id of process @tgid, which leaves the procs map, for the live blocks it
 * leaves behind. Returns 0 or -ENOMEM. */
int collector__keep_gen(struct collector *c, uint32_t tgid, uint32_t gen);

/*
 * Process @tgid exited: the live blocks of its last image (exec id @gen, 0 when it never
 * exec'd: all of them) can never be freed and count nowhere but in its rows, and they fill the
 * live table and every walk reads them (a compiler's heap, at each of a build's thousands of
 * cc1). The next walk deletes those allocated before now; one is due at the walks' pace even
 * when nothing shows the ages. The blocks earlier images left behind stay, told apart by the
 * exec id collector__keep_gen() kept: they count as freed at the exec. Returns 0 or -ENOMEM;
 * does nothing without a live table.
 */
int collector__forget_blocks(struct collector *c, uint32_t tgid, uint32_t gen);

/* The live blocks of @tgid's execs left behind at the last read (weights, as rows count). */
void collector__exec_dropped(const struct collector *c, uint32_t tgid, uint64_t *count,
			     uint64_t *bytes);

/* Snapshots the counts map (totals since attach), and the allocator maps when set: bulk
 * lookup, or key by key on kernels without batch lookup for hash maps. Returns 0 or -errno. */
int collector__read(struct collector *c);
/* Process @tgid of generation @gen (fl_key.gen) exited: from the next read on its rows leave
 * the counts map (room for others) and are kept here; with @gen0 also the rows of generation
 * 0 of @tgid (allocator and memory calls; the newest process of a pid has them). Returns 0 or
 * -ENOMEM. */
int collector__retire(struct collector *c, uint32_t tgid, uint16_t gen, bool gen0);

/* Retired process @tgid of generation @gen (and its generation 0 with @gen0) is folded into
 * retired process @into_tgid of generation @into_gen, as retired_rows__fold() says (with
 * @portable_only too): call it before the next read moves its rows. Returns 0 or -errno. */
int collector__fold(struct collector *c, uint32_t tgid, uint16_t gen, bool gen0, uint32_t into_tgid,
		    uint16_t into_gen, bool portable_only);

/*
 * Turns the walk @ips of @n frames (leaf first) of retired row @key into frames of objects
 * alone (walk__portable()) in @out, so that the row folds (retired_rows__fold() with
 * portable_only): returns the count, 0 to leave it as it is.
 */
typedef size_t (*collector_portable_fn)(void *ctx, const struct fl_key *key, const uint64_t *ips,
					size_t n, uint64_t *out);

/* Sets the function the rows of processes folded by program go through as they move. */
void collector__set_portable(struct collector *c, collector_portable_fn fn, void *ctx);

/* How many times the rows of retired processes moved out of the maps: a process retired
 * before a count was taken has its rows moved once the count is past it. */
uint64_t collector__moves(const struct collector *c);

/* retired_rows__kept_own() of the rows moved so far. */
bool collector__kept_own(const struct collector *c, uint32_t tgid, uint16_t gen);

/* Forgets the @n processes @procs (sorted here), folded with no row of their own left: the
 * marks of their rows (retired_rows__forget()) and their last mm states go. Returns 0 or
 * -ENOMEM (nothing forgotten). */
int collector__forget(struct collector *c, struct retired_proc *procs, size_t n);

/* What folded process @tgid of generation @gen was charged (its rows are not its own), or
 * NULL when it is not folded. */
const struct retired_sum *collector__folded(const struct collector *c, uint32_t tgid, uint16_t gen);

/* Reads the rows again when processes were retired since the last read, to move theirs out
 * of the maps, at most every 100 ms: -f calls it at every wake-up, so a storm of children
 * fills the maps no more than what lives at once. The alloc maps are not read. Returns 0 or
 * -errno. */
int collector__sweep(struct collector *c);

/* The rows of the last collector__read(): the counts map's, and those of retired processes. */
const struct fl_row *collector__rows(const struct collector *c, size_t *n);

/* --every: the rows of the last read less what they held as the window began (all they hold,
 * before the first window_mark), into a new array *@out (free() it) of *@n; with @ends, the
 * same rows as they stand beside it, for the levels (window_base__since()). Returns 0 or
 * -ENOMEM. */
int collector__window(struct collector *c, struct fl_row **out, struct fl_row **ends, size_t *n);
/* The next window begins now for the rows of the last read that @counted says the window
 * took (NULL: all). Returns 0 or -ENOMEM. */
int collector__window_mark(struct collector *c, window_counted_fn counted, void *ctx);

/* The histograms of allocation row @key at the last read, and its oldest live block at the last
 * walk (collector__walked()), or NULL. */
const struct collector_hist *collector__hist(const struct collector *c, const struct fl_key *key);

/* The instruction pointers of stack @stack (a counts key's stack), leaf first, and how its walk
 * ended (enum fl_stack_end) into *@end unless NULL. Returns how many (0 when unknown). */
size_t collector__stack(const struct collector *c, uint64_t stack, uint64_t ips[FL_MAX_STACK_DEPTH],
			uint32_t *end);

/* How the walk of stack @stack ended (enum fl_stack_end); -ENOENT when the stack is unknown.
 * Remembered, so asking for every row at every refresh costs no map read after the first. */
int collector__stack_end(struct collector *c, uint64_t stack);

/* The name the BPF side captured for thread @tid; 0, or -ENOENT. */
int collector__thread(const struct collector *c, uint32_t tid, struct fl_thread *out);

#endif /* FAULTLINE_COLLECTOR_H */
