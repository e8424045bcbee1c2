// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "collector.h"

struct collector {
	int counts_fd;
	int stacks_fd;
	int threads_fd;
	uint32_t max_rows;
	bool no_batch; /* the kernel refused batch lookup once: go key by key from then on */
	struct fl_row *rows;
	size_t nrows;
	struct fl_key *keys;	     /* batch buffers */
	struct fl_counts *values;
};

struct collector *collector__new(int counts_fd, int stacks_fd, int threads_fd, uint32_t max_rows)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->counts_fd = counts_fd;
	c->stacks_fd = stacks_fd;
	c->threads_fd = threads_fd;
	c->max_rows = max_rows;
	c->rows = calloc(max_rows, sizeof(*c->rows));
	c->keys = calloc(max_rows, sizeof(*c->keys));
	c->values = calloc(max_rows, sizeof(*c->values));
	if (!c->rows || !c->keys || !c->values) {
		collector__free(c);
		return NULL;
	}
	return c;
}

void collector__free(struct collector *c)
{
	if (!c)
		return;
	free(c->rows);
	free(c->keys);
	free(c->values);
	free(c);
}

static int read_batch(struct collector *c)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 count, total = 0, out_batch;
	void *in = NULL;
	int err;

	for (;;) {
		count = c->max_rows - total;
		err = bpf_map_lookup_batch(c->counts_fd, in, &out_batch, c->keys + total,
					   c->values + total, &count, &opts);
		if (err && errno != ENOENT)
			return -errno;
		total += count;
		if (err || total >= c->max_rows)
			break;
		in = &out_batch;
	}
	for (__u32 i = 0; i < total; i++) {
		c->rows[i].key = c->keys[i];
		c->rows[i].counts = c->values[i];
	}
	c->nrows = total;
	return 0;
}

static int read_key_by_key(struct collector *c)
{
	struct fl_key key, next;
	void *prev = NULL;

	c->nrows = 0;
	while (c->nrows < c->max_rows && bpf_map_get_next_key(c->counts_fd, prev, &next) == 0) {
		struct fl_row *r = &c->rows[c->nrows];

		/* a row deleted between the two calls is simply skipped */
		if (bpf_map_lookup_elem(c->counts_fd, &next, &r->counts) == 0) {
			r->key = next;
			c->nrows++;
		}
		key = next;
		prev = &key;
	}
	return 0;
}

int collector__read(struct collector *c)
{
	int err;

	if (!c->no_batch) {
		err = read_batch(c);
		if (err != -EINVAL && err != -ENOTSUP && err != -EOPNOTSUPP)
			return err;
		c->no_batch = true;
	}
	return read_key_by_key(c);
}

const struct fl_row *collector__rows(const struct collector *c, size_t *n)
{
	*n = c->nrows;
	return c->rows;
}

size_t collector__stack(const struct collector *c, uint64_t stack, uint64_t ips[FL_MAX_STACK_DEPTH])
{
	size_t n = 0;

	if (!stack)
		return 0;
	memset(ips, 0, FL_MAX_STACK_DEPTH * sizeof(ips[0]));
	if (bpf_map_lookup_elem(c->stacks_fd, &stack, ips))
		return 0;
	while (n < FL_MAX_STACK_DEPTH && ips[n])
		n++;
	return n;
}

int collector__thread(const struct collector *c, uint32_t tid, struct fl_thread *out)
{
	return bpf_map_lookup_elem(c->threads_fd, &tid, out) ? -ENOENT : 0;
}
