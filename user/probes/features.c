// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/features.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "probes/attach.h"

static const struct kfeature_info info[KF__COUNT] = {
	[KF_TASK_STORAGE] = { .id = "task_storage",
			      .name = "BPF task storage",
			      .since = "5.11",
			      .legacy = true },
	[KF_CURRENT_TASK_BTF] = { .id = "get_current_task_btf",
				  .name = "bpf_get_current_task_btf",
				  .since = "5.11",
				  .legacy = true },
	[KF_TASK_PT_REGS] = { .id = "task_pt_regs",
			      .name = "bpf_task_pt_regs",
			      .since = "5.15",
			      .legacy = true },
	[KF_LOOP] = { .id = "loop", .name = "bpf_loop", .since = "5.17", .legacy = true },
	[KF_FIND_VMA] = { .id = "find_vma",
			  .name = "bpf_find_vma",
			  .since = "5.17",
			  .legacy = true,
			  .needed_by = KF_USE_MAPPING },
	[KF_HASH_ALLOC] = { .id = "hash_alloc",
			    .name = "hash maps allocated as they fill in tracing programs",
			    .since = "6.1",
			    .legacy = true },
	[KF_RINGBUF] = { .id = "ringbuf", .name = "BPF ring buffers", .since = "5.8" },
	[KF_ATTACH_COOKIE] = { .id = "attach_cookie",
			       .name = "bpf_get_attach_cookie",
			       .since = "5.15",
			       .uses = KF_USE_ALLOC,
			       .legacy = true },
	[KF_RSS_STAT] = { .id = "rss_stat", .name = "the kmem:rss_stat tracepoint", .since = "5.5" },
	[KF_PAGE_FAULT_USER] = { .id = "page_fault_user",
				 .name = "the exceptions:page_fault_user tracepoint",
				 .since = "4.15" },
	[KF_PROCESS_EXEC] = { .id = "sched_process_exec",
			      .name = "the sched:sched_process_exec tracepoint",
			      .since = "3.4" },
	[KF_PROCESS_EXIT] = { .id = "sched_process_exit",
			      .name = "the sched:sched_process_exit tracepoint",
			      .since = "2.6.28" },
	[KF_TASK_RENAME] = { .id = "task_rename",
			     .name = "the task:task_rename tracepoint",
			     .since = "3.14" },
	[KF_PROCESS_FORK] = { .id = "sched_process_fork",
			      .name = "the sched:sched_process_fork tracepoint",
			      .since = "2.6.28",
			      .uses = KF_USE_FORK },
	[KF_CGROUP_ATTACH] = { .id = "cgroup_attach_task",
			       .name = "the cgroup:cgroup_attach_task tracepoint",
			       .since = "4.6",
			       .uses = KF_USE_CGROUP },
	[KF_PAGE_ALLOC] = { .id = "mm_page_alloc",
			    .name = "the kmem:mm_page_alloc tracepoint",
			    .since = "2.6.32",
			    .uses = KF_USE_NEW },
	[KF_SYSCALLS] = { .id = "raw_syscalls",
			  .name = "the raw_syscalls tracepoints",
			  .since = "2.6.33",
			  .uses = KF_USE_SYSCALLS },
	[KF_EXIT_MMAP] = { .id = "exit_mmap",
			   .name = "the mmap:exit_mmap tracepoint",
			   .since = "6.1",
			   .without =
				   "the state of an address space torn down stays until its process is "
				   "gone, and a new one at the same address (a fork or exec storm under -f) "
				   "may start from its counters" },
	[KF_UPROBE_MULTI] = { .id = "uprobe_multi",
			      .name = "uprobe_multi links",
			      .since = "6.6",
			      .uses = KF_USE_ALLOC,
			      .without = "the allocator's probes are perf uprobes, one a function: "
					 "attaching and detaching them take longer" },
	[KF_UPROBE_SESSION] = { .id = "uprobe_session",
				.name = "uprobe sessions",
				.since = "6.13",
				.uses = KF_USE_SAMPLED,
				.without =
					"every allocator call's return is probed, sampled or not" },
	[KF_ITER_TASK_VMA] = { .id = "iter_task_vma",
			       .name = "bpf_iter_task_vma",
			       .since = "6.7",
			       .uses = KF_USE_FORK,
			       .without =
				       "the mappings of a process as it exits are not recorded: the "
				       "stacks of a child gone before faultline read its maps stay "
				       "addresses" },
};

