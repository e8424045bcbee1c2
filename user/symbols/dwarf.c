// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/*
 * libdw rather than a DWARF reader of our own: DWARF 5 line tables and forms, dwz's
 * supplementary files, compressed sections and split units are each a reader in themselves,
 * and elfutils (the library gdb's and perf's debuginfod client comes from) keeps them right.
 */
#include "symbols/dwarf.h"
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The frames of one address as dwarfinfo__frames() found them, with at most @asked. */
struct memo {
	uint64_t vaddr;
	bool used;
	uint8_t n, asked;
	struct dwarf_frame *frames;
};

struct dwarfinfo {
	Elf *elf;
	Dwarf *dw;
	/*
	 * Addresses named before, by open addressing (grown at half full): each exec'd child of a
	 * storm maps the same files at other addresses, and its stacks would walk the DWARF of
	 * the same code again (300 such children: 31,000 lookups of 250 addresses, 0.2 ms each).
	 */
	struct memo *memo;
	size_t memo_cap, memo_used;
};

int dwarfinfo__open(int fd, struct dwarfinfo **out)
{
	struct dwarfinfo *d;
	int dfd, err = -ENOENT;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	dfd = dup(fd);
	if (dfd < 0) {
		free(d);
		return -errno;
	}
	d->elf = elf_begin(dfd, ELF_C_READ_MMAP, NULL);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF)
		goto cleanup;
	d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!d->dw)
		goto cleanup;
	/* a dwz supplementary file is found now, while libdw can still name our file's path */
	dwarf_getalt(d->dw);
	elf_cntl(d->elf, ELF_C_FDDONE);
	close(dfd);
	*out = d;
	return 0;
cleanup:
	close(dfd);
	dwarfinfo__free(d);
	return err;
}

void dwarfinfo__free(struct dwarfinfo *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->memo_cap; i++)
		free(d->memo[i].frames);
	free(d->memo);
	if (d->dw)
		dwarf_end(d->dw);
	if (d->elf)
		elf_end(d->elf);
	free(d);
}

/* The name of a function DIE, following abstract origins: the linkage name first. */
static const char *die_name(Dwarf_Die *die)
{
	static const int attrs[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name };
	Dwarf_Attribute attr;
	const char *name;

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		name = dwarf_formstring(dwarf_attr_integrate(die, attrs[i], &attr));
		if (name)
			return name;
	}
	return NULL;
}

static bool is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* The name of the first function scope from @scopes[@from] outwards, or NULL. */
static const char *function_from(Dwarf_Die *scopes, int n, int from)
{
	for (int j = from; j < n; j++)
		if (is_function(&scopes[j]))
			return die_name(&scopes[j]);
	return NULL;
}

/* The call site (DW_AT_call_file, DW_AT_call_line) of inlined instance @die into @f. */
static void call_site(Dwarf_Die *die, Dwarf_Files *files, struct dwarf_frame *f)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;

	if (files && !dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &v))
		f->file = dwarf_filesrc(files, v, NULL, NULL);
	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &v))
		f->line = (unsigned)v;
}

/*
 * As elfutils' addr2line -i: the innermost scope's whole chain of parents (dwarf_getscopes_die),
 * each inlined instance in it giving its caller's name and the call's line.
 */
static size_t inlined(Dwarf_Die *cudie, Dwarf_Die *inner, struct dwarf_frame *out, size_t k,
		      size_t max)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Files *files = NULL;
	int n = dwarf_getscopes_die(inner, &scopes);

	if (dwarf_getsrcfiles(cudie, &files, NULL))
		files = NULL;
	for (int i = 0; i < n - 1 && k < max; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		out[k] = (struct dwarf_frame){ .func = function_from(scopes, n, i + 1) };
		call_site(&scopes[i], files, &out[k]);
		k++;
	}
	free(scopes);
	return k;
}

