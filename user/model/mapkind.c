// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/mapkind.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[MAPKIND__COUNT] = {
	[MAPKIND_HEAP] = "heap",	   [MAPKIND_ARENA] = "arena",
	[MAPKIND_STACK] = "stack",	   [MAPKIND_THREAD_STACK] = "thread_stack",
	[MAPKIND_ANON] = "anon",	   [MAPKIND_FILE] = "file",
	[MAPKIND_SHMEM] = "shmem",	   [MAPKIND_HUGETLB] = "hugetlb",
	[MAPKIND_NO_ACCESS] = "no_access", [MAPKIND_KERNEL] = "kernel",
};

const char *mapkind__name(enum map_kind k)
{
	return (unsigned)k < MAPKIND__COUNT ? kind_names[k] : "?";
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Anonymous: no name, or one the program gave with PR_SET_VMA_ANON_NAME. */
static bool is_anon(const struct smaps_entry *e)
{
	return !e->name[0] || starts(e->name, "[anon:");
}

static bool on_shmem_dev(const struct smaps_entry *e, const struct map_kind_hints *h)
{
	for (size_t i = 0; e->inode && i < h->nshmem_devs; i++)
		if (h->shmem_devs[i].major == e->dev_major &&
		    h->shmem_devs[i].minor == e->dev_minor)
			return true;
	return false;
}

/* MAP_SHARED|MAP_ANONYMOUS shows as "/dev/zero (deleted)" (or "[anon_shmem:NAME]" once
 * named), SysV segments as "/SYSV<key>", memfds as "/memfd:NAME"; other tmpfs files by their
 * device. */
static bool is_shmem(const struct smaps_entry *e, const struct map_kind_hints *h)
{
	return starts(e->name, "/dev/zero") || starts(e->name, "/SYSV") ||
	       starts(e->name, "/memfd:") || starts(e->name, "/dev/shm/") ||
	       starts(e->name, "[anon_shmem:") || on_shmem_dev(e, h);
}

/* The kind of @e by itself, before its neighbours and the threads are looked at. */
static enum map_kind kind_alone(const struct smaps_entry *e, const struct map_kind_hints *h)
{
	if (e->vm_flags & SMAPS_VM_HUGETLB)
		return MAPKIND_HUGETLB;
	if (!strcmp(e->name, "[heap]"))
		return MAPKIND_HEAP;
	if (!strcmp(e->name, "[stack]") || (e->vm_flags & SMAPS_VM_GROWSDOWN))
		return MAPKIND_STACK;
	if (is_shmem(e, h))
		return MAPKIND_SHMEM;
	if (is_anon(e))
		return e->perms & (SMAPS_READ | SMAPS_WRITE | SMAPS_EXEC) ? MAPKIND_ANON :
									    MAPKIND_NO_ACCESS;
	/* [vdso], [vvar], [vsyscall], [uprobes], and any such the kernel adds */
	if (e->name[0] == '[')
		return MAPKIND_KERNEL;
	return MAPKIND_FILE;
}

static bool is_rw_anon(const struct smaps_entry *e, enum map_kind k)
{
	return k == MAPKIND_ANON && (e->perms & SMAPS_WRITE) && !(e->perms & SMAPS_SHARED);
}

/* glibc names its arenas "[anon: glibc: malloc arena]" when glibc.mem.decorate_maps is on */
static bool may_be_arena(const struct smaps_entry *e, enum map_kind k)
{
	return is_rw_anon(e, k) && (!e->name[0] || strstr(e->name, "malloc arena"));
}

/*
 * glibc's new_heap(): a HEAP_MAX_SIZE-aligned mapping of HEAP_MAX_SIZE, read-write up to the
 * arena's top and PROT_NONE above it (or read-write all through once the arena filled it).
 */
static void find_arenas(const struct smaps *m, struct map_kind_of *out)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct smaps_entry *e = &m->v[i], *next = i + 1 < m->n ? &m->v[i + 1] : NULL;

		if (!may_be_arena(e, out[i].kind) || e->start % MAPKIND_ARENA_SIZE)
			continue;
		if (e->end - e->start == MAPKIND_ARENA_SIZE) {
			out[i].kind = MAPKIND_ARENA;
		} else if (next && next->start == e->end && out[i + 1].kind == MAPKIND_NO_ACCESS &&
			   next->end - e->start == MAPKIND_ARENA_SIZE) {
			out[i].kind = MAPKIND_ARENA;
			out[i + 1].kind = MAPKIND_ARENA;
		}
	}
}

/* The index of the mapping of @m holding @addr, or m->n. */
static size_t find(const struct smaps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < m->v[mid].start)
			hi = mid;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else
			return mid;
	}
	return m->n;
}

/* The guard page right below mapping @i, when there is one: a small PROT_NONE mapping. */
static bool has_guard(const struct smaps *m, size_t i, const struct map_kind_of *out)
{
	const struct smaps_entry *g = i ? &m->v[i - 1] : NULL;

	return g && g->end == m->v[i].start && out[i - 1].kind == MAPKIND_NO_ACCESS &&
	       g->end - g->start <= MAPKIND_GUARD_MAX;
}

static void mark_stack(const struct smaps *m, size_t i, struct map_kind_of *out,
		       const struct thread_sp *t)
{
	out[i].kind = MAPKIND_THREAD_STACK;
	if (t) {
		out[i].tid = t->tid;
		memcpy(out[i].comm, t->comm, sizeof(out[i].comm));
	}
	if (has_guard(m, i, out))
		out[i - 1] = out[i];
}

/* Each thread's stack is the mapping its stack pointer is in; the main thread's, [stack]. */
static void find_thread_stacks(const struct smaps *m, const struct map_kind_hints *h,
			       struct map_kind_of *out)
{
	for (size_t k = 0; k < h->nthreads; k++) {
		const struct thread_sp *t = &h->threads[k];
		size_t i = t->sp ? find(m, t->sp) : m->n;

		if (i == m->n)
			continue;
		if (out[i].kind == MAPKIND_STACK) {
			out[i].tid = t->tid;
			memcpy(out[i].comm, t->comm, sizeof(out[i].comm));
		} else if (is_rw_anon(&m->v[i], out[i].kind)) {
			mark_stack(m, i, out, t);
		}
	}
	/* threads that were running (no stack pointer), and stacks glibc keeps cached for the
	 * next thread: a read-write anonymous mapping right above a guard page */
	for (size_t i = 1; i < m->n; i++)
		if (is_rw_anon(&m->v[i], out[i].kind) && !m->v[i].name[0] && has_guard(m, i, out))
			mark_stack(m, i, out, NULL);
}

void mapkind__classify(const struct smaps *m, const struct map_kind_hints *h,
		       struct map_kind_of *out)
{
	for (size_t i = 0; i < m->n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].kind = kind_alone(&m->v[i], h);
	}
	find_arenas(m, out);
	find_thread_stacks(m, h, out);
}
