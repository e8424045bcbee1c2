/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The symbolizer against binaries built here at test time (PIE, non-PIE, a shared library,
 * stripped ones with debug files), run for real so that the loader picks the layout, and named
 * both live and from a rewritten copy of their maps under a root directory.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit/scratch.h"
#include "symbols/demangle.h"
#include "symbols/procmaps.h"
#include "symbols/elfsyms.h"
#include "symbols/symbolizer.h"

/* What the target prints, in this order, then it waits for its stdin to close. */
enum { A_ALPHA, A_BETA, A_CXX, A_RODATA, A_DATA, A_RELRO, A_LIB_LOCAL, A_LIB_GLOBAL, A__COUNT };

static const char prog_src[] =
	"#include <stdio.h>\n"
	"#include <unistd.h>\n"
	"const char fl_rodata[64] = \"faultline rodata\";\n"
	"int fl_data[4] = { 1, 2, 3, 4 };\n"
	"int *const fl_relro = &fl_data[2];\n"
	"__attribute__((noinline)) int fl_alpha(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) static int fl_beta(int x) { return x ^ 0x55; }\n"
	"int fl_cxx(int x) __asm__(\"_ZN2fl5alphaEi\");\n"
	"__attribute__((noinline)) int fl_cxx(int x) { return x + 7; }\n"
	"#ifdef WITH_LIB\n"
	"void *fl_lib_local_addr(void);\n"
	"int fl_lib_global(int x);\n"
	"#endif\n"
	"int main(void)\n{\n\tchar c;\n"
	"\tprintf(\"%p %p %p %p %p %p\", (void *)fl_alpha, (void *)fl_beta, (void *)fl_cxx,\n"
	"\t       (void *)fl_rodata, (void *)&fl_data[1], (void *)&fl_relro);\n"
	"#ifdef WITH_LIB\n"
	"\tprintf(\" %p %p\", fl_lib_local_addr(), (void *)fl_lib_global);\n"
	"#endif\n"
	"\tprintf(\"\\n\");\n\tfflush(stdout);\n"
	"\tif (read(0, &c, 1) < 0)\n\t\treturn 1;\n"
	"\treturn fl_alpha(1) + fl_beta(2) + fl_cxx(3);\n}\n";

static const char lib_src[] =
	"__attribute__((noinline)) static int fl_lib_local(int x) { return x * 5; }\n"
	"int fl_lib_global(int x) { return fl_lib_local(x) + 1; }\n"
	"void *fl_lib_local_addr(void) { return (void *)fl_lib_local; }\n";

struct target {
	pid_t pid;
	int in_fd;
	uint64_t addr[A__COUNT];
};

/* Builds $scratch_dir/lib/libfl.so, and $scratch_dir/bin/@name from prog.c with @flags (and libfl when @lib). */
static void build(const char *name, const char *flags, bool lib)
{
	char path[256];

	scratch_run("mkdir -p %s/bin %s/lib %s/src", scratch_dir, scratch_dir, scratch_dir);
	snprintf(path, sizeof(path), "%s/src/prog.c", scratch_dir);
	scratch_write(path, prog_src);
	if (lib) {
		snprintf(path, sizeof(path), "%s/src/lib.c", scratch_dir);
		scratch_write(path, lib_src);
		scratch_run("cc -O1 -g -fPIC -shared -o %s/lib/libfl.so %s/src/lib.c", scratch_dir, scratch_dir);
		scratch_run("cc -O1 -g %s -DWITH_LIB -o %s/bin/%s %s/src/prog.c -L%s/lib -lfl "
		    "-Wl,-rpath,%s/lib", flags, scratch_dir, name, scratch_dir, scratch_dir, scratch_dir);
	} else {
		scratch_run("cc -O1 -g %s -o %s/bin/%s %s/src/prog.c", flags, scratch_dir, name, scratch_dir);
	}
}

/* The st_value of @sym in @file, from nm. */
static uint64_t nm_addr(const char *file, const char *sym)
{
	char cmd[512], line[512], name[256], type;
	unsigned long long v;
	uint64_t found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -a '%s'", file);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx %c %255s", &v, &type, name) == 3 && !strcmp(name, sym))
			found = v;
	}
	pclose(p);
	cr_assert_neq(found, 0, "no %s in %s", sym, file);
	return found;
}

