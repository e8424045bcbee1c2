/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The names of addresses in a symbolizer's snapshot: the symbol covering each (demangled), or
 * the module and offset, the functions DWARF says are inlined there, and where a function starts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "symbols/dwarf.h"
#include "symbols/elfcache.h"
#include "symbols/elfsyms.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"
#include "symbols/symbolizer_state.h"

/* The demangled name of @sym, computed on first use and kept with the symbol. */
static const char *cache_sym_name(struct elf_cache *cache, struct elfsyms_sym *sym)
{
	if (strncmp(sym->name, "_Z", 2) != 0)
		return sym->name;
	if (!sym->demangled)
		sym->demangled = demangler__demangle(elf_cache__demangler(cache), sym->name);
	return sym->demangled ? sym->demangled : sym->name;
}

static const char *sym_name(struct symbolizer *s, struct elfsyms_sym *sym)
{
	return cache_sym_name(s->cache, sym);
}

const char *symbolizer__object_name(struct elf_cache *cache, struct elfsyms *elf,
				    const char *module, uint64_t vaddr, char *buf, size_t len)
{
	struct elfsyms_sym *sym = elf ? elfsyms__find(elf, vaddr) : NULL;

	if (sym && sym->name)
		snprintf(buf, len, "%s", cache_sym_name(cache, sym));
	else
		snprintf(buf, len, "%s+0x%" PRIx64, module && *module ? module : "[object]",
			 sym ? sym->addr : vaddr);
	return buf;
}

/* The name of @addr in mapping @e (see symbolizer__name); its ELF address in *@vaddr, or 0. */
static const char *name_in(struct symbolizer *s, const struct procmap_entry *e, uint64_t addr,
			   char *buf, size_t len, uint64_t *vaddr)
{
	const struct sym_map *m = &s->mods[e - s->maps.entries];
	const char *module = procmap_entry__basename(e);
	struct elfsyms_sym *sym;
	uint64_t off;

	*vaddr = 0;
	if (!module[0])
		module = "[anon]";
	if (m->elf && m->have_bias) {
		off = *vaddr = addr - m->bias;
		sym = elfsyms__find(m->elf, off);
		if (sym && sym->name) {
			snprintf(buf, len, "%s", sym_name(s, sym));
			return buf;
		}
		/* a function known by its start alone: every address in it has one name */
		if (sym)
			off = sym->addr;
	} else if (procmap_entry__is_file(e)) {
		off = addr - e->start + e->offset;
	} else {
		off = addr - e->start;
	}
	snprintf(buf, len, "%s+0x%" PRIx64, module, off);
	return buf;
}

const char *symbolizer__name(struct symbolizer *s, uint64_t addr, char *buf, size_t len)
{
	const struct procmap_entry *e;
	uint64_t vaddr;

	if (len < 2)
		return "?";
	e = symbolizer_find_entry(s, addr);
	if (!e) {
		snprintf(buf, len, "[unknown]+0x%" PRIx64, addr);
		return buf;
	}
	return name_in(s, e, addr, buf, len, &vaddr);
}

/* @name demangled into @buf of @len. */
static void copy_name(struct symbolizer *s, const char *name, char *buf, size_t len)
{
	char *d = NULL;

	if (!strncmp(name, "_Z", 2))
		d = demangler__demangle(elf_cache__demangler(s->cache), name);
	snprintf(buf, len, "%s", d ? d : name);
	free(d);
}

size_t symbolizer__frames(struct symbolizer *s, uint64_t addr, struct symbolizer_frame *out,
			  size_t max)
{
	struct dwarf_frame df[SYMBOLIZER_MAX_FRAMES];
	const struct procmap_entry *e;
	const struct elfsyms *elf;
	uint64_t vaddr;
	size_t n = 0;

	if (!max)
		return 0;
	max = max < SYMBOLIZER_MAX_FRAMES ? max : SYMBOLIZER_MAX_FRAMES;
	e = symbolizer_find_entry(s, addr);
	if (!e) {
		out[0] = (struct symbolizer_frame){ .line = 0 };
		snprintf(out[0].name, sizeof(out[0].name), "[unknown]+0x%" PRIx64, addr);
		return 1;
	}
	elf = s->mods[e - s->maps.entries].elf;
	name_in(s, e, addr, out[0].name, sizeof(out[0].name), &vaddr);
	if (elf && vaddr)
		n = dwarfinfo__frames(elfsyms__dwarf(elf), vaddr, df, max);
	if (!n) {
		out[0].file = NULL;
		out[0].line = 0;
		return 1;
	}
	/* the function itself keeps its symbol's name (a clone's "foo.cold" included) */
	memmove(out[n - 1].name, out[0].name, sizeof(out[0].name));
	for (size_t i = 0; i < n; i++) {
		if (i < n - 1)
			copy_name(s, df[i].func ? df[i].func : "[inlined]", out[i].name,
				  sizeof(out[i].name));
		out[i].file = df[i].file;
		out[i].line = df[i].line;
	}
	return n;
}

int symbolizer__func_start(struct symbolizer *s, uint64_t addr, uint64_t *start)
{
	const struct procmap_entry *e = procmaps__find(&s->maps, addr);
	const struct sym_map *m;
	struct elfsyms_sym *sym;

	if (!e)
		return -ENOENT;
	m = &s->mods[e - s->maps.entries];
	if (!m->elf || !m->have_bias)
		return -ENOENT;
	sym = elfsyms__find(m->elf, addr - m->bias);
	if (!sym)
		return -ENOENT;
	*start = sym->addr + m->bias;
	return 0;
}
