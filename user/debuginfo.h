/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* Debug files over a session: debuginfod started when DEBUGINFOD_URLS is set (and not
 * --no-debuginfod), what it brought added at each refresh, stacks named again, messages. */
#ifndef FAULTLINE_DEBUGINFO_H
#define FAULTLINE_DEBUGINFO_H

#include <stdbool.h>
#include "session_state.h"

/* The final report waits this long at most for fetches under way, once a server answered. */
#define DEBUGINFO_FINAL_WAIT_MS 2000

/* Starts the fetcher when asked for (after s->elf exists). Never fails the session: a missing
 * libdebuginfod is one message. Returns 0 or -ENOMEM. */
int debuginfo__start(struct session *s);

/* At each refresh, before naming: adds what arrived and has every stack named again when it
 * named something; says once that the servers are unreachable. @final waits for fetches under
 * way (DEBUGINFO_FINAL_WAIT_MS) when a server has answered. Returns 0 or -ENOMEM. */
int debuginfo__refresh(struct session *s, bool final);

/* With -v, lists the objects that had no debug info anywhere; stops the fetcher. */
void debuginfo__end(struct session *s);

#endif /* FAULTLINE_DEBUGINFO_H */