const struct kfeature_info *features__info(enum kfeature f)
{
	return f < KF__COUNT ? &info[f] : NULL;
}

void features__plan(struct kplan *p, uint32_t have, uint32_t uses)
{
	p->have = have;
	p->missing_required = p->missing_optional = 0;
	p->legacy = false;
	for (int f = 0; f < KF__COUNT; f++) {
		if (have & KF_BIT(f) || (info[f].uses && !(info[f].uses & uses)))
			continue;
		if (info[f].without || (info[f].legacy && !(info[f].needed_by & uses)))
			p->missing_optional |= KF_BIT(f);
		else
			p->missing_required |= KF_BIT(f);
		p->legacy |= info[f].legacy;
	}
}

/* The features the legacy programs do without. */
static uint32_t legacy_set(void)
{
	uint32_t set = 0;

	for (int f = 0; f < KF__COUNT; f++)
		set |= info[f].legacy ? KF_BIT(f) : 0;
	return set;
}

/* snprintf() at @at of @buf, past its end too (then only counting). Returns the new end. */
static int append(char *buf, size_t size, int at, const char *fmt, ...)
{
	bool room = at >= 0 && (size_t)at < size;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? buf + at : NULL, room ? size - (size_t)at : 0, fmt, ap);
	va_end(ap);
	return at + (n > 0 ? n : 0);
}

/* "a (Linux 1), b (2) and c (3)" of the features in @set, appended at @at. */
static int list(uint32_t set, char *buf, size_t size, int at)
{
	int n = __builtin_popcount(set), i = 0;

	for (int f = 0; f < KF__COUNT; f++) {
		if (!(set & KF_BIT(f)))
			continue;
		at = append(buf, size, at, "%s%s (%s%s)",
			    !i	       ? "" :
			    i == n - 1 ? " and " :
					 ", ",
			    info[f].name, !i ? "Linux " : "", info[f].since);
		i++;
	}
	return at;
}

/* "5.17" as 517, to compare releases. */
static int release_number(const char *since)
{
	int major = 0, minor = 0;

	sscanf(since, "%d.%d", &major, &minor);
	return major * 100 + minor;
}

int features__refusal(const struct kplan *p, char *buf, size_t size)
{
	int at = snprintf(buf, size, "this kernel (%s) lacks ", p->release[0] ? p->release : "?");
	const char *newest = "?";

	for (int f = 0; f < KF__COUNT; f++)
		if (p->missing_required & KF_BIT(f) &&
		    (newest[0] == '?' || release_number(info[f].since) > release_number(newest)))
			newest = info[f].since;
	at = list(p->missing_required, buf, size, at);
	return append(buf, size, at,
		      ": this session needs Linux %s or later, or a kernel with %s backported",
		      newest, __builtin_popcount(p->missing_required) > 1 ? "these" : "it");
}

int features__describe(const struct kplan *p, char *buf, size_t size)
{
	uint32_t missing = p->missing_required | p->missing_optional;
	int at = snprintf(buf, size, "kernel %s: %s", p->release[0] ? p->release : "?",
			  p->missing_required ? "cannot run" :
			  p->legacy	      ? "legacy programs (" FL_LEGACY_WHAT "), it lacks " :
			  p->missing_optional ? "degraded, it lacks " :
						"every feature faultline uses is there");

	if (p->missing_required)
		at = append(buf, size, at, ", it lacks ");
	return missing ? list(missing, buf, size, at) : at;
}

void features__print(const struct kplan *p)
{
	char line[1024];

	features__describe(p, line, sizeof(line));
	fprintf(stderr, "faultline: %s\n", line);
}

