/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/procfs.h"
#include "symbols/buildid.h"
#include "symbols/debugfile.h"
#include "symbols/dwarf.h"
#include "symbols/ehframe.h"
#include "symbols/elfsyms.h"
#include "symbols/minidebug.h"

struct elfsyms_seg {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
	uint32_t flags;
};

struct elfsyms {
	int type;
	struct elfsyms_sym *syms;
	size_t nr_syms;
	size_t cap_syms;
	struct elfsyms_seg *segs;
	size_t nr_segs;
	uint8_t build_id[ELFSYMS_MAX_BUILD_ID];
	size_t build_id_len;
	char *debuglink;
	char *debug_path;
	struct dwarfinfo *dwarf; /* the file's own DWARF, else its debug file's; NULL: none */
	bool symtab;		 /* a .symtab (the file's, its debug file's or MiniDebugInfo's) */
	bool own_dwarf;		 /* the file has a .debug_info section */
	bool no_dwarf;		 /* DWARF is not wanted: @dwarf stays NULL */
};

static int push_sym(struct elfsyms *e, const GElf_Sym *sym, const char *name)
{
	struct elfsyms_sym *s = grow__reserve(e->syms, &e->cap_syms, e->nr_syms, sizeof(*s));

	if (!s)
		return -ENOMEM;
	e->syms = s;
	s = &e->syms[e->nr_syms];
	s->name = name ? strdup(name) : NULL;
	if (name && !s->name)
		return -ENOMEM;
	s->addr = sym->st_value;
	s->size = sym->st_size;
	s->demangled = NULL;
	s->bind = GELF_ST_BIND(sym->st_info);
	e->nr_syms++;
	return 0;
}

/* True for a symbol without a size that labels code: an assembly entry point. */
static bool is_code_label(Elf *elf, const GElf_Sym *sym, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);
	GElf_Shdr sh;
	Elf_Scn *scn;

	/* FUNC without a size (crt's _init, _fini): see collect_syms() */
	if (sym->st_size || type != STT_NOTYPE || sym->st_shndx >= SHN_LORESERVE ||
	    name[0] == '.' || name[0] == '$')
		return false;
	scn = elf_getscn(elf, sym->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* Appends the sized function symbols, and the sizeless code labels, of every section of type
 * @sh_type; counts them in @added. */
static int collect_syms(Elf *elf, Elf64_Word sh_type, struct elfsyms *e, size_t *added)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	*added = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;
			int type;

			if (!gelf_getsym(data, i, &sym))
				break;
			type = GELF_ST_TYPE(sym.st_info);
			if (sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !name[0])
				continue;
			/* a function without a size (crt's _init, the signal trampoline
			 * __restore_rt) holds its first byte at least: a signal handler returns
			 * there */
			if (type == STT_FUNC && !sym.st_size && sym.st_shndx < SHN_LORESERVE)
				sym.st_size = 1;
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sym.st_size) {
				if (!is_code_label(elf, &sym, name))
					continue;
			}
			err = push_sym(e, &sym, name);
			if (err)
				return err;
			(*added)++;
		}
	}
	return 0;
}

/* Reads the type, PT_LOAD segments, build-id and debuglink name of @elf into @e. */
static int read_meta(Elf *elf, struct elfsyms *e)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	Elf_Scn *scn = NULL;
	size_t i, nr_ph, shstrndx;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nr_ph))
		return -EIO;
	e->type = eh.e_type;
	e->segs = calloc(nr_ph ? nr_ph : 1, sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (i = 0; i < nr_ph; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		e->segs[e->nr_segs++] = (struct elfsyms_seg){
			.vaddr = ph.p_vaddr,
			.offset = ph.p_offset,
			.filesz = ph.p_filesz,
			.flags = ph.p_flags,
		};
	}
	e->build_id_len = buildid__read(elf, e->build_id, sizeof(e->build_id));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".debug_info"))
			e->own_dwarf = true;
		if (!name || strcmp(name, ".gnu_debuglink") != 0 || e->debuglink)
			continue;
		/* the file name, NUL, padding to 4, then a CRC32 we do not check: build-ids do */
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_size || !memchr(data->d_buf, '\0', data->d_size))
			continue;
		e->debuglink = strdup(data->d_buf);
		if (!e->debuglink)
			return -ENOMEM;
	}
	return 0;
}

/* Takes the .symtab of the debug file open at @fd if it belongs to @arg, the elfsyms being
 * loaded: 1 when it gave symbols, 0 when not usable, or -ENOMEM. */
