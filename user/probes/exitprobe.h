/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * -f on Linux 6.7 and later: the program that records a target's file mappings as it exits
 * (bpf/exitmaps.bpf.c). An object of its own: its kfuncs make libbpf read the kernel's whole
 * BTF (5 MB, 10-20 ms), which the main object, relocated against cached types, does without.
 * It is loaded on a thread of its own while the main object loads.
 */
#ifndef FAULTLINE_EXITPROBE_H
#define FAULTLINE_EXITPROBE_H

#include <stdint.h>

struct bpf_link;
struct exit_probe;

/* Starts loading the program on a thread, with the target set @procs_fd (open until
 * exit_probe__wait() returns). Returns 0 or -errno. */
int exit_probe__start(struct exit_probe **out, int procs_fd);

/* Waits for the load: 0 or its -errno (not reported). */
int exit_probe__wait(struct exit_probe *p);

/* Attaches the loaded program: 0 or -errno. */
int exit_probe__attach(struct exit_probe *p);

/* The link attached, handed over to the caller (NULL when none is). */
struct bpf_link *exit_probe__take_link(struct exit_probe *p);

/* The ring of records (struct fl_map_rec), and the records lost (FL_DROP_EXIT_MAPS). */
int exit_probe__ring_fd(const struct exit_probe *p);
uint64_t exit_probe__drops(const struct exit_probe *p);

/* Waits for a load still running, detaches and frees. NULL is a no-op. */
void exit_probe__destroy(struct exit_probe *p);

#endif /* FAULTLINE_EXITPROBE_H */
