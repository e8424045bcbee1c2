/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * Rows for code without call frame information, from what the ELF file itself says
 * (cfi__add_entries, symbols/elfentries.c): a function's first instruction (its symbol, or the
 * dynamic loader's calls of crtstuff's __do_global_dtors_aux through .fini_array in a stripped
 * file) has the ABI's rule, CFA = rsp + 8, for that instruction alone; the dynamic loader's
 * entry point, which has no unwind info, is the outermost frame. Rows the call frame
 * information gives are never replaced.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/cfi.h"
#include "unit/scratch.h"

#define LDSO "/lib64/ld-linux-x86-64.so.2"

TestSuite(entryrows, .init = scratch_setup, .fini = scratch_teardown, .timeout = 60);

static struct fl_unwind_row row(uint32_t addr, uint8_t cfa, int32_t off)
{
	return (struct fl_unwind_row){ .addr = addr, .cfa = cfa, .cfa_off = off };
}

static void expect_row(const struct cfi_table *t, uint64_t addr, uint8_t cfa, int32_t off)
{
	const struct fl_unwind_row *r = cfi__find(t, addr);

	cr_assert_not_null(r, "no row covers %#" PRIx64, addr);
	cr_expect_eq(r->cfa, cfa, "at %#" PRIx64 ": rule %u, expected %u", addr, r->cfa, cfa);
	if (cfa == FL_CFA_RSP)
		cr_expect_eq(r->cfa_off, off, "at %#" PRIx64 ": CFA rsp+%d", addr, r->cfa_off);
}

Test(entryrows, rows_only_where_no_row_covers)
{
	struct fl_unwind_row rows[] = { row(0x1000, FL_CFA_RSP, 16), row(0x1010, FL_CFA_INVALID, 0),
					row(0x1100, FL_CFA_RBP, 16), row(0x1120, FL_CFA_INVALID, 0) };
	/* before every row, in a gap, at a gap's first byte, inside a function, twice */
	const uint64_t fn[] = { 0x500, 0x1050, 0x1010, 0x1104, 0x1050 };
	struct cfi_table t = { .n = 4, .fdes = 2 };

	t.rows = malloc(sizeof(rows));
	cr_assert_not_null(t.rows);
	memcpy(t.rows, rows, sizeof(rows));
	cr_assert_eq(cfi__add_entries(&t, fn, sizeof(fn) / sizeof(fn[0]), 0x2000), 0);
	expect_row(&t, 0x500, FL_CFA_RSP, 8);
	expect_row(&t, 0x501, FL_CFA_INVALID, 0);
	expect_row(&t, 0x1000, FL_CFA_RSP, 16);
	expect_row(&t, 0x1010, FL_CFA_RSP, 8);
	expect_row(&t, 0x1011, FL_CFA_INVALID, 0);
	expect_row(&t, 0x1050, FL_CFA_RSP, 8);
	expect_row(&t, 0x1051, FL_CFA_INVALID, 0);
	expect_row(&t, 0x10ff, FL_CFA_INVALID, 0);
	expect_row(&t, 0x1104, FL_CFA_RBP, 16); /* a function's own rule stands */
	expect_row(&t, 0x1200, FL_CFA_INVALID, 0);
	expect_row(&t, 0x2000, FL_CFA_STOP, 0);
	expect_row(&t, 0x2fff, FL_CFA_STOP, 0); /* up to the next row: none */
	cr_expect_eq(t.fdes, 2, "the FDEs read are still told");
	for (size_t i = 1; i < t.n; i++)
		cr_assert_lt(t.rows[i - 1].addr, t.rows[i].addr, "row %zu", i);
	cfi__free(&t);
}

Test(entryrows, covered_entry_point_stays)
{
	struct fl_unwind_row rows[] = { row(0x1000, FL_CFA_STOP, 0), row(0x1010, FL_CFA_RSP, 8),
					row(0x1020, FL_CFA_INVALID, 0) };
	const uint64_t fn[] = { 0x1000 };
	struct cfi_table t = { .n = 3 };

	t.rows = malloc(sizeof(rows));
	cr_assert_not_null(t.rows);
	memcpy(t.rows, rows, sizeof(rows));
	cr_assert_eq(cfi__add_entries(&t, fn, 1, 0x1010), 0);
	expect_row(&t, 0x1000, FL_CFA_STOP, 0);
	expect_row(&t, 0x1010, FL_CFA_RSP, 8); /* crt1's _start has its own rule: kept */
	cr_expect_eq(t.n, 3);
	cfi__free(&t);
}

/* An assembly function without CFI, named by its symbol; crtstuff's destructor, found through
 * .fini_array once the file is stripped; main keeps the rows its FDE gives. */
Test(entryrows, functions_without_unwind_info)
{
	static const char src[] = "__asm__(\".text\\n.globl bare\\n.type bare, @function\\n"
				  "bare: ret\\n.size bare, .-bare\\n\");\n"
				  "void bare(void);\n"
				  "int main(void) { bare(); return 0; }\n";
	char c[128], bin[128], stripped[128];
	uint64_t bare, dtors, mainfn;
	struct cfi_table t;

	snprintf(c, sizeof(c), "%s/bare.c", scratch_dir);
	snprintf(bin, sizeof(bin), "%s/bare", scratch_dir);
	snprintf(stripped, sizeof(stripped), "%s/bare.stripped", scratch_dir);
	scratch_write(c, src);
	scratch_run("cc -O2 -o %s %s && strip -o %s %s", bin, c, stripped, bin);
	bare = scratch_symbol(bin, "bare");
	dtors = scratch_symbol(bin, "__do_global_dtors_aux");
	mainfn = scratch_symbol(bin, "main");
	cr_assert_eq(cfi__compile_file(bin, &t), 0);
	expect_row(&t, bare, FL_CFA_RSP, 8);
	expect_row(&t, bare + 1, FL_CFA_INVALID, 0);
	expect_row(&t, mainfn, FL_CFA_RSP, 8);
	expect_row(&t, dtors, FL_CFA_RSP, 8);
	cfi__free(&t);
	cr_assert_eq(cfi__compile_file(stripped, &t), 0);
	expect_row(&t, bare, FL_CFA_INVALID, 0); /* no symbol left says where it starts */
	expect_row(&t, dtors, FL_CFA_RSP, 8);	 /* .fini_array does */
	expect_row(&t, dtors + 1, FL_CFA_RSP, 8); /* and its code the rest (test_coderows.c) */
	cfi__free(&t);
}

/* ld.so's _start (RTLD_START, assembly without CFI) and the return addresses inside it, after
 * its calls of _dl_start and _dl_init: the outermost frame. */
Test(entryrows, loader_entry_is_the_outermost_frame)
{
	uint64_t entry = 0;
	struct cfi_table t;
	char cmd[256];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -h %s | awk '/Entry point/ { print $4 }'", LDSO);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%" SCNx64, &entry), 1);
	pclose(f);
	cr_assert_eq(cfi__compile_file(LDSO, &t), 0);
	expect_row(&t, entry, FL_CFA_STOP, 0);
	expect_row(&t, entry + 8, FL_CFA_STOP, 0);
	cfi__free(&t);
}