static int try_debug_fd(int fd, void *arg)
{
	struct elfsyms *e = arg;
	uint8_t id[ELFSYMS_MAX_BUILD_ID];
	size_t id_len, added = 0;
	Elf *elf;
	int err;

	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	if (elf_kind(elf) != ELF_K_ELF)
		goto cleanup;
	id_len = buildid__read(elf, id, sizeof(id));
	if (e->build_id_len && id_len &&
	    (id_len != e->build_id_len || memcmp(id, e->build_id, id_len) != 0))
		goto cleanup;
	err = collect_syms(elf, SHT_SYMTAB, e, &added);
	if (err) {
		elf_end(elf);
		return err;
	}
	e->symtab |= added > 0;
	if (added && !e->dwarf && !e->no_dwarf && dwarfinfo__open(fd, &e->dwarf) == -ENOMEM) {
		elf_end(elf);
		return -ENOMEM;
	}
cleanup:
	elf_end(elf);
	return added > 0;
}

/* The static functions of the MiniDebugInfo of @elf, if it has one. 0 or -ENOMEM. */
static int read_minidebug(Elf *elf, struct elfsyms *e)
{
	size_t len, added = 0;
	Elf *mini = NULL;
	void *buf;
	int err;

	err = minidebug__read(elf, &buf, &len);
	if (err)
		return err == -ENOMEM ? err : 0;
	mini = elf_memory(buf, len);
	if (mini && elf_kind(mini) == ELF_K_ELF)
		err = collect_syms(mini, SHT_SYMTAB, e, &added);
	e->symtab |= added > 0;
	elf_end(mini);
	free(buf);
	return err;
}

static int leading_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

static int bind_rank(uint8_t bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

/* By address; at one address the preferred alias first. */
static int cmp_sym(const void *a, const void *b)
{
	const struct elfsyms_sym *x = a, *y = b;
	int rx, ry;
	size_t lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (!x->size != !y->size) /* a function over a label at its start */
		return x->size ? -1 : 1;
	rx = bind_rank(x->bind);
	ry = bind_rank(y->bind);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	/* a function known by its start alone (x->name NULL) yields to any name */
	if (!x->name || !y->name)
		return !x->name - !y->name;
	rx = leading_underscores(x->name);
	ry = leading_underscores(y->name);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	rx = strcmp(x->name, y->name);
	return rx < 0 ? -1 : rx > 0 ? 1 : 0;
}

static void sort_and_dedup(struct elfsyms *e)
{
	size_t i, out = 0;

	if (!e->nr_syms)
		return;
	qsort(e->syms, e->nr_syms, sizeof(*e->syms), cmp_sym);
	for (i = 1; i < e->nr_syms; i++) {
		if (e->syms[i].addr == e->syms[out].addr) {
			free(e->syms[i].name);
			free(e->syms[i].demangled);
			continue;
		}
		e->syms[++out] = e->syms[i];
	}
	e->nr_syms = out + 1;
}

/*
 * The functions .eh_frame describes, known by their start alone (a NULL name: "object+0xSTART"),
 * for an object without .symtab or a debug file: every return address inside one of its static
 * functions then names the same frame. A symbol at the same start wins (sort_and_dedup()).
 */
static int add_fde_funcs(Elf *elf, struct elfsyms *e)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, n = 0;
	struct ehframe_func *f = NULL;
	int err = 0;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".eh_frame"))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			err = ehframe__funcs(d->d_buf, d->d_size, sh.sh_addr, &f, &n);
		break;
	}
	for (size_t i = 0; i < n && !err; i++) {
		GElf_Sym sym = { .st_value = f[i].start,
				 .st_size = f[i].size,
				 .st_info = GELF_ST_INFO(STB_LOCAL, STT_FUNC) };

		err = push_sym(e, &sym, NULL);
	}
	free(f);
	return err;
}

int elfsyms__load_fd(int fd, int rootfd, const char *path, const char *debug_dir,
		     struct elfsyms **out)
{
	return elfsyms__load_fd_dwarf(fd, rootfd, path, debug_dir, true, out);
}

int elfsyms__load_fd_dwarf(int fd, int rootfd, const char *path, const char *debug_dir, bool dwarf,
			   struct elfsyms **out)
{
	struct elfsyms *e = NULL;
	size_t added;
	Elf *elf;
	int err;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EIO;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto cleanup;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		err = -ENOMEM;
		goto cleanup;
	}
	e->no_dwarf = !dwarf;
	err = read_meta(elf, e);
	if (err)
		goto cleanup;
	err = collect_syms(elf, SHT_SYMTAB, e, &added);
	e->symtab = added > 0;
	if (!err && !added) {
		struct debugfile_query q = {
			.rootfd = rootfd,
			.path = path,
			.debug_dir = debug_dir ? debug_dir : ELFSYMS_DEFAULT_DEBUG_DIR,
			.build_id = e->build_id,
			.build_id_len = e->build_id_len,
			.debuglink = e->debuglink,
		};

		err = debugfile__find(fd, &q, try_debug_fd, e, &e->debug_path);
		err = err < 0 ? err : 0;
		if (!err && !e->debug_path)
			err = read_minidebug(elf, e);
	}
	if (!err && !e->dwarf && dwarf && e->own_dwarf && dwarfinfo__open(fd, &e->dwarf) == -ENOMEM)
		err = -ENOMEM;
	if (!err)
		err = collect_syms(elf, SHT_DYNSYM, e, &added);
	if (!err && !e->symtab && !e->debug_path)
		err = add_fde_funcs(elf, e);
	if (err)
		goto cleanup;
	sort_and_dedup(e);
	*out = e;
	e = NULL;
