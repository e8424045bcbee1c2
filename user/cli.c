/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The command line, with argp. ARGP_NO_EXIT and our own --help/--version (ARGP_NO_HELP) keep
 * argp from ever calling exit(), so tests can call parse_args(). Errors are one line on stderr:
 * ours are printed here, getopt prints its own for unknown options and missing arguments, and
 * argp's "Try `faultline --help'" hint after it is sent to a memory stream and dropped.
 */
#include "cli.h"
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"
#include "cli_checks.h"
#include "cli_options.h"
#include "cli_ship.h"

#define DEFAULT_INTERVAL_S 1.0
#define DEFAULT_TOP 20
#define DEFAULT_STACK_STORAGE 16384
/* the unwind tables: redis with its libraries needs about 3 MiB, postgres 1 */
#define DEFAULT_UNWIND_MIB 64
#define MAX_UNWIND_MIB 65536
#define MIN_STACK_STORAGE 256
/* exited processes listed one by one: a host followed for days starts millions */
#define DEFAULT_KEEP_EXITED 4096
#define MIN_KEEP_EXITED 16
#define MAX_KEEP_EXITED 1048576
#define MAX_STACK_STORAGE 1048576
#define MIN_INTERVAL_S 0.1
#define MAX_SECONDS 31536000.0 /* a year: keeps every duration far from overflowing as ns */
#define MAX_TOP 1000000
#define DEFAULT_MAX_LIVE 1048576
#define MIN_MAX_LIVE 1024
#define MAX_MAX_LIVE 67108864
#define MAX_SAMPLE_BYTES 4294967296.0 /* keeps the BPF side's fixed-point draws exact */
/* --sample-time's bounds, in percent: below 1%, a window every 1-3 s says little at a 1 s
 * refresh; above 50% the traps cost most of what they would all the time */
#define MIN_SAMPLE_PCT 1
#define MAX_SAMPLE_PCT 50

/* A parse that printed what was asked (--help, --version) stops argp with this. */
#define STOP_DONE ECANCELED

struct cli_state {
	struct fl_config *cfg;
	FILE *hint; /* argp's err_stream: its hints are dropped */
	char *hint_buf;
	size_t hint_len;
	bool done; /* --help or --version printed */
};

static int add_pid(struct fl_config *cfg, pid_t pid)
{
	size_t i;

	for (i = 0; i < cfg->npids; i++) {
		if (cfg->pids[i] == pid) /* the same process twice is still one target */
			return 0;
	}
	if (cfg->npids == FL_MAX_PIDS) {
		usage_error("too many pids: at most %d", FL_MAX_PIDS);
		return -EINVAL;
	}
	cfg->pids[cfg->npids++] = pid;
	return 0;
}

/* "PID[,PID...]": every element a positive integer. */
static int parse_pids(struct fl_config *cfg, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL, *p;
	double v;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	if (!*arg || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") || *arg == ',') {
		usage_error("-p: empty pid in '%s'", arg);
		err = -EINVAL;
		goto cleanup;
	}
	for (p = copy; !err && (tok = strtok_r(p, ",", &save)); p = NULL) {
		err = cli__parse_number("-p", tok, true, 1, INT_MAX, &v);
		if (!err)
			err = add_pid(cfg, (pid_t)v);
	}
cleanup:
	free(copy);
	return err;
}

static int parse_metric(struct fl_config *cfg, const char *arg)
{
	cfg->metric_given = true;
	if (metric__parse(arg, &cfg->metric) == 0)
		return 0;
	usage_error("unknown metric '%s': expected resident, anon, file, shmem, swap, faults, "
		    "released, peak, alloc-bytes, alloc-count, live-bytes, live-count, reserved or "
		    "unmapped",
		    arg);
	return -EINVAL;
}

static const char *const top_names
	[] = { [FL_TOP_EXE] = "exe", [FL_TOP_PROCESS] = "process", [FL_TOP_CGROUP] = "cgroup" };

/* --by: at most one top (exe, process, cgroup), then stack and/or mapping (stack when
 * neither is given), comma-separated. */
