// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "cli_options.h"

const char cli_args_doc[] = "-p PID[,PID...]\n-a\n--cgroup PATH|UNIT|ID\n-- COMMAND [ARG...]";

const char cli_doc[] =
	"Profile the resident memory growth and page faults of processes by call stack.\n"
	"\n"
	"USAGE: faultline [OPTIONS] -p PID[,PID...]\n"
	"       faultline [OPTIONS] -a | --cgroup PATH|UNIT|ID\n"
	"       faultline [OPTIONS] -- COMMAND [ARG...]\n"
	"       faultline diff [OPTIONS] BEFORE AFTER   (faultline diff --help)\n"
	"\n"
	"EXAMPLES:\n"
	"    faultline -p 1234             # until process 1234 exits, or Ctrl-C\n"
	"    faultline -p 1234,5678 -d 30  # two processes for 30 seconds\n"
	"    faultline -f -p 1234          # 1234 and every process it forks from now on\n"
	"    faultline -T -p 1234          # per-thread table, thread frames\n"
	"    faultline -a -d 60            # every process on the host for a minute\n"
	"    faultline --cgroup mysql.service  # a service's processes, new ones too\n"
	"    faultline --metric faults -- ./app -x  # launch ./app, rank by faults\n"
	"    faultline -q --folded out.txt -p 1234  # folded stacks for flamegraph.pl\n"
	"    faultline -q --pprof out.pb.gz -p 1234  # go tool pprof, Pyroscope\n"
	"    faultline -q --json-stream - -p 1234  # one JSON line per refresh\n"
	"    faultline -q --svg out.svg -p 1234  # an interactive flame graph\n"
	"    faultline -q --otlp http://collector:4318 -d 60 -p 1234  # to an OTel Collector\n"
	"    faultline diff before.txt after.txt  # what changed between two --folded files\n"
	"    faultline --alloc --metric live-bytes -p 1234  # who holds the live heap\n"
	"    faultline --alloc=churn --metric alloc-count -p 1234  # malloc storms\n"
	"    faultline --vm --metric released -p 1234  # who gives memory back, and how\n"
	"    faultline --by mapping -p 1234  # which mappings grew: heap, stacks, files...\n"
	"\v"
	"Metrics: resident (anon + file + shmem growth; the default), anon, file,\n"
	"shmem, swap, faults (a count), released (anon + file + shmem released),\n"
	"peak (net bytes each stack held when the process's RSS was highest);\n"
	"with --alloc: alloc-bytes, alloc-count (allocations since attach), live-bytes,\n"
	"live-count (allocated since attach and not freed; not with --alloc=churn);\n"
	"with --vm: reserved\n"
	"(virtual bytes mapped by mmap, mremap and brk growth), unmapped (given back by\n"
	"munmap, mremap and brk shrink); new (pages the kernel allocated for the stack:\n"
	"memory the machine did not hold before, shared pages counted once).\n"
	"\n"
	"--alloc probes the target's allocator (the loaded object that defines malloc:\n"
	"glibc, jemalloc, tcmalloc, mimalloc, or a static executable) in the target\n"
	"processes only. Each probed call traps into the kernel (about 0.6 us, more for\n"
	"the few probes that must be single-stepped), sampled or not: --sample-bytes\n"
	"makes recording cheaper and bounds the live table, and on Linux 6.13+ spares\n"
	"an unsampled malloc its return trap, not its entry trap.\n"
	"--alloc=churn takes the entry of each allocating call alone (no return probe,\n"
	"no free, no live table): one trap per call instead of three per malloc+free,\n"
	"for hot servers where exact live tracking costs too much. It counts calls and\n"
	"bytes asked by stack (alloc-count, alloc-bytes); frees and live bytes are not\n"
	"traced, so live-bytes and live-count are refused. With --sample-time PCT the\n"
	"probes are in place PCT% of the time only, and so are the traps: the counts\n"
	"are the calls made while they were, not scaled (the shares by stack estimate\n"
	"the whole; a process the traps slow makes fewer calls in a window than\n"
	"outside, so the CALLS/S they give is a floor).\n"
	"\n"
	"-f follows every new process a target forks (not threads; not processes\n"
	"forked before faultline started), up to 4096 processes in all: their growth\n"
	"counts from fork on, the copy of the parent's pages excluded. With several\n"
	"processes the report has one line per process, heaviest first.\n"
	"\n"
	"SIGINT or SIGTERM ends the session with the final report. A launched\n"
	"command gets it too and 5 s to exit (a second one ends the session at\n"
	"once); a command still running when the session ends is left running.\n"
	"\n"
	"Exit status: 0 success (a target that exits is a success), 1 runtime\n"
	"failure, 2 usage error; in launch mode, the command's own status (128 + N\n"
	"when signal N killed it).";

