/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The targets over a session: the children -f finds, the execs that change a target's image,
 * the exits that retire it. Rows of a retired target stay in the profile.
 */
#ifndef FAULTLINE_FOLLOW_H
#define FAULTLINE_FOLLOW_H

#include <stdint.h>
#include <sys/types.h>
#include "session_state.h"

/* A new symbolizer for @t, and the exec count it stands for (so the next exec is noticed). */
void follow__start_naming(struct session *s, struct target *t);

/* Reads @t's maps again and loads the unwind tables of the code it mapped since. */
void follow__code_mapped(struct session *s, struct target *t);

/* The launched command stopped at its exit: its last figures and maps are read, and kept. */
void follow__launched_at_exit(struct session *s);

/* Reads @t's /proc figures (target__refresh(), @final for the last ones, one of @alive),
 * noting which image they belong to. */
void follow__refresh(struct session *s, struct target *t, bool final, size_t alive);

/* Takes @t, which exited, out of the BPF target set and names its stacks from what it mapped
 * as it exited (or what is known); its rows stay, and so do the peaks they are measured at.
 * Its last /proc figures go (no_status) when they were read before its last exec. */
void follow__retire(struct session *s, struct target *t);

/* A collector_portable_fn: the walk of a retired row as its process (@ctx: the session)
 * names it, made of objects' frames (walk__portable()). */
size_t follow__portable_walk(void *ctx, const struct fl_key *key, const uint64_t *ips, size_t n,
			     uint64_t *out);

/* Frees the symbolizers of folded exec'd children whose rows all moved under another key. */
void follow__drop_folded_names(struct session *s);

/*
 * -f: the processes the fork program added to the BPF target set since the last look become
 * targets (named, probed with --alloc), and those the BPF side saw exit are retired. Run
 * every wake-up (<= 100 ms), so a child is named and probed soon after its fork, and the cost
 * of a storm of children is one read of the target set per wake-up and a little per child.
 */
void follow__discover(struct session *s);

/*
 * A target that exec'd runs another image: its stacks named so far, and those the counts map
 * already holds (most of them from before the exec), get their names from the old image now;
 * then a new symbolizer and name take over. Stacks first charged between the exec and this
 * refresh are named by the old image too, or by the new maps when the old ones have no
 * mapping at their addresses (the symbolizer re-reads the maps on a miss).
 */
void follow__reload_execs(struct session *s);

/* Reads the maps of the targets that exec'd lately again, when due, and loads the unwind
 * tables of what they mapped since. Returns when the next is due (pace__now() ns), 0: none. */
uint64_t follow__settle(struct session *s);

/*
 * Loads the unwind tables of the children found since the last call, apart from their
 * naming, which is a read of the maps: the tables of a new object take 10-500 ms to build,
 * and a child that execs meanwhile (moved into a cgroup, then exec'd) must have its new maps
 * read before it is gone (before Linux 6.16 nothing else records them). An exec'd image's
 * tables go in as it is named.
 */
void follow__load_tables(struct session *s);

/* Retires the given targets that exited since the last look, saying so. */
void follow__exits(struct session *s);

/* The launched command was reaped (s->launch.status): it is a target that exited, and its
 * summary and stderr say how, unless it exited 0. */
void follow__launched_gone(struct session *s);

/*
 * The session is over. A launched command that still runs is left running, untraced, as it
 * would be without faultline (stopped if a signal stopped it); called before the final report,
 * so that none of its signals waits for faultline meanwhile.
 */
void follow__end_launch(struct session *s);

#endif /* FAULTLINE_FOLLOW_H */
