/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The largest programs (each walks user stacks: 10-15 ms of verification apiece) loaded in two
 * more instances of the object, beside each other on two threads, once the main instance has
 * made every map: they share its maps, and a load verifies its programs one after another.
 * Start-up to probes live gains what the two verify at once.
 */
#ifndef FAULTLINE_SIDELOAD_H
#define FAULTLINE_SIDELOAD_H

#include <bpf/libbpf.h>

struct faultline;

#define SIDE_LOADS 2

/*
 * Opens the side instances with @opts and moves the walkers @main would load into them (each
 * program keeps its expected attach type); the allocator programs go together into the first.
 * @side[i] is NULL where an instance would load nothing. Returns 0 or -errno.
 */
int sideload__open(struct faultline *main, struct faultline *side[SIDE_LOADS],
		   const struct bpf_object_open_opts *opts);

/* Loads the side instances, after @main is loaded, with its maps: at once, on two threads.
 * Returns 0 or the first -errno. */
int sideload__load(struct faultline *main, struct faultline *side[SIDE_LOADS]);

#endif /* FAULTLINE_SIDELOAD_H */