size_t features__missing_ids(const struct kplan *p, const char **ids, size_t max)
{
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int f = 0; f < KF__COUNT && n < max; f++)
			if ((pass ? p->missing_optional : p->missing_required) & KF_BIT(f))
				ids[n++] = info[f].id;
	return n;
}

uint32_t features__uses(const struct tracer_opts *o)
{
	bool regions = o->alloc && !o->alloc_churn && !o->sample_bytes; /* as tracer__load() */

	return (o->alloc ? KF_USE_ALLOC : 0) | (o->map_classes ? KF_USE_MAPPING : 0) |
	       (o->alloc && o->sample_bytes ? KF_USE_SAMPLED : 0) |
	       (o->follow_children || o->scope ? KF_USE_FORK : 0) |
	       (o->scope == FL_SCOPE_CGROUPS ? KF_USE_CGROUP : 0) |
	       (o->new_pages ? KF_USE_NEW : 0) | (o->vm || regions ? KF_USE_SYSCALLS : 0);
}

/* A tracepoint is there when tracefs lists it (raw tracepoints too: both need the event);
 * tracer__load() mounted it. AT_EACCESS: a user with CAP_DAC_READ_SEARCH and not root reads
 * it by that capability, which plain access() drops. */
static bool has_event(const char *event)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events/",
					     "/sys/kernel/debug/tracing/events/" };
	char path[128];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", roots[i], event);
		if (!faccessat(AT_FDCWD, path, F_OK, AT_EACCESS))
			return true;
		if (i == 0 && !faccessat(AT_FDCWD, roots[0], F_OK, AT_EACCESS))
			return false;
	}
	return false;
}

/* libbpf loads a program of two instructions that calls @helper: about 0.1 ms each. */
static bool has_helper(enum bpf_prog_type type, enum bpf_func_id helper)
{
	return libbpf_probe_bpf_helper(type, helper, NULL) == 1;
}

/*
 * The string section of the kernel's BTF (*@len bytes), or NULL when it cannot be read or is
 * not BTF. Names there tell what a kernel can do (a struct of a link type, a value of enum
 * bpf_attach_type, a kfunc): the section alone is read and searched (2-3 MB, about 1 ms),
 * where a parse of the whole BTF took 8 ms of start-up, then made again by the load.
 */
static char *kernel_btf_strings(size_t *len)
{
	int fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	struct btf_header h;
	char *strs = NULL;
	size_t got = 0;
	ssize_t r = 1;

	if (fd < 0)
		return NULL;
	if (pread(fd, &h, sizeof(h), 0) == sizeof(h) && h.magic == BTF_MAGIC &&
	    h.hdr_len >= sizeof(h) && h.str_len)
		strs = malloc(h.str_len);
	while (strs && got < h.str_len && r > 0) { /* sysfs gives a page or so a read */
		r = pread(fd, strs + got, h.str_len - got, (off_t)h.hdr_len + h.str_off + got);
		got += r > 0 ? (size_t)r : 0;
	}
	close(fd);
	if (strs && got < h.str_len) {
		free(strs);
		return NULL;
	}
	*len = got;
	return strs;
}

/* Whether @strs (@len bytes of NUL-terminated names) has @name whole: a type, member or
 * enumerator of that exact name, names none of the other kinds take. */
static bool has_btf_name(const char *strs, size_t len, const char *name)
{
	char pat[128];
	size_t n = strlen(name);

	if (n + 2 > sizeof(pat))
		return false;
	pat[0] = '\0';
	memcpy(pat + 1, name, n + 1);
	return memmem(strs, len, pat, n + 2) != NULL;
}