static void start(struct target *t, const char *name)
{
	int in[2], out[2], n = 0;
	char path[256], line[512];
	unsigned long long a[A__COUNT] = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "%s/bin/%s", scratch_dir, name);
	/* close-on-exec, or the target keeps its own stdin open and never sees EOF */
	cr_assert_eq(pipe2(in, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	t->pid = fork();
	cr_assert_geq(t->pid, 0);
	if (!t->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	t->in_fd = in[1];
	f = fdopen(out[0], "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof(line), f), "%s printed nothing", path);
	fclose(f);
	n = sscanf(line, "%llx %llx %llx %llx %llx %llx %llx %llx", &a[0], &a[1], &a[2], &a[3],
		   &a[4], &a[5], &a[6], &a[7]);
	cr_assert_geq(n, A_LIB_LOCAL, "bad line from %s: %s", path, line);
	for (n = 0; n < A__COUNT; n++)
		t->addr[n] = a[n];
}

static void stop(struct target *t)
{
	close(t->in_fd);
	cr_assert_eq(waitpid(t->pid, NULL, 0), t->pid);
}

static void expect_name(struct symbolizer *s, uint64_t addr, const char *want)
{
	char buf[256];

	symbolizer__name(s, addr, buf, sizeof(buf));
	cr_expect_str_eq(buf, want, "at %#" PRIx64 ": got %s, want %s", addr, buf, want);
}

static void expect_program_names(struct symbolizer *s, const uint64_t *addr, bool lib)
{
	expect_name(s, addr[A_ALPHA], "fl_alpha");
	expect_name(s, addr[A_ALPHA] + 1, "fl_alpha");
	expect_name(s, addr[A_BETA], "fl_beta");
	expect_name(s, addr[A_CXX], "fl::alpha(int)");
	if (!lib)
		return;
	expect_name(s, addr[A_LIB_LOCAL], "fl_lib_local");
	if (addr[A_LIB_GLOBAL])
		expect_name(s, addr[A_LIB_GLOBAL], "fl_lib_global");
}

/* "@module+0x@off" */
static void expect_offset(struct symbolizer *s, uint64_t addr, const char *module, uint64_t off)
{
	char want[256];

	snprintf(want, sizeof(want), "%s+0x%" PRIx64, module, off);
	expect_name(s, addr, want);
}

TestSuite(symbolizer, .init = scratch_setup, .fini = scratch_teardown, .timeout = 60);

/* Non-PIE and PIE executables, with and without code on separate pages, live and after exit. */
Test(symbolizer, live_layouts)
{
	static const struct {
		const char *flags;
		int type;
	} layouts[] = {
		{ "-fPIE -pie", ET_DYN },
		{ "-fno-pie -no-pie", ET_EXEC },
		{ "-fPIE -pie -Wl,-z,noseparate-code", ET_DYN },
		{ "-fno-pie -no-pie -Wl,-z,noseparate-code", ET_EXEC },
	};
	struct elf_cache *cache = elf_cache__new();
	char name[16], path[256];
	size_t i;

	cr_assert_not_null(cache);
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		struct elfsyms *e;
		struct symbolizer *s;
		struct target t;
		uint64_t alpha;

		snprintf(name, sizeof(name), "prog%zu", i);
		snprintf(path, sizeof(path), "%s/bin/%s", scratch_dir, name);
		build(name, layouts[i].flags, true);
		cr_assert_eq(elfsyms__load(AT_FDCWD, path, NULL, &e), 0);
		cr_expect_eq(elfsyms__type(e), layouts[i].type, "%s", layouts[i].flags);
		elfsyms__free(e);
		alpha = nm_addr(path, "fl_alpha");

		start(&t, name);
		if (layouts[i].type == ET_EXEC)
			cr_expect_eq(t.addr[A_ALPHA], alpha, "non-PIE code moved");
		else
			cr_expect_neq(t.addr[A_ALPHA], alpha, "PIE not relocated");
		s = symbolizer__new(cache, t.pid);
		cr_assert_not_null(s, "%s", strerror(errno));
		if (layouts[i].type == ET_EXEC) {
			/*
			 * A non-PIE executable taking the address of a library function gets the
			 * canonical address: its own PLT entry, code that no symbol covers.
			 */
			expect_offset(s, t.addr[A_LIB_GLOBAL], name, t.addr[A_LIB_GLOBAL]);
			t.addr[A_LIB_GLOBAL] = 0;
		}
		expect_program_names(s, t.addr, true);
		/* no symbol covers data: module + ELF virtual address */
		expect_offset(s, t.addr[A_RODATA], name, nm_addr(path, "fl_rodata"));
		/* .data: its segment's file offset is not page-aligned */
		expect_offset(s, t.addr[A_DATA], name, nm_addr(path, "fl_data") + sizeof(int));
		/* PIE .data.rel.ro: without separate code, its page is also in the text segment */
		expect_offset(s, t.addr[A_RELRO], name, nm_addr(path, "fl_relro"));
		stop(&t);
		/* the target is gone: the snapshot still names, refresh keeps it */
		expect_program_names(s, t.addr, true);
		cr_expect_eq(symbolizer__refresh(s), -ESRCH);
		expect_name(s, t.addr[A_BETA], "fl_beta");
		symbolizer__free(s);
	}
	elf_cache__free(cache);
}

/* Every mapping of @file in @pid agrees with @bias; executable and writable ones give it. */
static void expect_bias(pid_t pid, const char *file, uint64_t bias)
{
	struct procmaps m;
	struct elfsyms *e;
	char path[64];
	uint64_t b;
	size_t i, seen = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_eq(procmaps__parse(f, &m), 0);
	fclose(f);
	cr_assert_eq(elfsyms__load(AT_FDCWD, file, NULL, &e), 0);
	for (i = 0; i < m.nr; i++) {
		const struct procmap_entry *me = &m.entries[i];

		if (strcmp(me->path, file) != 0)
			continue;
		seen++;
		cr_expect(elfsyms__bias_fits(e, me->start, me->offset, bias), "%s %#" PRIx64,
			  file, me->start);
		if (!(me->perms & (PROCMAP_EXEC | PROCMAP_WRITE)))
			continue;
		cr_assert_eq(elfsyms__bias(e, me->start, me->offset, me->perms & PROCMAP_EXEC, &b),
			     0);
		cr_expect_eq(b, bias, "%s at %#" PRIx64 ": bias %#" PRIx64 ", want %#" PRIx64, file,
			     me->start, b, bias);
	}
	cr_expect_geq(seen, 2);
	elfsyms__free(e);
	procmaps__free(&m);
}

/* The bias of each mapping, against the one the loader chose (runtime address - nm's). */
Test(symbolizer, bias_per_mapping)
{
	char exe[256], lib[256];
	struct target t;

	build("pie", "-fPIE -pie", true);
	build("nopie", "-fno-pie -no-pie", true);
	snprintf(lib, sizeof(lib), "%s/lib/libfl.so", scratch_dir);
	start(&t, "pie");
	snprintf(exe, sizeof(exe), "%s/bin/pie", scratch_dir);
	expect_bias(t.pid, exe, t.addr[A_ALPHA] - nm_addr(exe, "fl_alpha"));
	expect_bias(t.pid, lib, t.addr[A_LIB_LOCAL] - nm_addr(lib, "fl_lib_local"));
	stop(&t);
	start(&t, "nopie");
	snprintf(exe, sizeof(exe), "%s/bin/nopie", scratch_dir);
	expect_bias(t.pid, exe, 0);
	stop(&t);
}

static char *read_all(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *in = fopen(path, "r"), *out = open_memstream(&buf, &len);
	int c;

	cr_assert_not_null(in, "%s", path);
	cr_assert_not_null(out);
	while ((c = fgetc(in)) != EOF)
		fputc(c, out);
	fclose(in);
	fclose(out);
	return buf;
}

/*
 * Rewrites the lines of @maps that name files under $scratch_dir: the path loses the $scratch_dir prefix, and
 * the range moves by @delta_bin for bin/ files and @delta_lib for lib/ files; other lines go.
 */
static FILE *rewrite_maps(const char *maps, uint64_t delta_bin, uint64_t delta_lib)
{
	FILE *out = tmpfile();
	const char *line = maps, *nl, *p;
	size_t tl = strlen(scratch_dir);

	cr_assert_not_null(out);
	for (; *line; line = nl + 1) {
		unsigned long long start, end;
		char rest[512];
		int pos;
		uint64_t d;

		nl = strchr(line, '\n');
		cr_assert_not_null(nl);
		p = strstr(line, scratch_dir);
		if (!p || p > nl)
			continue;
		cr_assert_eq(sscanf(line, "%llx-%llx%n", &start, &end, &pos), 2);
		snprintf(rest, sizeof(rest), "%.*s%.*s", (int)(p - line - pos), line + pos,
			 (int)(nl - p - tl), p + tl);
		d = !strncmp(p + tl, "/bin/", 5) ? delta_bin : delta_lib;
		fprintf(out, "%llx-%llx%s\n", start + d, end + d, rest);
	}
	rewind(out);
	return out;
}

/* The same layout at other biases, from a maps text, files under a root directory. */
Test(symbolizer, maps_file_under_root)
{
	const uint64_t dbin = 0x10000000, dlib = 0x7000000000ULL;
	struct elf_cache *cache = elf_cache__new();
	struct symbolizer *s;
	struct target t;
	char path[256], *maps;
	uint64_t moved[A__COUNT];
	FILE *f;
	int i;

	build("pie", "-fPIE -pie", true);
	start(&t, "pie");
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)t.pid);
	maps = read_all(path);
	stop(&t);

	f = rewrite_maps(maps, dbin, dlib);
	s = symbolizer__new_from(cache, f, scratch_dir);
	cr_assert_not_null(s, "%s", strerror(errno));
	fclose(f);
	for (i = 0; i < A__COUNT; i++)
		moved[i] = t.addr[i] + (i >= A_LIB_LOCAL ? dlib : dbin);
	expect_program_names(s, moved, true);
	/* the old place is mapped no more, and nothing can be re-read */
	snprintf(path, sizeof(path), "[unknown]+0x%" PRIx64, t.addr[A_ALPHA]);
	expect_name(s, t.addr[A_ALPHA], path);
	cr_expect_eq(symbolizer__refresh(s), -EOPNOTSUPP);
	symbolizer__free(s);
	elf_cache__free(cache);
	free(maps);
}

