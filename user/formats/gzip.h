/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* A buffer gzip-compressed in memory, for a request body sent with Content-Encoding: gzip. */
#ifndef FAULTLINE_GZIP_H
#define FAULTLINE_GZIP_H

#include <stddef.h>
#include <stdint.h>

/* Compresses @len bytes of @in, at zlib's fastest level (a body is made at every window),
 * into a new buffer *@out (free() it) of *@out_len bytes, with a gzip header and trailer.
 * Returns 0 or -ENOMEM. */
int gzip__compress(const void *in, size_t len, uint8_t **out, size_t *out_len);

#endif /* FAULTLINE_GZIP_H */
