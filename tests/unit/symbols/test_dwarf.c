/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Source lines and inlined frames of an -O2 -g binary against binutils' `addr2line -i -f` at
 * every instruction of its functions; MiniDebugInfo built as Fedora builds it; functions known
 * by their start alone. Binaries are built here, none is run.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit/scratch.h"
#include "symbols/dwarf.h"
#include "symbols/elfcache.h"
#include "symbols/elfsyms.h"
#include "symbols/symbolizer.h"

static const char src[] =
	"#include <stdlib.h>\n"
	"static inline __attribute__((always_inline)) int leaf(int x)\n"
	"{\n"
	"\treturn x * 7 + (x >> 3);\n"
	"}\n"
	"static inline __attribute__((always_inline)) int middle(int x)\n"
	"{\n"
	"\tint y = leaf(x) ^ 0x55;\n"
	"\treturn y + leaf(y);\n"
	"}\n"
	"__attribute__((noinline)) static int outer(int x)\n"
	"{\n"
	"\tint s = 0;\n"
	"\tfor (int i = 0; i < x; i++)\n"
	"\t\ts += middle(i + x);\n"
	"\treturn s;\n"
	"}\n"
	"__attribute__((noinline)) int fl_exported(int x)\n"
	"{\n"
	"\treturn outer(x) + middle(x);\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\treturn fl_exported(argc > 1 ? atoi(argv[1]) : 3) & 1;\n"
	"}\n";

/* Writes src to $scratch_dir/prog.c and builds $scratch_dir/@name with @flags. */
static void build(const char *name, const char *flags)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/prog.c", scratch_dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(src, f);
	fclose(f);
	scratch_run("cc %s -o %s/%s %s", flags, scratch_dir, name, path);
}

/* The value and size of function symbol @sym in @file (nm -S), or 0. */
static uint64_t nm_func(const char *file, const char *sym, uint64_t *size)
{
	char cmd[512], line[512], name[256], type;
	unsigned long long v, sz;
	uint64_t found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S '%s'", file);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %llx %c %255s", &v, &sz, &type, name) == 4 &&
		    !strcmp(name, sym)) {
			found = v;
			*size = sz;
		}
	pclose(p);
	return found;
}

/* "basename:line" of a path and line, "?" for line 0, as addr2line prints them. */
static void file_line(char *buf, size_t len, const char *file, unsigned line)
{
	const char *base = file ? strrchr(file, '/') : NULL;

	base = base ? base + 1 : file ? file : "??";
	if (line)
		snprintf(buf, len, "%s:%u", base, line);
	else
		snprintf(buf, len, "%s:?", base);
}

/* addr2line's "path:line (discriminator n)" as "basename:line". */
static void a2l_line(char *buf, size_t len, char *text)
{
	char *sp = strchr(text, ' '), *colon, *slash;

	if (sp)
		*sp = '\0';
	text[strcspn(text, "\n")] = '\0';
	colon = strrchr(text, ':');
	cr_assert_not_null(colon, "addr2line line %s", text);
	*colon = '\0';
	slash = strrchr(text, '/');
	snprintf(buf, len, "%s:%s", slash ? slash + 1 : text, colon[1] == '0' ? "?" : colon + 1);
}

/*
 * Every address of [start, start + size) in @bin: dwarfinfo__frames against
 * `addr2line -a -i -f`, frame by frame (function and basename:line). Returns how many
 * addresses had an inlined frame.
 */