/* The object of @s's first code mapping whose path ends in @suffix. */
static const struct elfsyms *code_elf(const struct symbolizer *s, const char *suffix)
{
	struct symbolizer_code code[32];
	size_t n = symbolizer__code(s, code, 32);

	for (size_t i = 0; i < n && i < 32; i++) {
		size_t len = strlen(code[i].path), sl = strlen(suffix);

		if (len >= sl && !strcmp(code[i].path + len - sl, suffix))
			return code[i].elf;
	}
	cr_assert_fail("no code mapping of %s", suffix);
	return NULL;
}

/* A frame the walk wrote as (object, ELF address) is the same in every layout: each process
 * turns it into its own address; a process that maps the object elsewhere, or not, another. */
Test(symbolizer, addr_of_an_object_address_in_each_layout)
{
	const uint64_t dbin = 0x10000000, dlib = 0x7000000000ULL;
	struct elf_cache *cache = elf_cache__new();
	struct symbolizer *moved, *other;
	char path[256], *maps, exe[256], lib[256];
	const struct elfsyms *e_exe, *e_lib;
	uint64_t addr = 0, v_alpha, v_lib;
	struct target t;
	FILE *f;

	build("pie", "-fPIE -pie", true);
	start(&t, "pie");
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)t.pid);
	maps = read_all(path);
	stop(&t);
	snprintf(exe, sizeof(exe), "%s/bin/pie", scratch_dir);
	snprintf(lib, sizeof(lib), "%s/lib/libfl.so", scratch_dir);
	v_alpha = nm_addr(exe, "fl_alpha");
	v_lib = nm_addr(lib, "fl_lib_local");
	f = rewrite_maps(maps, dbin, dlib);
	moved = symbolizer__new_from(cache, f, scratch_dir);
	cr_assert_not_null(moved);
	fclose(f);
	e_exe = code_elf(moved, "/bin/pie");
	e_lib = code_elf(moved, "/lib/libfl.so");
	cr_assert_eq(symbolizer__addr_of(moved, e_exe, v_alpha, &addr), 0);
	cr_expect_eq(addr, t.addr[A_ALPHA] + dbin);
	cr_assert_eq(symbolizer__addr_of(moved, e_lib, v_lib, &addr), 0);
	cr_expect_eq(addr, t.addr[A_LIB_LOCAL] + dlib);
	/* another layout: the same object address is another address */
	f = rewrite_maps(maps, 2 * dbin, dlib);
	other = symbolizer__new_from(cache, f, scratch_dir);
	cr_assert_not_null(other);
	fclose(f);
	cr_assert_eq(symbolizer__addr_of(other, e_exe, v_alpha, &addr), 0);
	cr_expect_eq(addr, t.addr[A_ALPHA] + 2 * dbin);
	/* past the object's code, or an object not mapped: none */
	cr_expect_eq(symbolizer__addr_of(moved, e_exe, 0x7fffffff, &addr), -ENOENT);
	cr_expect_eq(symbolizer__addr_of(moved, NULL, v_alpha, &addr), -ENOENT);
	symbolizer__free(other);
	symbolizer__free(moved);
	elf_cache__free(cache);
	free(maps);
}