const struct argp_option cli_options[] = {
	{ NULL, 0, NULL, 0, "Target:", 1 },
	{ "pid", 'p', "PID[,PID...]", 0, "Attach to these processes (repeatable; <= 64)", 1 },
	{ "children", 'f', NULL, 0, "Follow new processes the targets fork (<= 4096 in all)", 1 },
	{ "all", 'a', NULL, 0, "Every process on the host, those started later too", 1 },
	{ "cgroup", OPT_CGROUP, "PATH|UNIT|ID", 0,
	  "Every process of a cgroup v2 and its descendants, those that join later too: a "
	  "path, a systemd unit (mysql.service) or a container id (repeatable; <= 16)",
	  1 },
	{ NULL, 0, NULL, 0, "Session:", 2 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS (default: when targets exit)", 2 },
	{ "interval", 'i', "SECONDS", 0, "Refresh every SECONDS (default 1, >= 0.1)", 2 },
	{ "vm", OPT_VM, NULL, 0,
	  "Also trace mmap, munmap, mremap, brk and madvise by stack (the RSS changes inside "
	  "them go to the call)",
	  2 },
	{ NULL, 0, NULL, 0, "Allocator (--alloc):", 3 },
	{ "alloc", OPT_ALLOC, "MODE", OPTION_ARG_OPTIONAL,
	  "Also trace malloc, free and operator new/delete (MODE exact, the default); MODE "
	  "churn: the allocating calls' entries only, one trap per call (calls and bytes asked "
	  "by stack; no frees)",
	  3 },
	{ "alloc-lib", OPT_ALLOC_LIB, "PATH", 0,
	  "The allocator is PATH (default: found per target)", 3 },
	{ "alloc-prefix", OPT_ALLOC_PREFIX, "PREFIX", 0,
	  "Its C functions are PREFIXmalloc... (jemalloc built with je_)", 3 },
	{ "max-live", OPT_MAX_LIVE, "N", 0,
	  "Track at most N live blocks (default 1048576; more are counted as lost)", 3 },
	{ "sample-bytes", OPT_SAMPLE_BYTES, "N", 0,
	  "Record one allocation per N bytes on average, scaled back (default: all)", 3 },
	{ "sample-time", OPT_SAMPLE_TIME, "PCT", 0,
	  "With --alloc=churn: probes in place PCT% of the time (1-50), in random windows of "
	  "10-30 ms; counts are the calls made while they were (default: all the time)",
	  3 },
	{ NULL, 0, NULL, 0, "Output:", 4 },
	{ "metric", OPT_METRIC, "NAME", 0, "Rank and write this metric (default resident)", 4 },
	{ "by", OPT_BY, "WHAT", 0,
	  "Group by stack (default), mapping (heap, stack, anon, THP, file path, shmem, "
	  "hugetlb), or stack,mapping (the mapping as the leaf frame); a first word exe "
	  "(default), process (name/pid) or cgroup sets the top of the tree",
	  4 },
	{ "top", OPT_TOP, "N", 0, "Show at most N leaf stacks (default 20)", 4 },
	{ "width", OPT_WIDTH, "N", 0,
	  "Cut lines at N columns (40..1000; 0: no cut; default: the terminal, $COLUMNS, or 100)",
	  4 },
	{ "threads", 'T', NULL, 0,
	  "Per-thread table, and thread names as frames (name/TID when shared)", 4 },
	{ "folded", OPT_FOLDED, "FILE", 0, "Write folded stacks to FILE ('-': stdout)", 4 },
	{ "pprof", OPT_PPROF, "FILE", 0,
	  "Write a pprof profile to FILE (gzip-compressed profile.proto: every metric, addresses, "
	  "mappings with build-ids, thread and pid labels)",
	  4 },
	{ "json", OPT_JSON, "FILE", 0, "Write the final report and stacks as JSON to FILE", 4 },
	{ "json-stream", OPT_JSON_STREAM, "FILE", 0,
	  "Write one JSON line per refresh, then the final one, to FILE", 4 },
	{ "svg", OPT_SVG, "FILE", 0, "Write an interactive flame graph of the metric to FILE", 4 },
	{ "quiet", 'q', NULL, 0, "No live table, only the final report", 4 },
	{ "plain", OPT_PLAIN, NULL, 0, "Plain snapshots even on a terminal (no interactive view)",
	  4 },
	{ "inline", OPT_INLINE, NULL, 0,
	  "Inlined calls as frames of their own (tree, folded, SVG, JSON, pprof; from DWARF)", 4 },
	{ "no-debuginfod", OPT_NO_DEBUGINFOD, NULL, 0,
	  "Never fetch debug files from the servers of DEBUGINFOD_URLS", 4 },
	{ NULL, 0, NULL, 0, "Shipping (sent at the end; the files are written either way):", 5 },
	{ "otlp", OPT_OTLP, "URL", 0,
	  "Send the profile (every metric) to an OpenTelemetry endpoint: OTLP/HTTP, POST "
	  "URL/v1development/profiles (protobuf, gzip)",
	  5 },
	{ "otlp-header", OPT_OTLP_HEADER, "K=V", 0,
	  "A header for --otlp, e.g. Authorization=Bearer... (repeatable)", 5 },
	{ "pyroscope", OPT_PYROSCOPE, "URL", 0,
	  "Push the profile to Grafana Pyroscope: POST URL/ingest (pprof)", 5 },
	{ "pyroscope-header", OPT_PYROSCOPE_HEADER, "K=V", 0,
	  "A header for --pyroscope, e.g. X-Scope-OrgID=TENANT (repeatable)", 5 },
	{ "service", OPT_SERVICE, "NAME", 0,
	  "The service the profile is of (service.name, the Pyroscope application; default: "
	  "the target's executable)",
	  5 },
	{ "ca-file", OPT_CA_FILE, "FILE", 0,
	  "Verify https endpoints with the CA certificates in FILE (default: the system's)", 5 },
	{ "every", OPT_EVERY, "SECONDS", 0,
	  "Continuous: send a profile of what grew in each window of SECONDS (1..86400), and "
	  "the live heap as it ends; the last at the end",
	  5 },
	{ NULL, 0, NULL, 0, "Tuning:", 6 },
	{ "stack-storage", OPT_STACK_STORAGE, "N", 0,
	  "Stack map entries (default 16384, 256..1048576)", 6 },
	{ "unwind-mem", OPT_UNWIND_MEM, "MIB", 0,
	  "Kernel memory for unwind tables (default 64; 0: frame pointers only)", 6 },
	{ "keep-exited", OPT_KEEP_EXITED, "N", 0,
	  "Exited processes listed one by one (default 4096, 16..1048576); older ones are "
	  "summed by executable",
	  6 },
	{ NULL, 0, NULL, 0, "Miscellaneous:", 7 },
	{ "verbose", 'v', NULL, 0, "More messages on stderr (-vv: libbpf too)", 7 },
	{ "help", 'h', NULL, 0, "Show this help and exit", -1 },
	{ "version", OPT_VERSION, NULL, 0, "Show the version and exit", -1 },
	{ 0 },
};
