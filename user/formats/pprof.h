/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * pprof's format: a gzip-compressed profile.proto (github.com/google/pprof/proto/profile.proto),
 * what `go tool pprof`, Pyroscope and Grafana read. A model is built in memory (sample types,
 * then samples whose frames carry addresses and mappings), then written in one go; strings,
 * functions, mappings and locations are interned as samples come, so the writer only encodes.
 */
#ifndef FAULTLINE_PPROF_H
#define FAULTLINE_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A mapped object as /proc/PID/maps shows it: [start, limit) from @offset of @file. */
struct pprof_mapping {
	uint64_t start;
	uint64_t limit;
	uint64_t offset;
	const char *file;	 /* path, or "[vdso]", "[anon]"...; NULL or "": unknown */
	const uint8_t *build_id; /* GNU build-id bytes, written as lowercase hex; NULL: none */
	size_t build_id_len;
};

/* A source line of a frame: an inlined call, or the function holding the address. */
struct pprof_line {
	const char *name; /* the function (NULL: "[unknown]") */
	const char *file; /* its source file; NULL: unknown (the mapping's file is written) */
	unsigned line;	  /* 0: unknown */
};

/* One frame of a sample. */
struct pprof_frame {
	const char *name; /* the function as faultline names it (NULL: "[unknown]") */
	uint64_t address; /* the code address named; 0 for a pseudo-frame ("[exit]", a thread) */
	uint32_t pid;	  /* whose address space @address is in */
	const struct pprof_mapping *mapping; /* the mapping holding @address; NULL: none */
};

/* The lines of a frame: innermost inlined call first, the function holding the address last
 * (pprof's Line order); @n 0: the one line of the frame's name. */
struct pprof_lines {
	const struct pprof_line *v;
	size_t n;
};

struct pprof;

/* An empty model, or NULL (ENOMEM). */
struct pprof *pprof__new(void);
void pprof__free(struct pprof *p); /* accepts NULL */

/* Adds a sample type ("resident", "bytes"); all of them come before the first sample.
 * Returns its index, -EBUSY once samples exist, or -ENOMEM. */
int pprof__add_type(struct pprof *p, const char *type, const char *unit);
/* The type views show first (default_sample_type): index @i of pprof__add_type. */
void pprof__set_default_type(struct pprof *p, size_t i);
/* Wall-clock start of the profile (ns since the epoch) and its length. */
void pprof__set_time(struct pprof *p, int64_t time_ns, int64_t duration_ns);

/*
 * Adds one sample: @frames leaf first (@n of them, @n >= 1), one value per sample type, and the
 * labels thread=@thread (string), pid=@pid (string) and tid=@tid (number). Frames with an
 * address are one Location per (pid, address, lines, mapping), with a Line per line; pseudo-frames
 * (address 0) one per name. Returns 0, -EINVAL (no frame, or no sample type), or -ENOMEM (nothing added).
 */
int pprof__add_sample(struct pprof *p, const struct pprof_frame *frames, size_t n,
		      const int64_t *values, const char *thread, uint32_t pid, uint32_t tid);

/* The labels of a sample: thread (NULL: none), pid and tid, and its process's comm and
 * cgroup (NULL or "": none), for a store that slices profiles by them. */
struct pprof_labels {
	const char *thread;
	uint32_t pid, tid;
	const char *comm;
	const char *cgroup;
};

/* pprof__add_sample, with the source lines of each frame in @lines (as many as @frames; NULL:
 * none): a frame with an address gets one Line per line, Function.filename its source file;
 * and labels comm and cgroup (strings) besides thread, pid and tid. */
int pprof__add_sample_lines(struct pprof *p, const struct pprof_frame *frames,
			    const struct pprof_lines *lines, size_t n, const int64_t *values,
			    const struct pprof_labels *l);

/* How many sample types the model has, and type @i's name and unit ("resident", "bytes"). */
size_t pprof__nr_types(const struct pprof *p);
void pprof__type(const struct pprof *p, size_t i, const char **type, const char **unit);

/* How many samples, locations and mappings the model holds. */
size_t pprof__nr_samples(const struct pprof *p);
size_t pprof__nr_locations(const struct pprof *p);
size_t pprof__nr_mappings(const struct pprof *p);

/* Writes the gzip-compressed profile to @out and flushes it. The first mapping written is the
 * main binary, as profile.proto asks: the first file mapped that is not a shared library.
 * Returns 0, -ENOMEM, or -errno of the failed write (-EIO when unknown). */
int pprof__write(FILE *out, const struct pprof *p);
/* pprof__write() at zlib's fastest level: for a body sent at every window (gzip.h says why). */
int pprof__write_fast(FILE *out, const struct pprof *p);

#endif /* FAULTLINE_PPROF_H */