/* Builds bin/@name stripped, with its debug file at @debug (relative to $scratch_dir), and a copy
 * bin/@name.full that keeps its symbols. With @link, a .gnu_debuglink names @name.debug. */
static void build_stripped(const char *name, const char *debug, bool link)
{
	char b[256];

	build(name, "-fPIE -pie -Wl,--build-id", false);
	snprintf(b, sizeof(b), "%s/bin/%s", scratch_dir, name);
	scratch_run("cp %s %s.full && cd %s/bin && objcopy --only-keep-debug %s %s.debug && strip %s", b, b,
	    scratch_dir, name, name, name);
	if (link)
		scratch_run("cd %s/bin && objcopy --add-gnu-debuglink=%s.debug %s", scratch_dir, name, name);
	snprintf(b, sizeof(b), "bin/%s.debug", name);
	if (strcmp(b, debug) != 0)
		scratch_run("mkdir -p \"$(dirname %s/%s)\" && mv %s/%s %s/%s", scratch_dir, debug, scratch_dir, b, scratch_dir,
		    debug);
}

/* The build-id in hex, as the .build-id/xx/rest.debug layout spells it. */
static void build_id_hex(const char *file, char *hex, size_t len)
{
	struct elfsyms *e;
	const uint8_t *id;
	size_t n, i;

	cr_assert_eq(elfsyms__load(AT_FDCWD, file, NULL, &e), 0);
	n = elfsyms__build_id(e, &id);
	cr_assert_geq(n, 2);
	cr_assert_lt(2 * n + 1, len);
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	elfsyms__free(e);
}

