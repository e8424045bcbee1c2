/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Kernel-version drift, in one place. Each entry names the kernels it covers. */
#ifndef FAULTLINE_CORE_FIXES_BPF_H
#define FAULTLINE_CORE_FIXES_BPF_H

#include "vmlinux.h"

/*
 * exceptions:page_fault_user. Its BTF struct was trace_event_raw_x86_exceptions up to 6.1 and
 * trace_event_raw_exceptions later, but the record layout (arch/x86/include/asm/trace/
 * exceptions.h) never changed: the common header, then address, ip, error_code. A tracepoint
 * context is read at fixed offsets, so this plain struct serves every kernel.
 */
struct fl_page_fault_args {
	__u64 common; /* struct trace_entry */
	__u64 address;
	__u64 ip;
	__u64 error_code;
};

#endif /* FAULTLINE_CORE_FIXES_BPF_H */