/* The slot of @vaddr among @cap (a power of two) @slots, or the free one where it goes. */
static size_t memo_slot(const struct memo *slots, size_t cap, uint64_t vaddr)
{
	size_t i = (size_t)((vaddr * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);

	while (slots[i].used && slots[i].vaddr != vaddr)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Room for one more address. 0 or -ENOMEM. */
static int memo_reserve(struct dwarfinfo *d)
{
	size_t cap = d->memo_cap ? d->memo_cap * 2 : 1024;
	struct memo *slots;

	if ((d->memo_used + 1) * 2 <= d->memo_cap)
		return 0;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < d->memo_cap; i++)
		if (d->memo[i].used)
			slots[memo_slot(slots, cap, d->memo[i].vaddr)] = d->memo[i];
	free(d->memo);
	d->memo = slots;
	d->memo_cap = cap;
	return 0;
}

/* Keeps the @n frames of @vaddr found with at most @max; nothing when out of memory (the
 * address is looked up again next time). */
static void memo_put(struct dwarfinfo *d, uint64_t vaddr, const struct dwarf_frame *out, size_t n,
		     size_t max)
{
	struct dwarf_frame *frames = NULL;
	struct memo *m;

	if (max > UINT8_MAX || memo_reserve(d))
		return;
	if (n && !(frames = malloc(n * sizeof(*frames))))
		return;
	m = &d->memo[memo_slot(d->memo, d->memo_cap, vaddr)];
	if (m->used)
		free(m->frames);
	else
		d->memo_used++;
	if (n)
		memcpy(frames, out, n * sizeof(*frames));
	*m = (struct memo){ .vaddr = vaddr, .used = true, .n = n, .asked = max, .frames = frames };
}

/* The frames of @vaddr when known, as if found with at most @max; -1 when not known. */
static ssize_t memo_get(const struct dwarfinfo *d, uint64_t vaddr, struct dwarf_frame *out,
			size_t max)
{
	const struct memo *m;

	if (!d->memo_cap)
		return -1;
	m = &d->memo[memo_slot(d->memo, d->memo_cap, vaddr)];
	/* found with fewer frames than asked now, and maybe cut there */
	if (!m->used || (max > m->asked && m->n == m->asked))
		return -1;
	max = m->n < max ? m->n : max;
	if (max) /* none kept (no DWARF covers it): no array either */
		memcpy(out, m->frames, max * sizeof(*out));
	return (ssize_t)max;
}

static size_t lookup(struct dwarfinfo *d, uint64_t vaddr, struct dwarf_frame *out, size_t max)
{
	Dwarf_Die cudie, *scopes = NULL, inner;
	Dwarf_Line *line;
	size_t k = 0;
	int n, lineno;

	if (!dwarf_addrdie(d->dw, vaddr, &cudie))
		return 0;
	out[0] = (struct dwarf_frame){ 0 };
	line = dwarf_getsrc_die(&cudie, vaddr);
	if (line) {
		out[0].file = dwarf_linesrc(line, NULL, NULL);
		if (!dwarf_lineno(line, &lineno) && lineno > 0)
			out[0].line = (unsigned)lineno;
	}
	n = dwarf_getscopes(&cudie, vaddr, &scopes);
	if (n > 0) {
		out[0].func = function_from(scopes, n, 0);
		/* the same DIE again, by offset, for its chain of concrete parents */
		if (dwarf_offdie(d->dw, dwarf_dieoffset(&scopes[0]), &inner))
			k = inlined(&cudie, &inner, out, 1, max);
	}
	free(scopes);
	return k ? k : (out[0].file || out[0].func ? 1 : 0);
}

size_t dwarfinfo__frames(struct dwarfinfo *d, uint64_t vaddr, struct dwarf_frame *out, size_t max)
{
	ssize_t known;
	size_t n;

	if (!d || !max)
		return 0;
	known = memo_get(d, vaddr, out, max);
	if (known >= 0)
		return (size_t)known;
	n = lookup(d, vaddr, out, max);
	memo_put(d, vaddr, out, n, max);
	return n;
}