Test(symbolizer, stripped_build_id)
{
	struct elf_cache *bare = elf_cache__new(), *cache = elf_cache__new();
	char file[256], full[256], dbg[256], hex[160], dir[256];
	struct elfsyms_sym *sym;
	struct symbolizer *s;
	struct target t;
	struct elfsyms *e;

	build_stripped("st", "tmpname.debug", false);
	snprintf(file, sizeof(file), "%s/bin/st", scratch_dir);
	snprintf(full, sizeof(full), "%s/bin/st.full", scratch_dir);
	build_id_hex(file, hex, sizeof(hex));
	snprintf(dbg, sizeof(dbg), "debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	scratch_run("mkdir -p \"$(dirname %s/%s)\" && mv %s/tmpname.debug %s/%s", scratch_dir, dbg, scratch_dir, scratch_dir, dbg);

	cr_assert_eq(elfsyms__load(AT_FDCWD, file, "/nonexistent", &e), 0);
	cr_expect_null(elfsyms__debug_path(e));
	/* no name: the function is known by its start alone, from .eh_frame */
	sym = elfsyms__find(e, nm_addr(full, "fl_beta") + 1);
	cr_expect(sym && !sym->name && sym->addr == nm_addr(full, "fl_beta"),
		  "fl_beta is not one nameless function");
	elfsyms__free(e);
	snprintf(dir, sizeof(dir), "%s/debug", scratch_dir);
	cr_assert_eq(elfsyms__load(AT_FDCWD, file, dir, &e), 0);
	cr_assert_not_null(elfsyms__debug_path(e));
	cr_expect_not_null(strstr(elfsyms__debug_path(e), "/.build-id/"));
	sym = elfsyms__find(e, nm_addr(full, "fl_beta"));
	cr_assert_not_null(sym);
	cr_expect_str_eq(sym->name, "fl_beta");
	elfsyms__free(e);

	cr_assert_eq(elf_cache__set_debug_dir(bare, "/nonexistent"), 0);
	cr_assert_eq(elf_cache__set_debug_dir(cache, dir), 0);
	start(&t, "st");
	s = symbolizer__new(bare, t.pid);
	cr_assert_not_null(s);
	/* no symbols: module + the start of the function (.eh_frame) for every address inside it,
	 * as nm of the unstripped copy says */
	expect_offset(s, t.addr[A_ALPHA], "st", nm_addr(full, "fl_alpha"));
	expect_offset(s, t.addr[A_ALPHA] + 2, "st", nm_addr(full, "fl_alpha"));
	symbolizer__free(s);
	s = symbolizer__new(cache, t.pid);
	cr_assert_not_null(s);
	expect_program_names(s, t.addr, false);
	symbolizer__free(s);
	stop(&t);
	elf_cache__free(bare);
	elf_cache__free(cache);
}