static int compare_range(struct dwarfinfo *d, const char *bin, uint64_t start, uint64_t size)
{
	char cmd[256], line[1024], want[1100], got[256];
	struct dwarf_frame f[16];
	size_t n = 0, k = 0;
	uint64_t addr = 0;
	int inl = 0;
	FILE *in, *p;

	snprintf(cmd, sizeof(cmd), "%s/addrs", scratch_dir);
	in = fopen(cmd, "w");
	cr_assert_not_null(in);
	for (uint64_t a = start; a < start + size; a++)
		fprintf(in, "0x%" PRIx64 "\n", a);
	fclose(in);
	snprintf(cmd, sizeof(cmd), "addr2line -a -i -f -e '%s' < %s/addrs", bin, scratch_dir);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;

		if (!strncmp(line, "0x", 2) && sscanf(line, "%llx", &a) == 1) {
			cr_expect_eq(k, n, "0x%" PRIx64 ": %zu frames, addr2line %zu", addr, n, k);
			addr = a;
			n = dwarfinfo__frames(d, addr, f, 16);
			inl += n > 1;
			k = 0;
			continue;
		}
		line[strcspn(line, "\n")] = '\0';
		cr_assert(k < n, "0x%" PRIx64 ": addr2line has more frames than %zu (%s)", addr, n,
			  line);
		cr_expect_str_eq(f[k].func ? f[k].func : "??", line, "0x%" PRIx64 " frame %zu",
				 addr, k);
		cr_assert_not_null(fgets(line, sizeof(line), p));
		a2l_line(want, sizeof(want), line);
		file_line(got, sizeof(got), f[k].file, f[k].line);
		cr_expect_str_eq(got, want, "0x%" PRIx64 " frame %zu (%s)", addr, k, f[k].func);
		k++;
	}
	cr_expect_eq(k, n, "0x%" PRIx64 ": %zu frames, addr2line %zu", addr, n, k);
	pclose(p);
	return inl;
}

TestSuite(dwarf, .init = scratch_setup, .fini = scratch_teardown, .timeout = 60);

/* Every instruction byte of outer and fl_exported, where leaf and middle are inlined. */
Test(dwarf, inlined_frames_match_addr2line)
{
	const char *funcs[] = { "outer", "fl_exported", "main" };
	struct elfsyms *e;
	char bin[128];
	int inl = 0;

	build("o2", "-O2 -g -fPIE -pie");
	snprintf(bin, sizeof(bin), "%s/o2", scratch_dir);
	cr_assert_eq(elfsyms__load(AT_FDCWD, bin, NULL, &e), 0);
	cr_assert_not_null(elfsyms__dwarf(e));
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		uint64_t size = 0, start = nm_func(bin, funcs[i], &size);

		cr_assert_neq(start, 0, "no %s in %s", funcs[i], bin);
		inl += compare_range(elfsyms__dwarf(e), bin, start, size);
		/* again: answered from what the first pass kept */
		compare_range(elfsyms__dwarf(e), bin, start, size);
	}
	/* the test means nothing unless inlining happened */
	cr_expect_gt(inl, 10, "only %d addresses with inlined frames", inl);
	elfsyms__free(e);
}

static void expect_same_frame(const struct dwarf_frame *got, const struct dwarf_frame *want,
			      uint64_t addr, size_t k)
{
	cr_expect_str_eq(got->func ? got->func : "??", want->func ? want->func : "??",
			 "0x%" PRIx64 " frame %zu", addr, k);
	cr_expect_str_eq(got->file ? got->file : "??", want->file ? want->file : "??",
			 "0x%" PRIx64 " frame %zu", addr, k);
	cr_expect_eq(got->line, want->line, "0x%" PRIx64 " frame %zu", addr, k);
}

/* An address with inlined frames asked with room for one frame, then for all: the one frame
 * kept from the first ask is not taken for all of them; asked with less room again, a prefix.
 * One that no DWARF covers has none, asked again too. */
