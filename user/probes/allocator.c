// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "probes/allocator.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/procfs.h"
#include "symbols/elfsyms.h"

/* Bytes of a function read for decoding: enough for a prologue and for the short bodies that
 * branch into another function (glibc's memalign jumps into malloc). */
#define CODE_MAX 4096

struct alloc_fn_desc {
	const char *name;
	enum fl_alloc_fn fn;
	unsigned regs; /* argument registers the entry program reads */
	bool prefixed; /* a C function: --alloc-prefix applies */
};

/* In order of preference among aliases: the C names first. */
static const struct alloc_fn_desc FUNCS[] = {
	{ "malloc", FL_FN_MALLOC, PLACE_RDI, true },
	{ "calloc", FL_FN_CALLOC, PLACE_RDI | PLACE_RSI, true },
	{ "realloc", FL_FN_REALLOC, PLACE_RDI | PLACE_RSI, true },
	{ "reallocarray", FL_FN_REALLOCARRAY, PLACE_RDI | PLACE_RSI | PLACE_RDX, true },
	{ "posix_memalign", FL_FN_POSIX_MEMALIGN, PLACE_RDI | PLACE_RDX, true },
	{ "aligned_alloc", FL_FN_ALIGNED_ALLOC, PLACE_RSI, true },
	{ "memalign", FL_FN_ALIGNED_ALLOC, PLACE_RSI, true },
	{ "valloc", FL_FN_VALLOC, PLACE_RDI, true },
	{ "pvalloc", FL_FN_VALLOC, PLACE_RDI, true },
	{ "free", FL_FN_FREE, PLACE_RDI, true },
	{ "_Znwm", FL_FN_NEW, PLACE_RDI, false },
	{ "_ZnwmRKSt9nothrow_t", FL_FN_NEW, PLACE_RDI, false },
	{ "_ZnwmSt11align_val_t", FL_FN_NEW, PLACE_RDI, false },
	{ "_ZnwmSt11align_val_tRKSt9nothrow_t", FL_FN_NEW, PLACE_RDI, false },
	{ "_Znam", FL_FN_NEW_ARRAY, PLACE_RDI, false },
	{ "_ZnamRKSt9nothrow_t", FL_FN_NEW_ARRAY, PLACE_RDI, false },
	{ "_ZnamSt11align_val_t", FL_FN_NEW_ARRAY, PLACE_RDI, false },
	{ "_ZnamSt11align_val_tRKSt9nothrow_t", FL_FN_NEW_ARRAY, PLACE_RDI, false },
	{ "_ZdlPv", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdlPvm", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdlPvRKSt9nothrow_t", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdlPvSt11align_val_t", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdlPvmSt11align_val_t", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdlPvSt11align_val_tRKSt9nothrow_t", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdaPv", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdaPvm", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdaPvRKSt9nothrow_t", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdaPvSt11align_val_t", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdaPvmSt11align_val_t", FL_FN_FREE, PLACE_RDI, false },
	{ "_ZdaPvSt11align_val_tRKSt9nothrow_t", FL_FN_FREE, PLACE_RDI, false },
};
#define NFUNCS (sizeof(FUNCS) / sizeof(FUNCS[0]))
_Static_assert(NFUNCS <= ALLOC_MAX_PROBES, "ALLOC_MAX_PROBES too small");

bool alloc_fn__is_free(enum fl_alloc_fn fn)
{
	return fn == FL_FN_FREE;
}

/* An open ELF file: its symbol tables are searched by name. Not elfsyms: that keeps one name
 * per address for the symbolizer (glibc's calloc could be __libc_calloc there), and loads
 * debug files this lookup does not need. */
struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_file__open(struct elf_file *f, int rootfd, const char *path)
{
	f->elf = NULL;
	struct stat st;

	f->fd = procfs__open_in_root(procfs__is_map_file(path) ? AT_FDCWD : rootfd, path);
	if (f->fd < 0)
		return f->fd;
	if (!fstat(f->fd, &st) && S_ISDIR(st.st_mode)) {
		close(f->fd);
		return -EISDIR;
	}
	elf_version(EV_CURRENT);
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		if (f->elf)
			elf_end(f->elf);
		close(f->fd);
		f->elf = NULL;
		return -ENOEXEC;
	}
	return 0;
}

static void elf_file__close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
}

/* A defined function named @name in .symtab or .dynsym: 0 with its address and size. */
/* A function looked up by name: its address and size once found. */
struct sym_want {
	const char *name;
	uint64_t addr, size;
	bool found;
};

static int want_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct sym_want *const *)a)->name,
		      (*(const struct sym_want *const *)b)->name);
}

/* Finds each function of @w (@n of them, at most ALLOC_MAX_PROBES) in one pass over the
 * symbol tables: a pass for each took 3 ms of --alloc's start-up on libc. The first symbol of
 * a name counts. */
static void elf_file__lookup(struct elf_file *f, struct sym_want *w, size_t n)
{
	struct sym_want *sorted[ALLOC_MAX_PROBES], key, *keyp = &key, **hit;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	n = n < ALLOC_MAX_PROBES ? n : ALLOC_MAX_PROBES;
	for (size_t i = 0; i < n; i++)
		sorted[i] = &w[i];
	qsort(sorted, n, sizeof(sorted[0]), want_cmp);
	while ((scn = elf_nextscn(f->elf, scn))) {
		Elf_Data *data;
		size_t nsyms;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		nsyms = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < nsyms; i++) {
			GElf_Sym sym;
			int type;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if (type != STT_FUNC && type != STT_GNU_IFUNC)
				continue;
			key.name = elf_strptr(f->elf, sh.sh_link, sym.st_name);
			hit = key.name ? bsearch(&keyp, sorted, n, sizeof(sorted[0]), want_cmp) :
					 NULL;
			if (!hit || (*hit)->found)
				continue;
			(*hit)->addr = sym.st_value;
			(*hit)->size = sym.st_size;
			(*hit)->found = true;
		}
	}
}

static int elf_file__offset(struct elf_file *f, uint64_t vaddr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(f->elf, &n))
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static bool defines_malloc(int rootfd, const char *path, const char *prefix)
{
	struct sym_want want = { 0 };
	struct elf_file f;
	char name[64];

	if (elf_file__open(&f, rootfd, path))
		return false;
	snprintf(name, sizeof(name), "%smalloc", prefix);
	want.name = name;
	elf_file__lookup(&f, &want, 1);
	elf_file__close(&f);
	return want.found;
}

static bool is_libc(const char *path)
{
	const char *base = strrchr(path, '/');

	return !strncmp(base ? base + 1 : path, "libc.so", 7);
}

int allocator__choose(int rootfd, const char *const *paths, size_t n, const char *prefix)
{
	int libc = -ENOENT;

	for (size_t i = 0; i < n; i++) {
		if (!defines_malloc(rootfd, paths[i], prefix))
			continue;
		if (!is_libc(paths[i]))
			return (int)i;
		if (libc < 0)
			libc = (int)i;
	}
	return libc;
}

/* Reads the function of @p into @code; returns how many bytes. */
static size_t read_code(struct elf_file *f, const struct alloc_probe *p, uint8_t *code)
{
	size_t len = p->size && p->size < CODE_MAX ? p->size : CODE_MAX;
	ssize_t got = pread(f->fd, code, len, (off_t)p->entry_off);

	return got > 0 ? (size_t)got : 0;
}