/* The mapping of an address, as pprof gets it: bounds, path, and its file's build-id. */
Test(symbolizer, mapping_and_build_id)
{
	struct elf_cache *cache = elf_cache__new();
	struct symbolizer_mapping m;
	char path[256], hex[160], got[160] = "";
	struct symbolizer *s;
	struct target t;

	build("bid", "-fPIE -pie -Wl,--build-id", false);
	snprintf(path, sizeof(path), "%s/bin/bid", scratch_dir);
	build_id_hex(path, hex, sizeof(hex));
	start(&t, "bid");
	s = symbolizer__new(cache, t.pid);
	cr_assert_not_null(s);
	cr_assert_eq(symbolizer__mapping(s, t.addr[A_ALPHA], &m), 0);
	cr_expect(m.start <= t.addr[A_ALPHA] && t.addr[A_ALPHA] < m.end);
	cr_expect_str_eq(m.path, path);
	cr_assert_not_null(m.build_id);
	for (size_t i = 0; i < m.build_id_len; i++)
		snprintf(got + 2 * i, 3, "%02x", m.build_id[i]);
	cr_expect_str_eq(got, hex);
	/* the data of the same file: the same build-id */
	cr_assert_eq(symbolizer__mapping(s, t.addr[A_DATA], &m), 0);
	cr_expect_str_eq(m.path, path);
	cr_expect_gt(m.build_id_len, 0);
	/* nothing is mapped at page 0 */
	cr_expect_eq(symbolizer__mapping(s, 16, &m), -ENOENT);
	symbolizer__free(s);
	stop(&t);
	elf_cache__free(cache);
}

/* The three places a .gnu_debuglink name is looked for, and a debug file of another build. */
Test(symbolizer, stripped_debuglink)
{
	static const char *const places[] = { "bin/dl.debug", "bin/.debug/dl.debug", NULL };
	char file[256], full[256], dbg[512], prev[512], dir[256];
	struct elfsyms_sym *sym;
	struct elfsyms *e;
	uint64_t beta;
	size_t i;

	build_stripped("dl", "bin/dl.debug", true);
	snprintf(file, sizeof(file), "%s/bin/dl", scratch_dir);
	snprintf(full, sizeof(full), "%s/bin/dl.full", scratch_dir);
	snprintf(dir, sizeof(dir), "%s/debug", scratch_dir);
	beta = nm_addr(full, "fl_beta");
	for (i = 0; i < 3; i++) {
		if (places[i])
			snprintf(dbg, sizeof(dbg), "%s/%s", scratch_dir, places[i]);
		else /* <debug dir>/<directory of the file>/<name> */
			snprintf(dbg, sizeof(dbg), "%s%s/bin/dl.debug", dir, scratch_dir);
		if (i)
			scratch_run("mkdir -p \"$(dirname %s)\" && mv %s %s", dbg, prev, dbg);
		cr_assert_eq(elfsyms__load(AT_FDCWD, file, dir, &e), 0);
		cr_expect_str_eq(elfsyms__debuglink(e), "dl.debug");
		cr_expect_str_eq(elfsyms__debug_path(e) ? elfsyms__debug_path(e) : "", dbg);
		sym = elfsyms__find(e, beta);
		cr_expect(sym && !strcmp(sym->name, "fl_beta"), "place %zu", i);
		elfsyms__free(e);
		strcpy(prev, dbg);
	}
	/* a debug file of another build (another build-id) is refused */
	build("other", "-O0 -fPIE -pie -Wl,--build-id", false);
	scratch_run("objcopy --only-keep-debug %s/bin/other %s", scratch_dir, dbg);
	cr_assert_eq(elfsyms__load(AT_FDCWD, file, dir, &e), 0);
	cr_expect_null(elfsyms__debug_path(e));
	sym = elfsyms__find(e, beta);
	cr_expect(!sym || !sym->name, "named from another build's debug file");
	elfsyms__free(e);
}