Test(dwarf, frames_asked_with_less_room)
{
	struct dwarf_frame all[16], again[16], one;
	uint64_t size = 0, start, addr = 0;
	struct elfsyms *e, *fresh;
	char bin[128];
	size_t n = 0;

	build("o2", "-O2 -g -fPIE -pie");
	snprintf(bin, sizeof(bin), "%s/o2", scratch_dir);
	start = nm_func(bin, "outer", &size);
	cr_assert_neq(start, 0, "no outer in %s", bin);
	cr_assert_eq(elfsyms__load(AT_FDCWD, bin, NULL, &e), 0);
	cr_assert_eq(elfsyms__load(AT_FDCWD, bin, NULL, &fresh), 0);
	for (uint64_t a = start; a < start + size && n < 2; a++)
		if ((n = dwarfinfo__frames(elfsyms__dwarf(e), a, all, 16)) >= 2)
			addr = a;
	cr_assert_geq(n, 2, "no inlined frames in outer");

	cr_assert_eq(dwarfinfo__frames(elfsyms__dwarf(fresh), addr, &one, 1), 1);
	expect_same_frame(&one, &all[0], addr, 0);
	cr_assert_eq(dwarfinfo__frames(elfsyms__dwarf(fresh), addr, again, 16), n);
	for (size_t k = 0; k < n; k++)
		expect_same_frame(&again[k], &all[k], addr, k);
	cr_assert_eq(dwarfinfo__frames(elfsyms__dwarf(e), addr, again, 2), 2);
	for (size_t k = 0; k < 2; k++)
		expect_same_frame(&again[k], &all[k], addr, k);
	/* an address no DWARF covers: none, and none again */
	cr_expect_eq(dwarfinfo__frames(elfsyms__dwarf(e), 0x10, again, 16), 0);
	cr_expect_eq(dwarfinfo__frames(elfsyms__dwarf(e), 0x10, again, 16), 0);
	elfsyms__free(fresh);
	elfsyms__free(e);
}

/* A symbolizer of $scratch_dir/@name alone, mapped whole at @base from offset 0 (bias @base). */
static struct symbolizer *map_alone(struct elf_cache *cache, const char *name, uint64_t base)
{
	struct symbolizer *s;
	char maps[256];
	FILE *f;

	snprintf(maps, sizeof(maps), "%" PRIx64 "-%" PRIx64 " r-xp 00000000 00:01 42 /%s\n", base,
		 base + (64 << 20), name);
	f = fmemopen(maps, strlen(maps), "r");
	cr_assert_not_null(f);
	s = symbolizer__new_from(cache, f, scratch_dir);
	cr_assert_not_null(s, "%s", strerror(errno));
	fclose(f);
	return s;
}

static void expect_name(struct symbolizer *s, uint64_t addr, const char *want)
{
	char buf[256];
	const char *got = symbolizer__name(s, addr, buf, sizeof(buf));

	cr_expect_str_eq(got, want, "0x%" PRIx64 ": %s, want %s", addr, got, want);
}

/*
 * Fedora's find-debuginfo.sh (add_minidebug): the function symbols of the debug file that
 * .dynsym lacks, kept in a copy of it without debug sections, xz-compressed into .gnu_debugdata
 * of the stripped binary.
 */
static void build_minidebug(const char *name)
{
	build(name, "-O2 -g -fPIE -pie -rdynamic");
	scratch_run("cd %s && objcopy --only-keep-debug %s %s.debug && strip --strip-all %s && "
	    "nm -D %s --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms && "
	    "nm %s.debug --format=posix --defined-only | "
	    "awk '{ if ($2 == \"T\" || $2 == \"t\") print $1 }' | sort > funcsyms && "
	    "comm -13 dynsyms funcsyms > keep && "
	    "objcopy -S --remove-section .gdb_index --remove-section .comment "
	    "--keep-symbols=keep %s.debug minidbg && xz minidbg && "
	    "objcopy --add-section .gnu_debugdata=minidbg.xz %s",
	    scratch_dir, name, name, name, name, name, name, name);
}

TestSuite(minidebug, .init = scratch_setup, .fini = scratch_teardown, .timeout = 60);

