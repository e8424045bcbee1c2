/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/* The command line as the user reads it: --help's text and argp's option table (cli.c parses). */
#ifndef FAULTLINE_CLI_OPTIONS_H
#define FAULTLINE_CLI_OPTIONS_H

#include <argp.h>

/* The keys of the long options without a short letter. */
enum {
	OPT_TOP = 0x100,
	OPT_VERSION,
	OPT_FOLDED,
	OPT_METRIC,
	OPT_STACK_STORAGE,
	OPT_KEEP_EXITED,
	OPT_ALLOC,
	OPT_ALLOC_LIB,
	OPT_ALLOC_PREFIX,
	OPT_MAX_LIVE,
	OPT_SAMPLE_BYTES,
	OPT_SAMPLE_TIME,
	OPT_VM,
	OPT_CGROUP,
	OPT_BY,
	OPT_PLAIN,
	OPT_PPROF,
	OPT_JSON,
	OPT_JSON_STREAM,
	OPT_SVG,
	OPT_NO_DEBUGINFOD,
	OPT_INLINE,
	OPT_UNWIND_MEM,
	OPT_WIDTH,
	OPT_OTLP,
	OPT_OTLP_HEADER,
	OPT_PYROSCOPE,
	OPT_PYROSCOPE_HEADER,
	OPT_SERVICE,
	OPT_CA_FILE,
	OPT_EVERY,
};

extern const char cli_args_doc[];
extern const char cli_doc[];
extern const struct argp_option cli_options[];

#endif /* FAULTLINE_CLI_OPTIONS_H */
