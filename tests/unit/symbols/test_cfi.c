/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Unwind rows against binutils' own interpretation of the same call frame instructions
 * (readelf --debug-dump=frames-interp): at every location readelf prints, for every FDE of
 * Debian's libc, of libstdc++ and of an -O2 -fomit-frame-pointer test binary, the row that
 * covers it must say the same of the CFA, of where rbp and rbx were saved and of the return
 * address (ld.so too: its lazy-binding resolver keeps its CFA in rbx).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols/cfi.h"
#include "unit/scratch.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LIBSTDCXX "/lib/x86_64-linux-gnu/libstdc++.so.6"
#define LDSO "/lib64/ld-linux-x86-64.so.2"

#define MAX_CIES 4096

/* What readelf's row says, reduced as cfi.c reduces it; @exp: the CFA is an expression;
 * @rbx_u: readelf's "u" for rbx, which it prints both before any rule and for
 * DW_CFA_undefined (same or lost: either is right). */
struct expect {
	struct fl_unwind_row row;
	bool exp;
	bool rbx_u;
};

static struct expect expect_of(const char *cfa, const char *rbp, const char *rbx, const char *ra,
			       bool signal)
{
	struct expect e = { 0 };
	int off;

	if (signal) {
		e.row.cfa = FL_CFA_SIGNAL;
		return e;
	}
	if (!strcmp(ra, "u")) {
		e.row.cfa = FL_CFA_STOP;
		return e;
	}
	if (strcmp(ra, "c-8"))
		return e; /* INVALID */
	if (sscanf(cfa, "rsp+%d", &off) == 1) {
		e.row.cfa = FL_CFA_RSP;
		e.row.cfa_off = off;
	} else if (sscanf(cfa, "rbp+%d", &off) == 1) {
		e.row.cfa = FL_CFA_RBP;
		e.row.cfa_off = off;
	} else if (sscanf(cfa, "rbx+%d", &off) == 1) {
		e.row.cfa = FL_CFA_RBX;
		e.row.cfa_off = off;
	} else if (!strcmp(cfa, "exp")) {
		e.exp = true;
	} else {
		return e; /* a CFA from another register */
	}
	if (rbp && sscanf(rbp, "c%d", &off) == 1) {
		e.row.rbp = FL_RBP_AT_CFA;
		e.row.rbp_off = (int16_t)off;
	}
	if (rbx && sscanf(rbx, "c%d", &off) == 1) {
		e.row.rbx = FL_RBP_AT_CFA;
		e.row.rbx_off = (int16_t)off;
	} else if (rbx && !strcmp(rbx, "u")) {
		e.rbx_u = true;
	} else if (rbx && strcmp(rbx, "s")) { /* another register's value, an expression */
		e.row.rbx = FL_RBP_LOST;
	}
	return e;
}

static void check_row(const char *path, const struct cfi_table *t, uint64_t loc,
		      const struct expect *e)
{
	const struct fl_unwind_row *r = cfi__find(t, loc);

	cr_assert_not_null(r, "%s: no row at %#" PRIx64, path, loc);
	if (e->exp) { /* an expression: the PLT rule, a dereference, or one we do not follow */
		cr_expect(r->cfa == FL_CFA_PLT || r->cfa == FL_CFA_RSP_DEREF ||
				  r->cfa == FL_CFA_RBP_DEREF || r->cfa == FL_CFA_INVALID,
			  "%s %#" PRIx64 ": an expression, ours is kind %u", path, loc, r->cfa);
		return;
	}
	cr_expect(r->cfa == e->row.cfa, "%s %#" PRIx64 ": CFA kind %u, readelf %u", path, loc,
		  r->cfa, e->row.cfa);
	if (e->row.cfa != FL_CFA_RSP && e->row.cfa != FL_CFA_RBP && e->row.cfa != FL_CFA_RBX)
		return;
	cr_expect(r->cfa_off == e->row.cfa_off && r->rbp == e->row.rbp &&
			  r->rbp_off == e->row.rbp_off &&
			  (e->rbx_u ? r->rbx != FL_RBP_AT_CFA :
				      r->rbx == e->row.rbx && r->rbx_off == e->row.rbx_off),
		  "%s %#" PRIx64 ": cfa+%d rbp %u@%d rbx %u@%d, readelf cfa+%d rbp %u@%d rbx %u@%d",
		  path, loc, r->cfa_off, r->rbp, r->rbp_off, r->rbx, r->rbx_off, e->row.cfa_off,
		  e->row.rbp, e->row.rbp_off, e->row.rbx, e->row.rbx_off);
}

