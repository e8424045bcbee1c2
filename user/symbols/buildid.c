// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "symbols/buildid.h"
#include <errno.h>
#include <gelf.h>
#include <string.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

size_t buildid__read(Elf *elf, uint8_t *buf, size_t max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + name_off, "GNU", 4) != 0 ||
			    nh.n_descsz == 0 || nh.n_descsz > max)
				continue;
			memcpy(buf, (char *)data->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
	}
	return 0;
}

int buildid__read_fd(int fd, uint8_t *buf, size_t max, size_t *len)
{
	Elf *elf;

	*len = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EIO;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -ENOEXEC;
	}
	*len = buildid__read(elf, buf, max);
	elf_end(elf);
	return 0;
}

void buildid__hex(const uint8_t *id, size_t len, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * len] = '\0';
}
