// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "symbols/minidebug.h"
#include <errno.h>
#include <gelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

/* The data of the section named @name, or NULL. */
static Elf_Data *section_data(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

int minidebug__read(Elf *elf, void **buf, size_t *len)
{
	lzma_stream zs = LZMA_STREAM_INIT;
	Elf_Data *data = section_data(elf, ".gnu_debugdata");
	size_t cap = 0;
	uint8_t *out = NULL, *grown;
	lzma_ret ret;
	int err = 0;

	*buf = NULL;
	*len = 0;
	if (!data || !data->d_size)
		return -ENOENT;
	if (lzma_stream_decoder(&zs, UINT64_MAX, 0) != LZMA_OK)
		return -ENOMEM;
	zs.next_in = data->d_buf;
	zs.avail_in = data->d_size;
	do {
		if (zs.avail_out == 0) {
			/* the symbol table is typically 4-8 times the compressed section */
			cap = cap ? cap * 2 : data->d_size * 8;
			if (cap > MINIDEBUG_MAX_SIZE) {
				err = -EINVAL;
				goto cleanup;
			}
			grown = realloc(out, cap);
			if (!grown) {
				err = -ENOMEM;
				goto cleanup;
			}
			out = grown;
			zs.next_out = out + zs.total_out;
			zs.avail_out = cap - zs.total_out;
		}
		ret = lzma_code(&zs, LZMA_FINISH);
	} while (ret == LZMA_OK);
	if (ret != LZMA_STREAM_END) {
		err = ret == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
		goto cleanup;
	}
	*buf = out;
	*len = zs.total_out;
	out = NULL;
cleanup:
	lzma_end(&zs);
	free(out);
	return err;
}