uint32_t features__probe(uint32_t uses)
{
	static const struct {
		enum kfeature f;
		const char *event;
	} events[] = {
		{ KF_RSS_STAT, "kmem/rss_stat" },
		{ KF_PAGE_FAULT_USER, "exceptions/page_fault_user" },
		{ KF_PROCESS_EXEC, "sched/sched_process_exec" },
		{ KF_PROCESS_EXIT, "sched/sched_process_exit" },
		{ KF_TASK_RENAME, "task/task_rename" },
		{ KF_PROCESS_FORK, "sched/sched_process_fork" },
		{ KF_CGROUP_ATTACH, "cgroup/cgroup_attach_task" },
		{ KF_PAGE_ALLOC, "kmem/mm_page_alloc" },
		{ KF_SYSCALLS, "raw_syscalls/sys_enter" },
		{ KF_EXIT_MMAP, "mmap/exit_mmap" },
	};
	static const struct {
		enum kfeature f;
		const char *name;
	} btf_names[] = {
		/* the allocator that came with them (6.1): before, a tracing program that uses
		 * such a map loads with a kernel warning (the kernel tainted), or not at all (RT
		 * kernels), which no load tells apart */
		{ KF_HASH_ALLOC, "bpf_mem_alloc" },
		{ KF_UPROBE_MULTI, "bpf_uprobe_multi_link" },	   /* a link type's struct */
		{ KF_UPROBE_SESSION, "BPF_TRACE_UPROBE_SESSION" }, /* an attach type */
		{ KF_ITER_TASK_VMA, "bpf_iter_task_vma_new" },	   /* a kfunc */
	};
	const enum bpf_prog_type raw = BPF_PROG_TYPE_RAW_TRACEPOINT;
	uint32_t have = 0;
	bool wanted = false;
	char *strs = NULL;
	size_t len = 0;

	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1)
		have |= KF_BIT(KF_TASK_STORAGE);
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1)
		have |= KF_BIT(KF_RINGBUF);
	if (has_helper(raw, BPF_FUNC_get_current_task_btf))
		have |= KF_BIT(KF_CURRENT_TASK_BTF);
	if (has_helper(raw, BPF_FUNC_task_pt_regs))
		have |= KF_BIT(KF_TASK_PT_REGS);
	if (has_helper(raw, BPF_FUNC_loop))
		have |= KF_BIT(KF_LOOP);
	if (has_helper(raw, BPF_FUNC_find_vma))
		have |= KF_BIT(KF_FIND_VMA);
	/* uprobes are kprobe programs */
	if (has_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie))
		have |= KF_BIT(KF_ATTACH_COOKIE);
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (has_event(events[i].event))
			have |= KF_BIT(events[i].f);
	/* read only when the session uses one; a BTF that cannot be read has none of them (the
	 * load says why) */
	for (size_t i = 0; i < sizeof(btf_names) / sizeof(btf_names[0]); i++)
		wanted |= !info[btf_names[i].f].uses || (info[btf_names[i].f].uses & uses);
	if (wanted)
		strs = kernel_btf_strings(&len);
	for (size_t i = 0; strs && i < sizeof(btf_names) / sizeof(btf_names[0]); i++)
		if (has_btf_name(strs, len, btf_names[i].name))
			have |= KF_BIT(btf_names[i].f);
	free(strs);
	return have;
}

int features__check(struct kplan *p, uint32_t uses)
{
	struct utsname u;
	char line[1024];

	features__plan(p, features__probe(uses), uses);
	if (!uname(&u))
		snprintf(p->release, sizeof(p->release), "%s", u.release);
	if (p->missing_required) {
		features__refusal(p, line, sizeof(line));
		fprintf(stderr, "faultline: %s\n", line);
		return -EOPNOTSUPP;
	}
	if (p->legacy) {
		line[0] = '\0';
		list(p->missing_optional & legacy_set(), line, sizeof(line), 0);
		fprintf(stderr,
			"faultline: note: this kernel lacks %s: faultline runs its legacy "
			"programs: " FL_LEGACY_WHAT "\n",
			line);
	}
	for (int f = 0; f < KF__COUNT; f++)
		if (p->missing_optional & KF_BIT(f) && info[f].without)
			fprintf(stderr, "faultline: note: this kernel lacks %s (Linux %s): %s\n",
				info[f].name, info[f].since, info[f].without);
	return 0;
}

unsigned features__page_shift(void)
{
	long page = sysconf(_SC_PAGESIZE);

	/* a power of two, or 4 KiB when sysconf cannot say */
	return page > 0 && !(page & (page - 1)) ? (unsigned)__builtin_ctzl((unsigned long)page) :
						  12;
}