/* A site past the entry that another probed function branches into would count twice. */
static void refuse_shared_sites(struct elf_file *f, struct alloc_plan *plan)
{
	static uint8_t code[CODE_MAX];
	uint64_t sites[ALLOC_MAX_PROBES];
	size_t nsites = 0;

	/* each function's bytes scanned for a branch to any site past an entry; one that may
	 * is decoded, site by site */
	for (size_t i = 0; i < plan->nprobes; i++) {
		const struct alloc_probe *p = &plan->probes[i];

		if (p->state == ALLOC_PROBE_ATTACH && p->site.offset)
			sites[nsites++] = p->vaddr + p->site.offset;
	}
	qsort(sites, nsites, sizeof(sites[0]), placement__cmp_addr);
	for (size_t j = 0; j < plan->nprobes && nsites; j++) {
		struct alloc_probe *other = &plan->probes[j];
		size_t len;

		if (other->state != ALLOC_PROBE_ATTACH)
			continue;
		len = read_code(f, other, code);
		if (!placement__may_branch_to(code, len, other->vaddr, sites, nsites))
			continue;
		for (size_t i = 0; i < plan->nprobes; i++) {
			struct alloc_probe *p = &plan->probes[i];

			if (i == j || p->state != ALLOC_PROBE_ATTACH || !p->site.offset)
				continue;
			if (placement__branches_to(code, len, other->vaddr,
						   p->vaddr + p->site.offset))
				p->site = (struct probe_site){
					.offset = 0,
					.emulated = false,
					.reason =
						"entry: the later site is a branch target of another "
						"allocator function",
				};
		}
	}
}

/* The probe of plan->probes[plan->nprobes], function @d, found as @w. */
static int plan_one(struct elf_file *f, struct alloc_plan *plan, const struct alloc_fn_desc *d,
		    const struct sym_want *w, unsigned keep)
{
	static uint8_t code[CODE_MAX];
	struct alloc_probe *p = &plan->probes[plan->nprobes++];
	size_t len;
	int err;

	p->fn = d->fn;
	p->vaddr = w->addr;
	p->size = w->size;
	if (!w->found || elf_file__offset(f, p->vaddr, &p->entry_off)) {
		p->state = ALLOC_PROBE_MISSING;
		return 0;
	}
	for (size_t i = 0; i + 1 < plan->nprobes; i++)
		if (plan->probes[i].state == ALLOC_PROBE_ATTACH &&
		    plan->probes[i].vaddr == p->vaddr) {
			p->state = ALLOC_PROBE_ALIAS;
			return 0;
		}
	len = read_code(f, p, code);
	if (len && placement__is_tail_jump(code, len)) {
		p->state = ALLOC_PROBE_TAIL_JUMP;
		return 0;
	}
	err = len ? placement__choose(code, len, p->vaddr, d->regs | keep, &p->site) : -EIO;
	if (err == -EINVAL || err == -EIO)
		p->site = (struct probe_site){ .reason = "entry: code unreadable" };
	else if (err)
		return err;
	return 0;
}

int allocator__plan(int rootfd, const char *path, const char *prefix, unsigned keep,
		    struct alloc_plan *plan)
{
	struct sym_want want[NFUNCS];
	struct elf_file f;
	int err;

	memset(plan, 0, sizeof(*plan));
	snprintf(plan->path, sizeof(plan->path), "%s", path);
	err = elf_file__open(&f, rootfd, path);
	if (err)
		return err;
	for (size_t i = 0; i < NFUNCS; i++) {
		struct alloc_probe *p = &plan->probes[i];

		snprintf(p->symbol, sizeof(p->symbol), "%s%s", FUNCS[i].prefixed ? prefix : "",
			 FUNCS[i].name);
		want[i] = (struct sym_want){ .name = p->symbol };
	}
	elf_file__lookup(&f, want, NFUNCS);
	for (size_t i = 0; i < NFUNCS && !err; i++)
		err = plan_one(&f, plan, &FUNCS[i], &want[i], keep);
	if (!err && plan->probes[0].state != ALLOC_PROBE_ATTACH)
		err = -ENODATA; /* no malloc: not an allocator */
	if (!err)
		refuse_shared_sites(&f, plan);
	elf_file__close(&f);
	return err;
}
