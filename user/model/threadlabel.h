/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The thread frame of -T: a thread's name, or "name/tid" where its process has another thread
 * of that name (every MariaDB thread is "mariadbd": by name alone -T would add nothing).
 */
#ifndef FAULTLINE_THREADLABEL_H
#define FAULTLINE_THREADLABEL_H

#include <stddef.h>
#include "model/report.h"

/* Sets the label of each of the @n threads of @th (any order, kept). Returns 0 or -ENOMEM. */
int thread_labels__set(struct fl_thread_summary *th, size_t n);

#endif /* FAULTLINE_THREADLABEL_H */