cleanup:
	elf_end(elf);
	elfsyms__free(e);
	return err;
}

int elfsyms__load(int rootfd, const char *path, const char *debug_dir, struct elfsyms **out)
{
	int fd, err;

	*out = NULL;
	fd = procfs__open_in_root(rootfd, path);
	if (fd < 0)
		return fd;
	err = elfsyms__load_fd(fd, rootfd, path, debug_dir, out);
	close(fd);
	return err;
}

void elfsyms__free(struct elfsyms *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nr_syms; i++) {
		free(e->syms[i].name);
		free(e->syms[i].demangled);
	}
	free(e->syms);
	free(e->segs);
	free(e->debuglink);
	free(e->debug_path);
	dwarfinfo__free(e->dwarf);
	free(e);
}

struct elfsyms_sym *elfsyms__find(struct elfsyms *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->nr_syms;
	struct elfsyms_sym *s;

	/* last symbol starting at or below vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &e->syms[lo - 1];
	if (s->size)
		return vaddr - s->addr < s->size ? s : NULL;
	/* a label: unless a function before it holds @vaddr (a label inside a function) */
	for (size_t i = lo - 1, steps = 0; i-- > 0 && steps < 64; steps++) {
		const struct elfsyms_sym *p = &e->syms[i];

		if (p->size && vaddr - p->addr < p->size)
			return &e->syms[i];
		if (p->size)
			break;
	}
	return vaddr - s->addr < ELFSYMS_LABEL_REACH ? s : NULL;
}

int elfsyms__type(const struct elfsyms *e)
{
	return e->type;
}

int elfsyms__bias(const struct elfsyms *e, uint64_t start, uint64_t offset, bool exec,
		  uint64_t *bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	int pass;
	size_t i;

	/*
	 * The loader maps segment s at bias + (p_vaddr & ~page mask) from file offset
	 * p_offset & ~page mask, so a mapping of offset @offset inside s starts at
	 * bias + p_vaddr - (p_offset - offset). Two segments may share a file page when the link
	 * did not separate code; then the executable one is the one an executable mapping holds.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < e->nr_segs; i++) {
			const struct elfsyms_seg *s = &e->segs[i];

			if (!s->filesz || offset < (s->offset & ~(page - 1)) ||
			    offset >= s->offset + s->filesz)
				continue;
			if (pass == 0 && exec != !!(s->flags & PF_X))
				continue;
			/* unsigned wrap-around is intended: p_vaddr - p_offset may be "negative" */
			*bias = start - (s->vaddr - s->offset + offset);
			return 0;
		}
	}
	return -ENOENT;
}

bool elfsyms__bias_fits(const struct elfsyms *e, uint64_t start, uint64_t offset, uint64_t bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t vaddr = start - bias;
	size_t i;

	for (i = 0; i < e->nr_segs; i++) {
		const struct elfsyms_seg *s = &e->segs[i];

		if (vaddr >= (s->vaddr & ~(page - 1)) && vaddr < s->vaddr + s->filesz &&
		    vaddr - offset == s->vaddr - s->offset)
			return true;
	}
	return false;
}

size_t elfsyms__build_id(const struct elfsyms *e, const uint8_t **id)
{
	*id = e->build_id;
	return e->build_id_len;
}

const char *elfsyms__debuglink(const struct elfsyms *e)
{
	return e->debuglink;
}

const char *elfsyms__debug_path(const struct elfsyms *e)
{
	return e->debug_path;
}

struct dwarfinfo *elfsyms__dwarf(const struct elfsyms *e)
{
	return e->dwarf;
}

int elfsyms__add_debug_fd(struct elfsyms *e, int fd, const char *path)
{
	size_t before = e->nr_syms;
	int n;

	if (e->debug_path)
		return 0;
	n = try_debug_fd(fd, e);
	if (n <= 0)
		return n;
	e->debug_path = strdup(path);
	sort_and_dedup(e);
	if (!e->debug_path)
		return -ENOMEM;
	return e->nr_syms != before || e->dwarf || e->symtab ? 1 : 0;
}

int elfsyms__add_funcs(struct elfsyms *e, const struct elfsyms_sym *funcs, size_t n)
{
	GElf_Sym sym = { 0 };
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		sym.st_value = funcs[i].addr;
		sym.st_size = funcs[i].size;
		sym.st_info = GELF_ST_INFO(funcs[i].bind, STT_FUNC);
		err = push_sym(e, &sym, funcs[i].name);
	}
	sort_and_dedup(e);
	return err;
}

bool elfsyms__has_symtab(const struct elfsyms *e)
{
	return e->symtab;
}

bool elfsyms__has_own_dwarf(const struct elfsyms *e)
{
	return e->own_dwarf;
}
