/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The pprof model's records (pprof.h builds them), for the writers of the formats that carry
 * the same model: pprof itself and OTLP profiles (otlp.h). Ids are intern ids: 1..n, 0 none.
 */
#ifndef FAULTLINE_PPROF_MODEL_H
#define FAULTLINE_PPROF_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "base/intern.h"

/* The interned records are all uint64_t, so they compare and hash as plain memory. */
struct fn_rec {
	uint64_t name, file; /* string ids */
};

struct map_rec {
	uint64_t start, limit, offset, file, build_id;
};

/* A Line, and the one after it (the caller it was inlined into): 0 for the last. */
struct line_rec {
	uint64_t function, line, next;
};

struct loc_rec {
	uint64_t pid, address, lines, mapping; /* lines: the first line_rec */
};

struct sample_rec {
	size_t loc_off, nlocs; /* in locs */
	size_t val_off;	       /* in vals, ntypes of them */
	uint64_t thread, pid;  /* string ids */
	uint64_t comm, cgroup; /* string ids, 0: none */
	uint64_t tid;
};

struct value_type {
	uint64_t type, unit; /* string ids */
};

struct pprof {
	struct intern strings; /* string id = intern id; 0 is "" */
	struct intern fns, maps, locs, lines;
	struct value_type *types;
	size_t ntypes, types_cap;
	uint64_t default_type; /* string id of its type */
	int64_t time_ns, duration_ns;
	struct sample_rec *samples;
	size_t nsamples, samples_cap;
	uint64_t *sample_locs;
	size_t nsample_locs, sample_locs_cap;
	int64_t *vals;
	size_t nvals, vals_cap;
	uint64_t key_thread, key_pid, key_tid, key_comm, key_cgroup;
};

/* The string with id @id ("" for 0). */
static inline const char *pprof_string(const struct pprof *p, uint64_t id)
{
	return id ? intern__get(&p->strings, id) : "";
}

#endif /* FAULTLINE_PPROF_MODEL_H */
