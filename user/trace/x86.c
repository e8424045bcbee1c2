// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/x86.h"
#include <string.h>

size_t x86__frame_setup_len(const uint8_t *code, size_t len)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const uint8_t push_mov[] = { 0x55, 0x48, 0x89, 0xe5 }; /* also 48 8b ec below */
	size_t at = 0;

	if (len >= sizeof(endbr64) && !memcmp(code, endbr64, sizeof(endbr64)))
		at = sizeof(endbr64);
	if (len < at + sizeof(push_mov) || code[at] != 0x55 || code[at + 1] != 0x48)
		return 0;
	if ((code[at + 2] == 0x89 && code[at + 3] == 0xe5) ||
	    (code[at + 2] == 0x8b && code[at + 3] == 0xec))
		return at + sizeof(push_mov);
	return 0;
}

/* ff /2: call through a register or memory; the ModRM byte's reg field is 2. */
static bool indirect_call_at(const uint8_t *code, size_t len, size_t insn_len)
{
	const uint8_t *op = code + len - insn_len;
	uint8_t modrm, mod, rm;
	size_t want;

	if (insn_len > len || op[0] != 0xff)
		return false;
	modrm = op[1];
	if (((modrm >> 3) & 7) != 2)
		return false;
	mod = modrm >> 6;
	rm = modrm & 7;
	want = 2;
	if (mod != 3 && rm == 4)
		want++; /* SIB byte */
	if (mod == 1)
		want += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		want += 4;
	else if (mod == 0 && rm == 4 && (op[2] & 7) == 5)
		want += 4; /* SIB with no base: disp32 */
	return want == insn_len;
}

bool x86__ends_with_call(const uint8_t *code, size_t len)
{
	if (len >= 5 && code[len - 5] == 0xe8)
		return true;
	/* indirect calls are 2 to 7 bytes, maybe behind a REX prefix (41 ff d0: call *%r8) */
	for (size_t n = 2; n <= 7; n++)
		if (indirect_call_at(code, len, n))
			return true;
	return false;
}
