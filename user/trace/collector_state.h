/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The collector's state, shared by its two halves: the counts rows, stacks, peaks and target set
 * (collector.c) and the allocator maps (collector_alloc.c). Nothing else sees it. */
#ifndef FAULTLINE_COLLECTOR_STATE_H
#define FAULTLINE_COLLECTOR_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace/collector.h"
#include "trace/livewalk.h"
#include "trace/window.h"

/*
 * How the walk of a stack ended, remembered: a stack never changes under its hash. Every row's
 * is asked at every refresh, so the table holds them all (open addressing, at most half full);
 * it is emptied when it holds far more stacks than the rows name, and so stays bounded by them.
 */
#define COLLECTOR_ENDS_MIN 4096

struct collector_end {
	uint64_t stack; /* 0: empty */
	uint32_t end;	/* enum fl_stack_end */
};

struct collector {
	int counts_fd;
	int stacks_fd;
	int threads_fd;
	int mm_fd;		      /* mm_state, for the peaks; or -1 */
	int procs_fd;		      /* the target set; or -1 */
	struct collector_proc *procs; /* by pid */
	size_t nprocs;
	size_t procs_cap;
	struct fl_mm *mms;
	size_t nmms;
	size_t mms_cap;
	int live_fd; /* --alloc maps, or -1 */
	int hists_fd;
	uint32_t max_rows;
	size_t rows_cap;		   /* rows has room for max_rows and the retired rows */
	struct retired_rows *retired;	   /* rows of exited processes, out of the counts map */
	bool to_move;			   /* processes retired since the last read */
	uint64_t moves;			   /* move_retired() calls */
	collector_portable_fn portable_fn; /* NULL: the walks of retired rows stay as they are */
	void *portable_ctx;
	uint64_t swept_at; /* pace__now() of the last collector__sweep() read */
	bool no_batch;	   /* the kernel refused batch lookup once: go key by key from then on */
	struct fl_row *rows;
	size_t nrows;
	struct collector_end *ends;   /* by the stack's hash; a stack 0 is an empty slot */
	size_t nends, ends_cap;	      /* ends_cap: 0 or a power of two */
	struct collector_hist *hists; /* sorted by key */
	size_t nhists;
	size_t hists_cap;
	struct collector_gen *gens; /* at the last read, retired processes' kept: by tgid */
	size_t ngens, gens_cap;
	struct collector_gen *kept; /* the last of each retired process */
	size_t nkept, kept_cap;
	/* the live table's walks (collector_alloc.c, livewalk.h) and what the last one found */
	enum collector_walk walk; /* what the next reads do */
	struct pace pace;
	bool walked;	 /* the last read walked */
	bool walk_stale; /* an exec id moved under the last walk: its drops may be wrong */
	struct livewalk_age *ages; /* the oldest live block of each row, sorted by row */
	size_t nages, ages_cap;
	struct collector_gen *walk_gens; /* the exec ids the drops were told apart by, by tgid */
	size_t nwalk_gens, walk_gens_cap;
	struct collector_drop *drops; /* the live blocks execs left behind, merged by row */
	size_t ndrops, drops_cap;
	/* processes gone: the live blocks of their last image go at the next walk */
	struct collector_gone *gone; /* sorted by tgid at each walk */
	size_t ngone, gone_cap;
	struct fl_live_key *doomed; /* ... the keys that walk found */
	size_t ndoomed, doomed_cap;
	struct window_base *windows; /* --every: the rows as the window began; NULL: none */
};

/* A process gone, and when it was found gone (CLOCK_MONOTONIC ns, as the live blocks' times):
 * its blocks are all older (a new process with its pid has newer ones). */
struct collector_gone {
	uint32_t tgid;
	uint32_t gen; /* the exec id of its last image's blocks; 0: every block of it */
	uint64_t before;
};

/* Calls @fn on every entry of map @fd: bulk lookup, or key by key on kernels without batch
 * lookup for hash maps (then *@no_batch is set for the next time). Stops early when @fn
 * returns non-zero. Returns 0 or -errno. */
int collector_map_each(int fd, size_t ksz, size_t vsz, bool *no_batch,
		       int (*fn)(const void *key, const void *value, void *ctx), void *ctx);

/* Deletes the @n keys of @ksz bytes at @keys from map @fd (-1: none): in one batch, or key by
 * key where the kernel has no batch for hash maps. A key that is gone already is skipped. */
void collector_delete_keys(int fd, const void *keys, size_t n, size_t ksz);

/*
 * Moves the rows of retired processes (of those read into c->rows) out of the counts map, and
 * their stacks out of the stacks map, into the retired rows; the rows left in c->rows are the
 * living's. Returns 0 or -errno (-ENOMEM: they stay, to be moved at the next read).
 */
int collector_move_retired(struct collector *c);

/* Orders struct fl_key (or what starts with one) byte by byte, as the rows are sorted. */
int collector_cmp_key(const void *a, const void *b);

/* Reads the allocator maps (when set) after the rows: histograms, and when a walk is due
 * (collector__set_walk()) the live table for the oldest live blocks and the exec drops, which
 * are charged to their rows at every read. Returns 0 or -errno. */
int collector_alloc__read(struct collector *c);
void collector_alloc__free(struct collector *c);

#endif /* FAULTLINE_COLLECTOR_STATE_H */
