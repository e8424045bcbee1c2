/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The little x86-64 decoding the stack repair needs: a conservative whitelist, no disassembler. */
#ifndef FAULTLINE_X86_H
#define FAULTLINE_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest prologue x86__frame_setup_len() looks at. */
#define X86_PROLOGUE_MAX 8

/*
 * The length of a frame-pointer prologue at the start of a function ([endbr64] push %rbp;
 * mov %rsp,%rbp), or 0 when @code (@len bytes from the function's first byte) does not begin
 * with one: the function then keeps no frame of its own, and its return address sits at the
 * stack pointer.
 */
size_t x86__frame_setup_len(const uint8_t *code, size_t len);

/* True when the @len bytes ending right before a return address end with a call instruction
 * (call rel32, or an indirect call through a register or memory). */
bool x86__ends_with_call(const uint8_t *code, size_t len);

#endif /* FAULTLINE_X86_H */