/* The static function outer comes from the MiniDebugInfo, fl_exported from .dynsym. */
Test(minidebug, names_static_functions)
{
	const uint64_t base = 0x555500000000ULL;
	struct elf_cache *cache = elf_cache__new();
	uint64_t outer, exported, size;
	struct symbolizer *s;
	char debug[128];

	build_minidebug("mini");
	snprintf(debug, sizeof(debug), "%s/mini.debug", scratch_dir);
	outer = nm_func(debug, "outer", &size);
	exported = nm_func(debug, "fl_exported", &size);
	cr_assert(outer && exported);
	scratch_run("cd %s && rm mini.debug && objcopy --remove-section .gnu_debugdata mini bare", scratch_dir);

	s = map_alone(cache, "mini", base);
	expect_name(s, base + outer, "outer");
	expect_name(s, base + outer + 3, "outer");
	expect_name(s, base + exported, "fl_exported");
	symbolizer__free(s);

	/* the same binary without its .gnu_debugdata knows outer by an offset only */
	s = map_alone(cache, "bare", base);
	snprintf(debug, sizeof(debug), "bare+0x%" PRIx64, outer);
	expect_name(s, base + outer, debug);
	expect_name(s, base + exported, "fl_exported");
	symbolizer__free(s);
	elf_cache__free(cache);
}

/* A function known by its start alone names every address in it alike; a symbol wins. */
Test(minidebug, functions_known_by_start)
{
	const uint64_t base = 0x555500000000ULL;
	struct elf_cache *cache = elf_cache__new();
	struct elfsyms *e;
	uint64_t outer, size, exported, esize;
	struct symbolizer *s;
	char want[64], path[128];
	int fd;

	build("o2", "-O2 -g -fPIE -pie -rdynamic");
	snprintf(path, sizeof(path), "%s/o2", scratch_dir);
	outer = nm_func(path, "outer", &size);
	exported = nm_func(path, "fl_exported", &esize);
	scratch_run("strip --strip-all %s", path);
	s = map_alone(cache, "o2", base);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(elf_cache__get(cache, fd, AT_FDCWD, path, &e), 0); /* the symbolizer's */
	close(fd);
	{
		struct elfsyms_sym f[] = { { .addr = outer, .size = size },
					   { .addr = exported, .size = esize } };

		cr_assert_eq(elfsyms__add_funcs(e, f, 2), 0);
	}
	snprintf(want, sizeof(want), "o2+0x%" PRIx64, outer);
	expect_name(s, base + outer, want);
	expect_name(s, base + outer + size - 1, want);
	expect_name(s, base + exported + 1, "fl_exported");
	symbolizer__free(s);
	elf_cache__free(cache);
}

/*
 * Sizeless code labels (assembly entry points such as ld.so's _start) name the addresses after
 * them that no function holds; a label inside a sized function does not hide the function.
 */
/* The value of symbol @sym in @file, sized or not (nm), or 0. */
static uint64_t nm_value(const char *file, const char *sym)
{
	char cmd[256], line[256], name[128];
	unsigned long long v;
	uint64_t found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s'", file);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %*c %127s", &v, name) == 2 && !strcmp(name, sym))
			found = v;
	pclose(p);
	return found;
}

Test(minidebug, sizeless_code_labels)
{
	static const char asm_src[] =
		"__asm__(\".text\\n.globl fl_entry_label\\nfl_entry_label:\\n nop\\n nop\\n nop\\n"
		" ret\\n.type fl_sized, @function\\nfl_sized:\\n nop\\nfl_inner_label:\\n nop\\n"
		" nop\\n ret\\n.size fl_sized, .-fl_sized\\n\");\n"
		"int main(void) { return 0; }\n";
	const uint64_t base = 0x555500000000ULL;
	struct elf_cache *cache = elf_cache__new();
	uint64_t entry, inner;
	struct symbolizer *s;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/labels.c", scratch_dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(asm_src, f);
	fclose(f);
	scratch_run("cc -O1 -fPIE -pie -o %s/labels %s", scratch_dir, path);
	snprintf(path, sizeof(path), "%s/labels", scratch_dir);
	entry = nm_value(path, "fl_entry_label");
	inner = nm_value(path, "fl_inner_label");
	cr_assert(entry && inner);
	s = map_alone(cache, "labels", base);
	expect_name(s, base + entry + 2, "fl_entry_label");
	expect_name(s, base + inner + 1, "fl_sized");
	symbolizer__free(s);
	elf_cache__free(cache);
}
