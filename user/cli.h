/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The command line: parse_args() fills a struct fl_config and does nothing else. */
#ifndef FAULTLINE_CLI_H
#define FAULTLINE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "model/profile.h"
#include "ship/ship.h"

#define FL_MAX_PIDS 64
#define FL_MAX_CGROUP_SELECTORS 16 /* bpf/faultline.h FL_MAX_CGROUPS */

/* Where the profile goes at the end besides files: --otlp, --pyroscope (cli_ship.c). */
struct fl_ship_config {
	const char *otlp;      /* --otlp URL: an OTLP/HTTP endpoint; NULL: none */
	const char *pyroscope; /* --pyroscope URL: a Pyroscope server; NULL: none */
	const char *service;   /* --service NAME; NULL: the target's executable */
	const char *ca_file;   /* --ca-file FILE: verify https with it; NULL: the system's */
	double every_s;	       /* --every SECONDS: a profile per window; 0: one at the end */
	/* --otlp-header, --pyroscope-header K=V (repeatable), as given */
	const char *otlp_headers[FL_SHIP_MAX_HEADERS];
	size_t notlp_headers;
	const char *pyroscope_headers[FL_SHIP_MAX_HEADERS];
	size_t npyroscope_headers;
};

/* --by's top of the tree: the executable's name (comm, the default; processes of one
 * executable merge), each process (comm/pid), or the cgroup above the executable. */
enum fl_top {
	FL_TOP_EXE = 0,
	FL_TOP_PROCESS,
	FL_TOP_CGROUP,
};

struct fl_config {
	pid_t pids[FL_MAX_PIDS]; /* -p PID[,PID...] */
	size_t npids;
	char **command; /* argv after "--" (NULL-terminated; points into argv), or NULL */
	bool children;	/* -f: follow the processes the targets fork (-a and --cgroup too) */
	bool all;	/* -a: every process on the host */
	/* --cgroup SEL (repeatable): a cgroup v2 path, a systemd unit or a container id */
	const char *cgroups[FL_MAX_CGROUP_SELECTORS];
	size_t ncgroups;
	double duration_s; /* -d; 0 = until the targets exit or a signal */
	double interval_s; /* -i; default 1 */
	unsigned top;	   /* --top; default 20 */
	long width; /* --width N: lines cut at N columns, 0 none; UNITS_WIDTH_UNSET (-1): not given */
	bool threads;		  /* -T */
	bool quiet;		  /* -q */
	bool plain;		  /* --plain: no interactive view on a terminal */
	int verbose;		  /* -v, repeatable */
	const char *folded;	  /* --folded FILE, "-" for stdout; NULL for none */
	const char *pprof;	  /* --pprof FILE (gzip-compressed profile.proto); NULL for none */
	const char *json;	  /* --json FILE: one document at the end; "-" for stdout */
	const char *json_stream;  /* --json-stream FILE: one document per line and refresh */
	const char *svg;	  /* --svg FILE: a flame graph at the end; NULL for none */
	enum fl_metric metric;	  /* --metric; default resident */
	bool metric_given;	  /* --metric was on the command line */
	uint32_t stack_storage;	  /* --stack-storage N: stack map entries; default 16384 */
	uint32_t unwind_mib;	  /* --unwind-mem MIB: bound on the unwind tables; 0: none */
	size_t keep_exited;	  /* --keep-exited N: exited processes listed one by one */
	bool alloc;		  /* --alloc: allocator probes */
	bool alloc_churn;	  /* --alloc=churn: their entries only (no frees, nothing live) */
	const char *alloc_lib;	  /* --alloc-lib PATH, or NULL: found per target */
	const char *alloc_prefix; /* --alloc-prefix PREFIX, or NULL */
	uint32_t max_live;	  /* --max-live N: live-allocation map entries */
	bool max_live_given;
	uint64_t sample_bytes; /* --sample-bytes N: mean bytes between samples; 0 = all */
	double sample_time;    /* --sample-time PCT: the share of time the probes are in, 0..1;
				* 0 = all the time */
	bool vm;	       /* --vm: memory syscall tracepoints */
	enum fl_top by_top;    /* --by process|exe|cgroup: the tree's top (default exe) */
	bool by_stack;	       /* --by: frames are the call stack (default) ... */
	bool by_mapping;       /* ... and/or the class of the mapping the change hit */
	bool no_debuginfod;    /* --no-debuginfod: never ask DEBUGINFOD_URLS' servers */
	bool inline_frames;    /* --inline: inlined calls as frames of the tree and folded output */
	struct fl_ship_config ship;
};

#ifndef FAULTLINE_VERSION /* the Makefile defines it */
#define FAULTLINE_VERSION "0.0.0-dev"
#endif

/* parse_args() results besides 0 (run) and -EINVAL (usage error, already reported on stderr) */
#define FL_CLI_DONE 1 /* --help or --version was printed: exit 0 */

/*
 * Fills @cfg (defaults first) from the command line. Returns 0 to run, FL_CLI_DONE after
 * printing --help or --version to stdout, -EINVAL after printing one "faultline: ..." line to
 * stderr for a usage error, or -ENOMEM. Never exits. @argv must outlive @cfg.
 */
int parse_args(int argc, char **argv, struct fl_config *cfg);

/* "exe", "process" or "cgroup". */
const char *config__top_name(enum fl_top top);

/* --by as the command line would say it ("stack", "cgroup,stack,mapping") into @buf. */
void config__by_name(const struct fl_config *cfg, char *buf, size_t len);

/* How many machine formats (--folded, --json, --json-stream) @cfg writes to stdout ('-'):
 * parse_args() allows one at most; with one, every table goes to stderr. */
int config__stdout_outputs(const struct fl_config *cfg);

/* True when the session @cfg describes fills metric @m (--alloc and --vm add some;
 * --alloc=churn not the live ones). */
bool config__has_metric(const struct fl_config *cfg, enum fl_metric m);

#endif /* FAULTLINE_CLI_H */