static int parse_by(struct fl_config *cfg, const char *arg)
{
	char words[64], *save = NULL, *w;
	bool top = false;

	cfg->by_stack = cfg->by_mapping = false;
	cfg->by_top = FL_TOP_EXE;
	snprintf(words, sizeof(words), "%s", arg);
	for (w = strtok_r(words, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t t;

		for (t = 0; t < sizeof(top_names) / sizeof(top_names[0]); t++)
			if (!strcmp(w, top_names[t]))
				break;
		if (t < sizeof(top_names) / sizeof(top_names[0]) && !top) {
			cfg->by_top = (enum fl_top)t;
			top = true;
		} else if (!strcmp(w, "stack")) {
			cfg->by_stack = true;
		} else if (!strcmp(w, "mapping")) {
			cfg->by_mapping = true;
		} else {
			usage_error("--by %s: expected at most one of exe, process, cgroup, then "
				    "stack, mapping or stack,mapping",
				    arg);
			return -EINVAL;
		}
	}
	if (!cfg->by_mapping)
		cfg->by_stack = true;
	return 0;
}

const char *config__top_name(enum fl_top top)
{
	return top < sizeof(top_names) / sizeof(top_names[0]) ? top_names[top] : "exe";
}

void config__by_name(const struct fl_config *cfg, char *buf, size_t len)
{
	/* the default top goes unsaid, as before tops existed */
	snprintf(buf, len, "%s%s%s%s",
		 cfg->by_top == FL_TOP_EXE ? "" : config__top_name(cfg->by_top),
		 cfg->by_top == FL_TOP_EXE ? "" : ",", cfg->by_stack ? "stack" : "",
		 cfg->by_mapping ? (cfg->by_stack ? ",mapping" : "mapping") : "");
}

/* --folded, --json, --json-stream: a file name, or "-" for stdout. */
static int parse_output(const char *opt, const char *arg, const char **out)
{
	if (!*arg) {
		usage_error("%s: empty file name (use '-' for stdout)", opt);
		return -EINVAL;
	}
	*out = arg;
	return 0;
}

/* Two machine outputs on stdout would be one stream no program could split. */
int config__stdout_outputs(const struct fl_config *cfg)
{
	return (cfg->folded && !strcmp(cfg->folded, "-")) + (cfg->json && !strcmp(cfg->json, "-")) +
	       (cfg->json_stream && !strcmp(cfg->json_stream, "-"));
}

bool config__has_metric(const struct fl_config *cfg, enum fl_metric m)
{
	return (cfg->alloc || !metric__needs_alloc(m)) &&
	       (!cfg->alloc_churn || !metric__needs_frees(m)) &&
	       (cfg->vm || !metric__needs_vm(m)) &&
	       (metric__needs_new(cfg->metric) || !metric__needs_new(m));
}

/* Files only (--pprof, --svg): stdout carries the report, and a binary or an SVG would mix
 * with it. */
static int parse_file(const char *opt, const char *arg, const char **out)
{
	if (!*arg || !strcmp(arg, "-")) {
		usage_error("%s: give a file name (not for stdout)", opt);
		return -EINVAL;
	}
	*out = arg;
	return 0;
}

/* --sample-time PCT, with or without its '%'. */
static int parse_percent(struct fl_config *cfg, const char *arg)
{
	size_t n = strlen(arg);
	char num[32];
	double v;

	if (n && arg[n - 1] == '%')
		n--;
	if (n >= sizeof(num)) {
		usage_error("--sample-time: invalid number '%s'", arg);
		return -EINVAL;
	}
	memcpy(num, arg, n);
	num[n] = '\0';
	if (cli__parse_number("--sample-time", num, false, MIN_SAMPLE_PCT, MAX_SAMPLE_PCT, &v))
		return -EINVAL;
	cfg->sample_time = v / 100;
	return 0;
}

/* The options that take a number; @cfg changes only when the number is valid. */
static int parse_width(const char *arg, long *out)
{
	int err = units__parse_width(arg, out);

	if (err)
		usage_error("--width: '%s' is %s (0 for no cut, or %d..%d)", arg,
			    units__width_problem(err), UNITS_MIN_COLS, UNITS_LINE_MAX);
	return err ? -EINVAL : 0;
}

static int parse_numeric_opt(struct fl_config *cfg, int key, const char *arg)
{
	double v;

	switch (key) {
	case 'd':
		if (cli__parse_number("-d", arg, false, 0, MAX_SECONDS, &v))
			return -EINVAL;
		if (v <= 0) {
			usage_error("-d: '%s': the duration must be positive", arg);
			return -EINVAL;
		}
		cfg->duration_s = v;
		return 0;
	case 'i':
		if (cli__parse_number("-i", arg, false, MIN_INTERVAL_S, MAX_SECONDS, &v))
			return -EINVAL;
		cfg->interval_s = v;
		return 0;
	case OPT_TOP:
		if (cli__parse_number("--top", arg, true, 1, MAX_TOP, &v))
			return -EINVAL;
		cfg->top = (unsigned)v;
		return 0;
	case OPT_WIDTH:
		return parse_width(arg, &cfg->width);
	case OPT_STACK_STORAGE:
		if (cli__parse_number("--stack-storage", arg, true, MIN_STACK_STORAGE,
				      MAX_STACK_STORAGE, &v))
			return -EINVAL;
		cfg->stack_storage = (uint32_t)v;
		return 0;
	case OPT_KEEP_EXITED:
		if (cli__parse_number("--keep-exited", arg, true, MIN_KEEP_EXITED, MAX_KEEP_EXITED,
				      &v))
			return -EINVAL;
		cfg->keep_exited = (size_t)v;
		return 0;
	case OPT_UNWIND_MEM:
		if (cli__parse_number("--unwind-mem", arg, true, 0, MAX_UNWIND_MIB, &v))
			return -EINVAL;
		cfg->unwind_mib = (uint32_t)v;
		return 0;
	case OPT_MAX_LIVE:
		if (cli__parse_number("--max-live", arg, true, MIN_MAX_LIVE, MAX_MAX_LIVE, &v))
			return -EINVAL;
		cfg->max_live = (uint32_t)v;
		return 0;
	case OPT_SAMPLE_BYTES:
		if (cli__parse_number("--sample-bytes", arg, true, 1, MAX_SAMPLE_BYTES, &v))
			return -EINVAL;
		cfg->sample_bytes = (uint64_t)v;
		return 0;
	case OPT_SAMPLE_TIME:
		return parse_percent(cfg, arg);
	}
	return -EINVAL;
}

/* --alloc[=MODE]: exact (the default) or churn. */
static int parse_alloc(struct fl_config *cfg, const char *arg)
{
	cfg->alloc = true;
	cfg->alloc_churn = arg && !strcmp(arg, "churn");
	if (!arg || cfg->alloc_churn || !strcmp(arg, "exact"))
		return 0;
	usage_error("--alloc=%s: expected --alloc=exact (the default: every block, its free and "
		    "what stays live) or --alloc=churn (calls and bytes asked by stack, one trap "
		    "per call)",
		    arg);
	return -EINVAL;
}

/* A non-option argument: the command when it follows "--", else a mistake. */
static int parse_command(struct argp_state *state, struct cli_state *cs, char *arg)
{
	const char *prev = state->next >= 2 ? state->argv[state->next - 2] : "";

	if (!state->quoted || state->next - 1 < state->quoted) {
		/* an optional argument must be joined to its option: "--alloc churn" is two */
		if (!strcmp(prev, "--alloc") && (!strcmp(arg, "churn") || !strcmp(arg, "exact")))
			usage_error("unexpected argument '%s': the mode is joined to the option, "
				    "--alloc=%s",
				    arg, arg);
		else
			usage_error("unexpected argument '%s': put a command after --", arg);
		return -EINVAL;
	}
	cs->cfg->command = &state->argv[state->next - 1];
	state->next = state->argc; /* the command's own arguments are not ours */
	return 0;
}

static int parse_string(const char *opt, const char *arg, const char **out)
{
	if (!*arg) {
		usage_error("%s: empty value", opt);
		return -EINVAL;
	}
	*out = arg;
	return 0;
}

/* --alloc=churn sees no free: nothing is known to be live, and there is no live table. */
static int parse_cgroup(struct fl_config *cfg, const char *arg)
{
	if (!arg || !*arg) {
		usage_error("--cgroup: empty cgroup");
		return -EINVAL;
	}
	if (cfg->ncgroups >= FL_MAX_CGROUP_SELECTORS) {
		usage_error("too many --cgroup: at most %d", FL_MAX_CGROUP_SELECTORS);
		return -EINVAL;
	}
	cfg->cgroups[cfg->ncgroups++] = arg;
	/* its processes' children are in it too, and new ones are found by their forks */
	cfg->children = true;
	return 0;
}

static int parse_special(struct argp_state *state, struct cli_state *cs, int key)
{
	switch (key) {
	case ARGP_KEY_INIT:
		/* argp's hints after an error go to a stream nobody reads. */
		cs->hint = open_memstream(&cs->hint_buf, &cs->hint_len);
		if (cs->hint)
			state->err_stream = cs->hint;
		return 0;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		cs->done = true;
		return STOP_DONE;
	case OPT_VERSION:
		printf("faultline %s\n", FAULTLINE_VERSION);
		cs->done = true;
		return STOP_DONE;
	case ARGP_KEY_END:
		return -cli__check(cs->cfg);
	}
	return ARGP_ERR_UNKNOWN;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct cli_state *cs = state->input;
	struct fl_config *cfg = cs->cfg;
	int err;

	switch (key) {
	case 'p':
		err = parse_pids(cfg, arg);
		break;
	case 'd':
	case 'i':
	case OPT_TOP:
	case OPT_WIDTH:
	case OPT_STACK_STORAGE:
	case OPT_KEEP_EXITED:
	case OPT_UNWIND_MEM:
	case OPT_SAMPLE_BYTES:
	case OPT_SAMPLE_TIME:
		err = parse_numeric_opt(cfg, key, arg);
		break;
	case OPT_MAX_LIVE:
		cfg->max_live_given = true;
		err = parse_numeric_opt(cfg, key, arg);
		break;
	case OPT_ALLOC:
		err = parse_alloc(cfg, arg);
		break;
	case OPT_VM:
		cfg->vm = true;
		return 0;
	case OPT_BY:
		err = parse_by(cfg, arg);
		break;
	case OPT_PLAIN:
		cfg->plain = true;
		return 0;
	case OPT_NO_DEBUGINFOD:
		cfg->no_debuginfod = true;
		return 0;
	case OPT_INLINE:
		cfg->inline_frames = true;
		return 0;
	case OPT_ALLOC_LIB:
		err = parse_string("--alloc-lib", arg, &cfg->alloc_lib);
		break;
	case OPT_ALLOC_PREFIX:
		err = parse_string("--alloc-prefix", arg, &cfg->alloc_prefix);
		break;
	case 'T':
		cfg->threads = true;
		return 0;
	case 'f':
		cfg->children = true;
		return 0;
	case 'a':
		cfg->all = true;
		cfg->children = true;
		return 0;
	case OPT_CGROUP:
		err = parse_cgroup(cfg, arg);
		break;
	case 'q':
		cfg->quiet = true;
		return 0;
	case 'v':
		cfg->verbose++;
		return 0;
	case OPT_FOLDED:
		err = parse_output("--folded", arg, &cfg->folded);
		break;
	case OPT_JSON:
		err = parse_output("--json", arg, &cfg->json);
		break;
	case OPT_JSON_STREAM:
		err = parse_output("--json-stream", arg, &cfg->json_stream);
		break;
	case OPT_PPROF:
		err = parse_file("--pprof", arg, &cfg->pprof);
		break;
	case OPT_SVG:
		err = parse_file("--svg", arg, &cfg->svg);
		break;
	case OPT_METRIC:
		err = parse_metric(cfg, arg);
		break;
	case ARGP_KEY_ARG:
		err = parse_command(state, cs, arg);
		break;
	default:
		err = cli_ship__parse(cfg, key, arg);
		if (err != -ENOENT)
			break;
		return parse_special(state, cs, key);
	}
	/* argp wants a positive error number; EINVAL also stops it quietly. */
	return err ? -err : 0;
}

static void config_defaults(struct fl_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->interval_s = DEFAULT_INTERVAL_S;
	cfg->top = DEFAULT_TOP;
	cfg->width = UNITS_WIDTH_UNSET;
	cfg->metric = FL_METRIC_RESIDENT;
	cfg->by_stack = true;
	cfg->stack_storage = DEFAULT_STACK_STORAGE;
	cfg->keep_exited = DEFAULT_KEEP_EXITED;
	cfg->unwind_mib = DEFAULT_UNWIND_MIB;
	cfg->max_live = DEFAULT_MAX_LIVE;
}

int parse_args(int argc, char **argv, struct fl_config *cfg)
{
	static const struct argp argp = {
		.options = cli_options,
		.parser = parse_opt,
		.args_doc = cli_args_doc,
		.doc = cli_doc,
	};
	struct cli_state cs = { .cfg = cfg };
	char *argv0 = argc > 0 ? argv[0] : NULL;
	error_t err;

	config_defaults(cfg);
	/* getopt names argv[0] in its messages: "faultline: ..." like ours, whatever the path. */
	if (argv0)
		argv[0] = (char *)"faultline";
	/* ARGP_IN_ORDER: a stray word before "--" is an error, not a command by permutation. */
	err = argp_parse(&argp, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_IN_ORDER, NULL, &cs);
	if (argv0)
		argv[0] = argv0;
	if (cs.hint)
		fclose(cs.hint);
	free(cs.hint_buf);
	fflush(stdout);
	if (cs.done)
		return FL_CLI_DONE;
	return err ? -(int)err : 0; /* -EINVAL, or -ENOMEM */
}
