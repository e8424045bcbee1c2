// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * libFuzzer target: ELF symbols, segments and notes (build-id, .gnu_debuglink) as elfsyms.c
 * reads them with libelf, from a file written from the input (a memfd: elfsyms__load_fd takes a
 * descriptor, and libelf maps it). The root is a directory already removed, so the search for a
 * separate debug file finds nothing, whatever the input names. Then every lookup on what was
 * read. Property beyond the sanitizers: a symbol elfsyms__find returns holds the address.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "symbols/cfi.h"
#include "symbols/elfsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1, rootfd = -1;

static void setup(void)
{
	char dir[] = "/tmp/faultline-fuzz-elf-XXXXXX";

	memfd = memfd_create("fuzz.elf", MFD_CLOEXEC);
	if (memfd < 0 || !mkdtemp(dir))
		abort();
	rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || rmdir(dir))
		abort();
}

static void lookups(struct elfsyms *e)
{
	const uint8_t *id;
	uint64_t bias;

	(void)elfsyms__type(e);
	(void)elfsyms__build_id(e, &id);
	(void)elfsyms__debuglink(e);
	(void)elfsyms__debug_path(e);
	for (uint64_t off = 0; off < 0x3000; off += 0x1000) {
		if (!elfsyms__bias(e, 0x555500000000, off, true, &bias))
			(void)elfsyms__bias_fits(e, 0x555500000000, off, bias);
		(void)elfsyms__bias(e, 0x7f0000000000, off, false, &bias);
	}
	(void)elfsyms__find(e, 0);
	(void)elfsyms__find(e, UINT64_MAX);
}

/* find() at addresses taken from the input, where symbol values are: what it returns holds the
 * address (a function within its size, a sizeless label within ELFSYMS_LABEL_REACH), and has a
 * name unless it is a function known by its .eh_frame entry alone (sized, nameless). */
static void check_finds(struct elfsyms *e, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 8 <= size && i < 64 * 8; i += 8) {
		struct elfsyms_sym *s;
		uint64_t a;

		memcpy(&a, data + i, sizeof(a));
		s = elfsyms__find(e, a);
		if (s && (s->addr > a || a - s->addr >= (s->size ?: ELFSYMS_LABEL_REACH) ||
			  (!s->name && !s->size)))
			abort();
	}
}

/* Unwind rows are sorted, one per address, whatever the input. */
static void check_rows(const struct cfi_table *t)
{
	for (size_t i = 1; i < t->n; i++)
		if (t->rows[i - 1].addr >= t->rows[i].addr)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfi_table t;
	struct elfsyms *e;

	if (memfd < 0)
		setup();
	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	/* the input as an ELF file's .eh_frame and .debug_frame, and as an .eh_frame itself */
	if (!cfi__compile_fd(memfd, &t)) {
		check_rows(&t);
		cfi__free(&t);
	}
	if (!cfi__compile(data, size, 0x1000, &t)) {
		check_rows(&t);
		cfi__free(&t);
	}
	if (elfsyms__load_fd(memfd, rootfd, "/fuzz.so", NULL, &e))
		return 0;
	lookups(e);
	check_finds(e, data, size);
	elfsyms__free(e);
	return 0;
}
