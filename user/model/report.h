/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The figures every view shows above the tree: per process, per thread, and the drops. */
#ifndef FAULTLINE_REPORT_H
#define FAULTLINE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/procfs.h"
#include "faultline.h"
#include "model/inventory.h"
#include "model/profile.h"
#include "model/stackshare.h"

/* Where a process's figures start: its kernel change and peak are since then. */
enum proc_since {
	SINCE_ATTACH, /* a given target, the launched command, a process in the scope at start */
	SINCE_FORK,   /* a child found at its fork (-f, -a, --cgroup) */
	SINCE_JOINED, /* found as it moved into a --cgroup (a service manager, a runtime) */
};

struct fl_proc_summary {
	pid_t pid;
	char comm[FL_COMM_LEN];
	char cgroup[256]; /* its cgroup v2 path when first seen ("/a/b"); "" when unknown */
	bool alive;	  /* false once the process has exited */
	bool followed;	  /* a child -f found, not a given target */
	enum proc_since since;
	bool no_status; /* it exited before its status could be read */
	/* no_status, but its kernel change is known from its RSS counters as the BPF side saw
	 * them (first, and as its exit began): at_attach and now hold these members, and
	 * nothing else of /proc */
	bool counters_only;
	struct proc_status at_attach; /* /proc/PID/status when the session began */
	struct proc_status now;	      /* ... at the last refresh (the last seen, once exited) */
	/* the counters of the images its execs left, each as its teardown began (fl_proc): the
	 * kernel's change is now's less at_attach's, plus these */
	int64_t exec_left[FL_MEMBERS];
	uint64_t rollup_age_ns;	     /* now's smaps_rollup figures were read so long before
				       * (paced: the read costs about 6 ms per GiB resident) */
	struct fl_counts attributed; /* all faultline charged to this process but [exit] */
	int64_t peak;		     /* highest anon + file + shmem seen since attach */
	uint64_t hugetlb_faults;     /* --by mapping: faults in hugetlb mappings (not RSS) */
	/* a launched command once reaped (the one process whose end faultline can know): its
	 * exit status, or the signal that killed it (exit_signal > 0) */
	bool have_exit;
	int exit_code;
	int exit_signal;
	/* -f: an exited child whose stacks and threads are shown in those of this process (the
	 * first exited child of its name and code layout; maybe itself); 0: its own */
	pid_t folded_into;
	/* --alloc: blocks its execs dropped from the live table (weights, in attributed's frees) */
	uint64_t exec_dropped;
	uint64_t exec_dropped_bytes;
	/* what it holds resident, mapping by mapping, at attach and at the end (the launched
	 * command and -p targets); NULL: not read (a child -f found) */
	const struct inventory *inventory;
};

/*
 * Charges counts row (@key, @c) to its process: to @attributed, but for the [exit] rows (the
 * kernel's figures stop at exit, so they are reconciled with what came before), and its faults
 * in hugetlb mappings to *@hugetlb_faults.
 */
void report__charge(struct fl_counts *attributed, uint64_t *hugetlb_faults,
		    const struct fl_key *key, const struct fl_counts *c);

/* @a - @b as a signed number of bytes, saturated. */
int64_t report__sdiff(uint64_t a, uint64_t b);

/*
 * The reconciliation of @s by member (enum fl_member): the kernel's change since attach
 * (RssAnon, RssFile, RssShmem, VmSwap; over every image it ran, with exec_left) into @kern,
 * and the gap, that change minus faultline's growth net of releases, into @gap.
 */
void proc_summary__reconcile(const struct fl_proc_summary *s, int64_t kern[FL_MEMBERS],
			     int64_t gap[FL_MEMBERS]);

/* Whether @s's kernel change is known: from /proc, or from its RSS counters alone. */
static inline bool proc_summary__reconciled(const struct fl_proc_summary *s)
{
	return !s->no_status || s->counters_only;
}

/* How @s stands, into @buf: "alive", "exited", "exited with status 3", "killed by SIGKILL". */
void proc_summary__ending(const struct fl_proc_summary *s, char *buf, size_t len);

/* Pss_Anon + VmPTE: what the process would give back if it went away. */
uint64_t proc_status__private_cost(const struct proc_status *s);

struct fl_thread_summary {
	pid_t tgid;
	pid_t tid;
	char comm[FL_COMM_LEN];
	/* its frame with -T: comm, or "comm/tid" when its process has another thread so named
	 * (threadlabel.h) */
	char label[FL_COMM_LEN + 12];
	struct fl_counts counts;
};

