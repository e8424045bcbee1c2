/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The kernel types the BPF object's CO-RE relocations use, cached in a file of their own.
 * libbpf 1.1 parses the whole kernel BTF (5 MB) for them and looks each of the object's types
 * up in it linearly: about 20 ms of every start-up. `bpftool gen min_core_btf` writes the few
 * types the relocations use (3 KB); once made for this kernel (its build-id) and this object
 * (a hash of its bytes), libbpf relocates against that file. It is made in the background once
 * a session's probes are live, so no start-up waits for it; without bpftool every start-up
 * reads the kernel's, as before.
 */
#ifndef FAULTLINE_BTFCACHE_H
#define FAULTLINE_BTFCACHE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BTF_CACHE_DIR "/var/cache/faultline" /* FAULTLINE_CACHE overrides it */

struct btf_cache {
	char path[PATH_MAX]; /* "" when the kernel has no build-id: no cache */
	bool have;	     /* the file is there, and trusted */
};

/* The GNU build-id among the ELF notes @buf (/sys/kernel/notes) into @id (@max bytes): its
 * length, 0 when there is none or the notes are cut. */
size_t btf_cache__kernel_id(const uint8_t *buf, size_t len, uint8_t *id, size_t max);

/* The cache's file name for kernel build-id @kid and object @obj: "KIDHEX-OBJHASH.btf". */
void btf_cache__name(const uint8_t *kid, size_t kidlen, const void *obj, size_t objlen, char *out,
		     size_t len);

/* The cache of the running kernel and object @obj under $FAULTLINE_CACHE/btf: c->path ("" when
 * the kernel has no build-id, or a folder on the way may be written by others), and c->have
 * when the file is there, a regular file of root's (or ours) that no one else may write. */
void btf_cache__find(struct btf_cache *c, const void *obj, size_t objlen);

/* Makes c->path in the background (bpftool in processes of their own, which hold none of
 * faultline's files: its probes go when it ends). Returns 0, -ENOENT without bpftool, or
 * -errno. */
int btf_cache__make(const struct btf_cache *c, const void *obj, size_t objlen);

#endif /* FAULTLINE_BTFCACHE_H */