/* The column of @name in readelf's "LOC CFA ..." header line, or -1. */
static int column(char cols[][16], int ncols, const char *name)
{
	for (int i = 0; i < ncols; i++)
		if (!strcmp(cols[i], name))
			return i;
	return -1;
}

/* Every row readelf prints for .eh_frame and .debug_frame of @path, against ours; returns the
 * rows checked. */
static size_t expect_readelf(const char *path)
{
	static struct {
		unsigned long off;
		bool signal;
		struct expect init;
	} cies[MAX_CIES];
	char cmd[512], line[1024], cols[32][16];
	size_t ncies = 0, checked = 0, fdes = 0;
	struct expect fde_init = { 0 };
	uint64_t fde_start = 0, fde_end = 0;
	int ncols = 0, in_cie = -1;
	bool in_eh = false, signal = false, fde_rows = true;
	struct cfi_table t;
	FILE *p;

	cr_assert_eq(cfi__compile_file(path, &t), 0, "%s", path);
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long off, cie;
		uint64_t loc;
		char *pc;

		if (!strncmp(line, "Contents of the ", 16)) {
			in_eh = strstr(line, ".eh_frame section") ||
				strstr(line, ".debug_frame section");
			ncies = 0; /* CIE offsets are the section's own */
		}
		if (!in_eh)
			continue;
		if (strstr(line, " CIE ") && sscanf(line, "%lx", &off) == 1) {
			cr_assert_lt(ncies, MAX_CIES);
			cies[ncies].off = off;
			cies[ncies].signal = !!strstr(line, "S\" cf=");
			in_cie = (int)ncies++;
			continue;
		}
		if (strstr(line, " FDE ") && (pc = strstr(line, "pc="))) {
			if (!fde_rows && fde_end > fde_start) /* readelf printed none: the CIE's */
				check_row(path, &t, fde_start, &fde_init), checked++;
			cr_assert_eq(sscanf(strstr(line, "cie="), "cie=%lx", &cie), 1, "%s", line);
			cr_assert_eq(sscanf(pc, "pc=%" SCNx64 "..%" SCNx64, &fde_start, &fde_end),
				     2);
			in_cie = -1;
			signal = false;
			fde_init = (struct expect){ 0 };
			for (size_t i = 0; i < ncies; i++)
				if (cies[i].off == cie) {
					signal = cies[i].signal;
					fde_init = cies[i].init;
				}
			fde_rows = false;
			fdes++;
			continue;
		}
		if (strstr(line, "   LOC ")) {
			char *tok = strtok(line, " \n");

			for (ncols = 0; tok && ncols < 32; tok = strtok(NULL, " \n"))
				snprintf(cols[ncols++], sizeof(cols[0]), "%s", tok);
			continue;
		}
		if (sscanf(line, "%" SCNx64, &loc) == 1 && strlen(line) > 17 && line[16] == ' ') {
			char vals[32][16], *tok = strtok(line, " \n");
			int nv = 0, rbp = column(cols, ncols, "rbp"), rbx = column(cols, ncols, "rbx"),
			    ra = column(cols, ncols, "ra");
			struct expect e;

			for (; tok && nv < 32; tok = strtok(NULL, " \n"))
				if (*tok != '(') /* "r10 (r10)": a register rule, named twice */
					snprintf(vals[nv++], sizeof(vals[0]), "%s", tok);
			cr_assert(ra > 0 && ra < nv, "%s: no ra column: %s", path, line);
			e = expect_of(vals[1], rbp > 0 && rbp < nv ? vals[rbp] : NULL,
				      rbx > 0 && rbx < nv ? vals[rbx] : NULL, vals[ra],
				      in_cie >= 0 ? cies[in_cie].signal : signal);
			if (in_cie >= 0) {
				cies[in_cie].init = e;
				continue;
			}
			fde_rows = true;
			if (fde_start == fde_end)
				continue; /* an empty FDE covers nothing */
			check_row(path, &t, loc, &e);
			checked++;
		}
	}
	pclose(p);
	cr_expect_gt(fdes, 0, "readelf shows no FDE in %s", path);
	cr_expect_eq(t.fdes, fdes, "%s: %zu FDEs read, readelf has %zu", path, t.fdes, fdes);
	cfi__free(&t);
	return checked;
}