/* Mappings that are not ELF files, or not files, or not there. */
Test(symbolizer, offsets_and_unknown)
{
	char text[2048], buf[8];
	struct elf_cache *cache = elf_cache__new();
	struct symbolizer *s;
	FILE *f;

	snprintf(text, sizeof(text),
		 "10000-11000 r-xp 00003000 08:01 77 /no/such/lib.so\n"
		 "20000-22000 r-xp 00001000 08:01 78 /fixtures/maps_mixed.txt\n"
		 "30000-31000 rw-p 00000000 00:00 0 [heap]\n"
		 "40000-41000 r-xp 00000000 00:00 0 \n"
		 "50000-52000 r-xp 00000000 00:00 0 [vdso]\n"
		 "60000-61000 rw-p 00000000 00:00 0 [anon:jit code]\n");
	f = fmemopen(text, strlen(text), "r");
	cr_assert_not_null(f);
	/* the root is the test's directory, so /fixtures/... is a real, non-ELF file */
	s = symbolizer__new_from(cache, f, ".");
	cr_assert_not_null(s, "%s", strerror(errno));
	fclose(f);
	/* unreadable or not ELF: the offset in the file */
	expect_name(s, 0x10010, "lib.so+0x3010");
	expect_name(s, 0x21234, "maps_mixed.txt+0x2234");
	expect_name(s, 0x30008, "[heap]+0x8");
	expect_name(s, 0x40ff0, "[anon]+0xff0");
	expect_name(s, 0x51000, "[vdso]+0x1000");
	expect_name(s, 0x60001, "[anon:jit code]+0x1");
	expect_name(s, 0x11000, "[unknown]+0x11000");
	expect_name(s, 0x0, "[unknown]+0x0");
	expect_name(s, UINT64_MAX, "[unknown]+0xffffffffffffffff");
	/* never empty, whatever the buffer */
	cr_expect_str_eq(symbolizer__name(s, 0x30008, buf, sizeof(buf)), "[heap]+");
	cr_expect_str_eq(symbolizer__name(s, 0x30008, buf, 1), "?");
	cr_expect_str_eq(symbolizer__name(s, 0x30008, NULL, 0), "?");
	cr_expect_eq(symbolizer__nr_refreshes(s), 0);
	symbolizer__free(s);
	symbolizer__free(NULL);
	elf_cache__free(cache);
	elf_cache__free(NULL);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A library loaded after the snapshot is found by one re-read; garbage does not re-read. */
Test(symbolizer, refresh_on_miss_is_rate_limited)
{
	struct elf_cache *cache = elf_cache__new();
	struct symbolizer *s;
	char lib[256];
	unsigned long before;
	void *h, *fn;
	int i;

	build("unused", "", true);
	s = symbolizer__new(cache, getpid());
	cr_assert_not_null(s, "%s", strerror(errno));
	cr_expect_eq(symbolizer__nr_refreshes(s), 0);
	snprintf(lib, sizeof(lib), "%s/lib/libfl.so", scratch_dir);
	h = dlopen(lib, RTLD_NOW);
	cr_assert_not_null(h, "%s", dlerror());
	fn = dlsym(h, "fl_lib_global");
	cr_assert_not_null(fn);
	sleep_ms(150);
	expect_name(s, (uint64_t)(uintptr_t)fn, "fl_lib_global");
	cr_expect_eq(symbolizer__nr_refreshes(s), 1);

	/* an address below mmap_min_addr is never mapped */
	before = symbolizer__nr_refreshes(s);
	for (i = 0; i < 1000; i++)
		expect_name(s, 0x10, "[unknown]+0x10");
	cr_expect_leq(symbolizer__nr_refreshes(s) - before, 1);
	sleep_ms(150);
	before = symbolizer__nr_refreshes(s);
	expect_name(s, 0x10, "[unknown]+0x10");
	cr_expect_eq(symbolizer__nr_refreshes(s), before + 1);
	cr_expect_eq(symbolizer__refresh(s), 0);
	symbolizer__free(s);
	dlclose(h);
	elf_cache__free(cache);
}

/* Files are loaded once for every process that maps them. */
Test(symbolizer, cache_shared_between_processes)
{
	struct elf_cache *cache = elf_cache__new();
	struct symbolizer *a, *b;
	struct target t1, t2;
	size_t files;

	build("pie", "-fPIE -pie", true);
	start(&t1, "pie");
	start(&t2, "pie");
	a = symbolizer__new(cache, t1.pid);
	cr_assert_not_null(a);
	files = elf_cache__nr_files(cache);
	cr_expect_geq(files, 3); /* pie, libfl.so, libc, ld.so */
	b = symbolizer__new(cache, t2.pid);
	cr_assert_not_null(b);
	cr_expect_eq(elf_cache__nr_files(cache), files);
	expect_program_names(a, t1.addr, true);
	expect_program_names(b, t2.addr, true);
	symbolizer__free(a);
	symbolizer__free(b);
	stop(&t1);
	stop(&t2);
	elf_cache__free(cache);
}

/* The pie program run and gone: its symbolizer (detached), its maps as text in *@text. */
static struct symbolizer *exited_pie(struct elf_cache *cache, struct target *t, char **text,
				     size_t *len)
{
	struct symbolizer *live;
	FILE *f;

	build("pie", "-fPIE -pie", true);
	start(t, "pie");
	live = symbolizer__new(cache, t->pid);
	cr_assert_not_null(live);
	f = open_memstream(text, len);
	cr_assert_eq(symbolizer__write_maps(live, f, NULL), 0);
	fclose(f);
	stop(t);
	symbolizer__detach(live);
	return live;
}

/* A process gone: named from the mappings written before (as the BPF side records them at
 * exit), but those that another snapshot's entries overlap. */
Test(symbolizer, offline_after_exit)
{
	struct elf_cache *cache = elf_cache__new();
	struct symbolizer *live, *gone;
	struct procmaps except = { 0 };
	struct target t;
	char *text = NULL, *rest = NULL, line[128];
	size_t len = 0, rlen = 0;
	FILE *f;

	live = exited_pie(cache, &t, &text, &len);
	f = fmemopen(text, len, "r");
	gone = symbolizer__new_offline(cache, f, AT_FDCWD, NULL);
	fclose(f);
	cr_assert_not_null(gone, "%s", strerror(errno));
	expect_program_names(gone, t.addr, true);
	symbolizer__free(gone);

	/* an entry over fl_alpha's page: the snapshot's mapping there is left out */
	snprintf(line, sizeof(line), "%" PRIx64 "-%" PRIx64 " r-xp 00000000 00:00 0 [other]\n",
		 (uint64_t)(t.addr[A_ALPHA] & ~0xfffULL),
		 (uint64_t)((t.addr[A_ALPHA] & ~0xfffULL) + 0x1000));
	f = fmemopen(line, strlen(line), "r");
	cr_assert_eq(procmaps__parse(f, &except), 0);
	fclose(f);
	f = open_memstream(&rest, &rlen);
	cr_assert_eq(symbolizer__write_maps(live, f, &except), 0);
	fclose(f);
	f = fmemopen(rest, rlen, "r");
	gone = symbolizer__new_offline(cache, f, -1, NULL);
	fclose(f);
	cr_assert_not_null(gone);
	cr_expect(!symbolizer__is_code(gone, t.addr[A_ALPHA]));
	expect_name(gone, t.addr[A_LIB_LOCAL], "fl_lib_local");
	symbolizer__free(gone);
	symbolizer__free(live);
	procmaps__free(&except);
	free(text);
	free(rest);
	elf_cache__free(cache);
}

/* A gone child named with its parent's symbolizer at hand: the objects the parent maps alike
 * are not opened again. Here they could not be: the root given is an empty directory. */
Test(symbolizer, offline_like_takes_known_objects)
{
	struct elf_cache *cache = elf_cache__new();
	struct symbolizer *live, *gone;
	char *text = NULL, empty[128], name[256];
	size_t len = 0;
	struct target t;
	int rootfd;
	FILE *f;

	live = exited_pie(cache, &t, &text, &len);
	snprintf(empty, sizeof(empty), "%s/empty", scratch_dir);
	cr_assert_eq(mkdir(empty, 0700), 0);
	rootfd = open(empty, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(rootfd, 0);

	f = fmemopen(text, len, "r");
	gone = symbolizer__new_offline(cache, f, rootfd, NULL);
	fclose(f);
	cr_assert_not_null(gone);
	symbolizer__name(gone, t.addr[A_ALPHA], name, sizeof(name));
	cr_expect_str_neq(name, "fl_alpha", "named without its file: the test proves nothing");
	symbolizer__free(gone);

	f = fmemopen(text, len, "r");
	gone = symbolizer__new_offline(cache, f, rootfd, live);
	fclose(f);
	cr_assert_not_null(gone);
	expect_program_names(gone, t.addr, true);
	symbolizer__free(gone);
	symbolizer__free(live);
	close(rootfd);
	free(text);
	elf_cache__free(cache);
}

Test(symbolizer, no_such_process)
{
	struct elf_cache *cache = elf_cache__new();

	errno = 0;
	cr_expect_null(symbolizer__new(cache, 1073741823));
	cr_expect_eq(errno, ESRCH);
	elf_cache__free(cache);
}

Test(demangle, names)
{
	struct demangler *d = demangler__new();
	char *out;

	cr_assert_not_null(d);
	if (access("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", R_OK) == 0)
		cr_expect(demangler__available(d));
	if (demangler__available(d)) {
		out = demangler__demangle(d, "_ZN2fl5alphaEi");
		cr_expect_str_eq(out, "fl::alpha(int)");
		free(out);
		out = demangler__demangle(d, "_ZNSt6vectorIiSaIiEE9push_backERKi");
		cr_expect_str_eq(out,
				 "std::vector<int, std::allocator<int> >::push_back(int const&)");
		free(out);
	}
	/* not Itanium-mangled, or broken: unchanged */
	out = demangler__demangle(d, "main");
	cr_expect_str_eq(out, "main");
	free(out);
	out = demangler__demangle(d, "_Z!!garbage");
	cr_expect_str_eq(out, "_Z!!garbage");
	free(out);
	out = demangler__demangle(NULL, "_ZN2fl5alphaEi");
	cr_expect_str_eq(out, "_ZN2fl5alphaEi");
	free(out);
	demangler__free(d);
	demangler__free(NULL);
}
