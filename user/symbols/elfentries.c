// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "symbols/elfentries.h"
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include "base/grow.h"

static int add(struct elf_entries *e, uint64_t addr)
{
	uint64_t *v;

	if (!addr || addr == UINT64_MAX) /* unset, or an old fini array's -1 sentinel */
		return 0;
	v = grow__reserve(e->fn, &e->cap, e->n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->fn = v;
	e->fn[e->n++] = addr;
	return 0;
}

bool elf_entries__offset(Elf *elf, uint64_t vaddr, uint64_t len, uint64_t *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || vaddr < ph.p_vaddr ||
		    vaddr - ph.p_vaddr > ph.p_filesz || len > ph.p_filesz - (vaddr - ph.p_vaddr))
			continue;
		*off = ph.p_offset + (vaddr - ph.p_vaddr);
		return true;
	}
	return false;
}

/* The function pointers of an init or fini array at @vaddr, @size bytes. The file holds them
 * as relocated: x86-64's linker writes a relative relocation's addend in place too. */
static int add_array(Elf *elf, struct elf_entries *e, uint64_t vaddr, uint64_t size)
{
	uint64_t off;
	Elf_Data *d;
	int err = 0;

	if (!size || !elf_entries__offset(elf, vaddr, size, &off) ||
	    !(d = elf_getdata_rawchunk(elf, (int64_t)off, size, ELF_T_ADDR)))
		return 0;
	for (size_t i = 0; !err && i < d->d_size / sizeof(GElf_Addr); i++)
		err = add(e, ((const GElf_Addr *)d->d_buf)[i]);
	return err;
}

/* DT_INIT, DT_FINI and the arrays of the dynamic segment. */
static int add_dynamic(Elf *elf, struct elf_entries *e)
{
	uint64_t arr[3] = { 0 }, len[3] = { 0 };
	size_t n;
	GElf_Phdr ph;
	Elf_Data *d = NULL;
	int err = 0;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n && !d; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_DYNAMIC && ph.p_filesz)
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_DYN);
	for (size_t i = 0; d && !err && i < d->d_size / sizeof(GElf_Dyn); i++) {
		const GElf_Dyn *dyn = &((const GElf_Dyn *)d->d_buf)[i];

		switch (dyn->d_tag) {
		case DT_INIT:
		case DT_FINI:
			err = add(e, dyn->d_un.d_ptr);
			break;
		case DT_PREINIT_ARRAY:
			arr[0] = dyn->d_un.d_ptr;
			break;
		case DT_PREINIT_ARRAYSZ:
			len[0] = dyn->d_un.d_val;
			break;
		case DT_INIT_ARRAY:
			arr[1] = dyn->d_un.d_ptr;
			break;
		case DT_INIT_ARRAYSZ:
			len[1] = dyn->d_un.d_val;
			break;
		case DT_FINI_ARRAY:
			arr[2] = dyn->d_un.d_ptr;
			break;
		case DT_FINI_ARRAYSZ:
			len[2] = dyn->d_un.d_val;
			break;
		}
	}
	for (int i = 0; i < 3 && !err; i++)
		err = add_array(elf, e, arr[i], len[i]);
	return err;
}

/* The defined functions of every symbol table. */
static int add_symbols(Elf *elf, struct elf_entries *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	int err = 0;

	while (!err && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; !err && i < sh.sh_size / sh.sh_entsize; i++) {
			unsigned type;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if (type == STT_FUNC || type == STT_GNU_IFUNC)
				err = add(e, sym.st_value);
		}
	}
	return err;
}

int elf_entries__read(Elf *elf, struct elf_entries *out)
{
	GElf_Ehdr eh;
	int err;

	*out = (struct elf_entries){ 0 };
	/* 64-bit only: the dynamic entries and arrays are read as GElf_Dyn and GElf_Addr */
	if (gelf_getclass(elf) != ELFCLASS64 || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return 0;
	out->start = eh.e_entry;
	err = add_dynamic(elf, out);
	if (!err)
		err = add_symbols(elf, out);
	if (err)
		elf_entries__free(out);
	return err;
}

void elf_entries__free(struct elf_entries *e)
{
	free(e->fn);
	*e = (struct elf_entries){ 0 };
}