TestSuite(cfi, .init = scratch_setup, .fini = scratch_teardown, .timeout = 120);

Test(cfi, libc_as_readelf_interprets_it)
{
	cr_expect_gt(expect_readelf(LIBC), 20000);
}

/* ld.so's lazy-binding resolver keeps its CFA in rbx: those rows, and rbx's rules, too. */
Test(cfi, ldso_as_readelf_interprets_it)
{
	struct cfi_table t;
	size_t rbx_rows = 0;

	cr_expect_gt(expect_readelf(LDSO), 1000);
	cr_assert_eq(cfi__compile_file(LDSO, &t), 0);
	for (size_t i = 0; i < t.n; i++)
		rbx_rows += t.rows[i].cfa == FL_CFA_RBX;
	cr_expect_geq(rbx_rows, 3, "ld.so: %zu rows with CFA = rbx + N", rbx_rows);
	cfi__free(&t);
}

Test(cfi, libstdcxx_as_readelf_interprets_it)
{
	if (access(LIBSTDCXX, R_OK))
		cr_skip_test("no %s here", LIBSTDCXX);
	cr_expect_gt(expect_readelf(LIBSTDCXX), 20000);
}

/* The rows a walk needs most: libc's outermost frames (_start's and the clone child's, the
 * return address undefined), its signal trampoline, and the PLT of a test binary. */
Test(cfi, stop_signal_and_plt_rows)
{
	static const char src[] = "#include <stdio.h>\n"
				  "#include <stdlib.h>\n"
				  "int main(int argc, char **argv)\n"
				  "{\n"
				  "\tchar *p = malloc(argc * 100);\n"
				  "\tputs(argv[0]);\n"
				  "\tfree(p);\n"
				  "\treturn 0;\n"
				  "}\n";
	char c[128], bin[128], cmd[512];
	struct cfi_table t;
	size_t stops = 0, signals = 0, plts = 0;
	uint64_t plt = 0;
	FILE *f;

	cr_assert_eq(cfi__compile_file(LIBC, &t), 0);
	for (size_t i = 0; i < t.n; i++) {
		stops += t.rows[i].cfa == FL_CFA_STOP;
		signals += t.rows[i].cfa == FL_CFA_SIGNAL;
	}
	cr_expect_geq(stops, 2, "libc: %zu STOP rows (clone, clone3)", stops);
	cr_expect_eq(signals, 1, "libc: %zu SIGNAL rows (__restore_rt)", signals);
	cfi__free(&t);

	snprintf(c, sizeof(c), "%s/plt.c", scratch_dir);
	snprintf(bin, sizeof(bin), "%s/plt", scratch_dir);
	scratch_write(c, src);
	scratch_run("cc -O2 -fomit-frame-pointer -o %s %s", bin, c);
	expect_readelf(bin);
	snprintf(cmd, sizeof(cmd), "readelf -SW %s | awk '$2 == \".plt\" { print $4 }'", bin);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%" SCNx64, &plt), 1, "no .plt in the test binary");
	pclose(f);
	cr_assert_eq(cfi__compile_file(bin, &t), 0);
	for (size_t i = 0; i < t.n; i++)
		plts += t.rows[i].cfa == FL_CFA_PLT;
	cr_expect_eq(plts, 1, "%zu PLT rows", plts);
	cr_expect_eq(cfi__find(&t, plt + 16)->cfa, FL_CFA_PLT, "the PLT's second entry");
	cr_expect_eq(cfi__find(&t, plt + 16)->cfa_off, 11, "the PLT rule's threshold");
	stops = 0;
	for (size_t i = 0; i < t.n; i++)
		stops += t.rows[i].cfa == FL_CFA_STOP;
	cr_expect_eq(stops, 1, "the binary's _start: %zu STOP rows", stops);
	cfi__free(&t);
}

/* Rows never overlap and leave no gap unmarked: sorted, distinct addresses, and between two
 * functions an INVALID row. */