/* One call site: a stack and the allocator function (--alloc) or memory syscall (--vm) it
 * calls, summed over threads. */
struct fl_call_site {
	pid_t pid;
	char caller[128]; /* the two frames above the allocator: "parent > caller" */
	const char *fn;	  /* "malloc", "operator new", "[munmap]", ... (calls.h) */
	struct fl_counts counts;
	struct fl_alloc_hist hist; /* --alloc */
	/* --alloc: CLOCK_MONOTONIC ns of its oldest live block at the walk of fl_report.ages_ns;
	 * 0: none then (its live blocks, if any, all came later) */
	uint64_t oldest_ts;
};

/*
 * The age of the oldest live block of allocation site @s at @r's moment, in ns, into *@ns.
 * Returns 1 when known (as of the walk of r->ages_ns: the block may have been freed since, the
 * site's next oldest being younger), 0 when nothing is live, -1 when its live blocks all came
 * after that walk: *@ns is then the time since it, which they are younger than.
 */
struct fl_report;
int report__oldest_age(const struct fl_report *r, const struct fl_call_site *s, uint64_t *ns);

/* How long ago the walk of the live table the sites' ages come from was made, into *@ns (0:
 * for this report); false when there was none yet. */
bool report__ages_as_of(const struct fl_report *r, uint64_t *ns);

struct cgroup_recon;
struct forgotten;

/* --every: where an endpoint's windows are (ship/queue.h's figures, as of the report) */
struct report_endpoint {
	const char *option; /* "--otlp", "--pyroscope" */
	const char *url;
	uint64_t sent, lost, waiting, retries;
	char last_error[320]; /* the last failure's words; "" when none */
};

struct fl_report {
	double elapsed_s;
	const struct fl_proc_summary *procs;
	size_t nprocs;
	/* exited processes no longer in @procs, summed (forgotten.h); NULL: none */
	const struct forgotten *forgotten;
	struct report_endpoint endpoints[2]; /* --every with --otlp, --pyroscope */
	size_t nendpoints;
	/* --cgroup: each selected cgroup's own counters beside its processes' (cgroupmem.h) */
	const struct cgroup_recon *cgroups;
	size_t ncgroups;
	const struct fl_thread_summary *threads; /* sorted by the metric, heaviest first */
	size_t nthreads;
	uint64_t drops[FL_DROP__COUNT];
	/* the kernel: its release, whether it batches RSS counters (before 6.2), which programs
	 * ran, and the ids of what it lacks of what faultline uses (probes/features.h); release NULL: unknown */
	const char *kernel_release;
	bool rss_batched;
	bool kernel_legacy; /* the legacy programs ran (bpf/legacy.bpf.h) */
	const char *kernel_missing[8];
	size_t nkernel_missing;

	const char *note; /* a warning to show in the header (e.g. a batched kernel), or NULL */
	bool alloc;	  /* --alloc: the allocator figures below mean something */
	bool alloc_churn; /* --alloc=churn: calls and bytes asked only (no frees, no live
			   * blocks, no histograms) */
	uint64_t sample_bytes; /* --sample-bytes (0: every allocation recorded) */
	double sample_time;    /* --sample-time's share of the time (0: probes always in) */
	double probed_s;       /* ... the seconds the probes were in so far */
	uint64_t now_ns;       /* CLOCK_MONOTONIC at the snapshot, for the ages of live blocks */
	/* --alloc: CLOCK_MONOTONIC ns of the walk of the live table the sites' oldest_ts come
	 * from (0: none yet), and whether it was made for this snapshot: a walk costs every live
	 * block, so live refreshes make one only now and then */
	uint64_t ages_ns;
	bool ages_now;
	/* sorted by sites_by: the metric when it is an allocator's, else live bytes (alloc bytes
	 * with alloc_churn) */
	const struct fl_call_site *sites;
	size_t nsites;
	enum fl_metric sites_by;
	bool vm;	  /* --vm: the memory call figures below mean something */
	bool new_pages;	  /* --metric new: new_bytes means something */
	bool map_classes; /* --by mapping: changes were classified (hugetlb faults counted) */
	const struct fl_call_site *vm_sites; /* by the vm metric, else by bytes reserved, unmapped
					       * and advised */
	size_t nvm_sites;
	bool final;			 /* the end-of-session report */
	struct fl_stack_share stacks;	 /* how whole the stacks of the rows are */
	struct fl_unwind_figures unwind; /* the unwind tables loaded */
};

#endif /* FAULTLINE_REPORT_H */
