// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "trace/inventoryread.h"
#include <errno.h>
#include <stdlib.h>
#include "base/mountinfo.h"
#include "base/pace.h"
#include "base/procfs.h"
#include "base/smaps.h"
#include "base/threadstacks.h"

int inventory_read(struct inventory *inv, pid_t pid, enum inv_side side)
{
	struct inv_read read = { .at_ns = pace__now() };
	uint64_t cpu = pace__thread_cpu();
	struct map_kind_hints h = {};
	struct thread_sp *threads = NULL;
	struct shmem_dev *devs = NULL;
	struct map_kind_of *kinds;
	struct proc_status st = {};
	struct smaps m;
	int err;

	/* the threads first: a stack pointer read after smaps could be in a stack mapped since */
	if (!threadstacks__read(pid, &threads, &h.nthreads))
		h.threads = threads;
	if (!mountinfo__read_tmpfs(pid, &devs, &h.nshmem_devs))
		h.shmem_devs = devs;
	err = smaps__read(pid, &m);
	if (err)
		goto out;
	/* right after smaps (status alone: smaps_rollup would walk the page tables again): the
	 * rows should sum to it, and what differs moved in between */
	if (!procfs__read_status_keep_rollup(pid, &st)) {
		read.have_vm_rss = true;
		read.vm_rss = st.vm_rss;
	}
	kinds = calloc(m.n ? m.n : 1, sizeof(*kinds));
	if (!kinds) {
		err = -ENOMEM;
	} else {
		mapkind__classify(&m, &h, kinds);
		read.nthreads = h.nthreads;
		read.cost_ns = pace__thread_cpu() - cpu;
		err = inventory__take(inv, side, &m, kinds, &read);
	}
	free(kinds);
	smaps__free(&m);
out:
	free(threads);
	free(devs);
	return err;
}
