// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "model/threadlabel.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* By process, then name: the threads that share a name in a process end up side by side. */
static int cmp_process_name(const void *a, const void *b)
{
	const struct fl_thread_summary *x = *(const struct fl_thread_summary *const *)a;
	const struct fl_thread_summary *y = *(const struct fl_thread_summary *const *)b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return strncmp(x->comm, y->comm, sizeof(x->comm));
}

int thread_labels__set(struct fl_thread_summary *th, size_t n)
{
	struct fl_thread_summary **by = calloc(n ? n : 1, sizeof(*by));

	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		by[i] = &th[i];
	qsort(by, n, sizeof(*by), cmp_process_name);
	for (size_t i = 0; i < n; i++) {
		bool shared = (i > 0 && !cmp_process_name(&by[i - 1], &by[i])) ||
			      (i + 1 < n && !cmp_process_name(&by[i], &by[i + 1]));

		if (shared)
			snprintf(by[i]->label, sizeof(by[i]->label), "%.*s/%d", FL_COMM_LEN,
				 by[i]->comm, (int)by[i]->tid);
		else
			snprintf(by[i]->label, sizeof(by[i]->label), "%.*s", FL_COMM_LEN,
				 by[i]->comm);
	}
	free(by);
	return 0;
}