Test(cfi, rows_are_sorted_and_gaps_marked)
{
	struct cfi_table t;

	cr_assert_eq(cfi__compile_file(LIBC, &t), 0);
	cr_assert_gt(t.n, 10000);
	for (size_t i = 1; i < t.n; i++)
		cr_assert_lt(t.rows[i - 1].addr, t.rows[i].addr, "row %zu", i);
	cr_expect_eq(t.rows[t.n - 1].cfa, FL_CFA_INVALID, "past the last function");
	cr_expect_null(cfi__find(&t, t.rows[0].addr - 1), "before the first function");
	cfi__free(&t);
}

/* For every page, the index's entry is the row at or before the page's start: the search the
 * BPF walk does between two entries finds the row cfi__find() finds, at every row's address
 * and around each page's start. */
Test(cfi, page_index_brackets_every_row)
{
	struct cfi_table t;
	uint32_t *ix;
	size_t recs;

	cr_assert_eq(cfi__compile_file(LIBC, &t), 0);
	recs = cfi__page_index(&t, &ix);
	cr_assert_gt(recs, 0);
	cr_assert_eq(sizeof(struct fl_unwind_row), 4 * sizeof(uint32_t), "4 entries a record");
	for (size_t i = 0; i < t.n; i++) {
		for (int d = 0; d < 2; d++) {
			uint64_t addr = t.rows[i].addr + (uint64_t)d * 7;
			uint64_t p = (addr - t.rows[0].addr) >> FL_UNWIND_PAGE_SHIFT;
			const struct fl_unwind_row *want = cfi__find(&t, addr);
			size_t lo, hi;

			cr_assert_lt(p + 1, recs * 4, "row %zu: page %" PRIu64 " past the index", i, p);
			lo = ix[p];
			hi = ix[p + 1];
			cr_assert_leq(t.rows[lo].addr, addr, "row %zu: entry past the address", i);
			cr_assert(want >= &t.rows[lo] && want <= &t.rows[hi],
				  "row %zu: the row at %#" PRIx64 " is %zd, outside [%zu, %zu]", i,
				  addr, want - t.rows, lo, hi);
		}
	}
	free(ix);
	cfi__free(&t);
	cr_expect_eq(cfi__page_index(&t, &ix), 0, "no rows, no index");
	cr_expect_null(ix);
}

Test(cfi, truncated_or_garbage_sections_do_not_crash)
{
	static const uint8_t junk[] = {
		0x14, 0,    0,	  0, 0,	   0,	 0, 0, 1,    'z', 'R',	0,
		1,    0x78, 0x10, 1, 0x1b, 0x0c, 7, 8, 0x90, 1,	  0xff, 0xff
	};
	struct cfi_table t;

	for (size_t len = 0; len <= sizeof(junk); len++) {
		cr_assert_eq(cfi__compile(junk, len, 0x1000, &t), 0);
		cfi__free(&t);
	}
}

/* Code built without asynchronous unwind tables (-fno-asynchronous-unwind-tables -g) has its
 * rules in .debug_frame, with _start's still in .eh_frame: both are read, row by row as readelf
 * reads them. */
Test(cfi, debug_frame_too)
{
	static const char src[] =
		"#include <stdlib.h>\n"
		"__attribute__((noinline)) long leaf(long x)\n"
		"{\n"
		"\tchar *volatile p = malloc(x);\n"
		"\tfree(p);\n"
		"\treturn x * 3;\n"
		"}\n"
		"int main(int argc, char **argv) { (void)argv; return (int)leaf(argc); }\n";
	char c[128], bin[128], cmd[512];
	struct cfi_table t;
	uint64_t leaf = 0;
	FILE *f;

	snprintf(c, sizeof(c), "%s/dbg.c", scratch_dir);
	snprintf(bin, sizeof(bin), "%s/dbg", scratch_dir);
	scratch_write(c, src);
	scratch_run("cc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -g -o %s %s", bin,
		    c);
	snprintf(
		cmd, sizeof(cmd),
		"readelf -SW %s | grep -c '\\.debug_frame' && nm %s | awk '$3 == \"leaf\" { print $1 }'",
		bin, bin);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%*d %" SCNx64, &leaf), 1, "no .debug_frame, or no leaf");
	pclose(f);
	cr_expect_gt(expect_readelf(bin), 2);
	cr_assert_eq(cfi__compile_file(bin, &t), 0);
	cr_expect_eq(cfi__find(&t, leaf)->cfa, FL_CFA_RSP, "leaf()'s first row, from .debug_frame");
	cr_expect_eq(cfi__find(&t, leaf)->cfa_off, 8);
	cfi__free(&t);
}
