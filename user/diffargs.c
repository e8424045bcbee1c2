// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The command line of faultline diff: its help, its options and their checks. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "base/units.h"
#include "cli.h"
#include "diff.h"

#define MAX_TOP 1000000

static const char usage[] =
	"Usage: faultline diff [OPTIONS] BEFORE AFTER\n"
	"\n"
	"Compares two profiles and prints the stacks whose value changed most, growth\n"
	"and shrink alike, with before, after, delta and percent, and the totals. Each\n"
	"file is a folded-stack file written by faultline --folded (one\n"
	"'frame;...;leaf VALUE' line per stack) or a JSON profile written by --json or\n"
	"--json-stream (its last, final document), told apart by their first\n"
	"character; a JSON profile holds every counter, so --metric picks any.\n"
	"\n"
	"EXAMPLES:\n"
	"    faultline -q -d 60 --folded before.txt -p 1234\n"
	"    faultline -q -d 60 --folded after.txt -p 1234\n"
	"    faultline diff before.txt after.txt             # what changed most\n"
	"    faultline diff --svg diff.svg before.txt after.txt  # and a flame graph\n"
	"    faultline diff --metric faults a.json b.json     # two --json profiles\n"
	"\n"
	"  --top N         print the N stacks with the largest change (default 20)\n"
	"  --width N       cut lines at N columns (0: no cut; default: the terminal,\n"
	"                  $COLUMNS, or 100)\n"
	"  --svg FILE      also write a differential flame graph: the union of both\n"
	"                  trees, each stack as wide as max(before, after) so that\n"
	"                  shrunk and vanished stacks stay visible; red frames grew,\n"
	"                  blue shrank, deeper for a larger relative change\n"
	"  --metric NAME   folded files: the --metric both were written with (default:\n"
	"                  what their first line says, else resident), which tells\n"
	"                  bytes from counts and names the values; JSON profiles: the\n"
	"                  metric compared\n"
	"  -h, --help      show this help and exit\n"
	"\n"
	"Exit status: 0 success, 1 runtime failure (a file unreadable or with a bad\n"
	"line, reported as FILE:LINE), 2 usage error or folded files whose first\n"
	"lines say they hold different metrics or layouts.\n";

__attribute__((format(printf, 1, 2))) static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("faultline diff: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see faultline diff --help)\n", stderr);
}

/*
 * When argv[*i] is the option @name, as "--name VALUE" or "--name=VALUE": 1 with *@val set
 * (and *@i past the value); 0 when it is another word; -EINVAL when the value is missing.
 */
static int opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) || (argv[*i][n] && argv[*i][n] != '='))
		return 0;
	if (argv[*i][n] == '=') {
		*val = argv[*i] + n + 1;
	} else if (*i + 1 < argc) {
		*val = argv[++*i];
	} else {
		usage_error("%s needs a value", name);
		return -EINVAL;
	}
	if (!**val) {
		usage_error("%s: empty value", name);
		return -EINVAL;
	}
	return 1;
}

static int parse_top(const char *s, unsigned *out)
{
	unsigned long v = 0;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9' && v <= MAX_TOP; p++)
		v = v * 10 + (unsigned long)(*p - '0');
	if (*p || v < 1 || v > MAX_TOP) {
		usage_error("--top: '%s' is not a number in 1..%d", s, MAX_TOP);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_width(const char *s, long *out)
{
	int err = units__parse_width(s, out);

	if (err)
		usage_error("--width: '%s' is %s (0 for no cut, or %d..%d)", s,
			    units__width_problem(err), UNITS_MIN_COLS, UNITS_LINE_MAX);
	return err ? -EINVAL : 0;
}

/* One option at argv[*i]: 0, or -EINVAL after reporting. */
static int parse_option(int argc, char **argv, int *i, struct diff_config *cfg)
{
	const char *val = NULL;
	int r;

	if ((r = opt_value(argc, argv, i, "--top", &val)))
		return r < 0 ? r : parse_top(val, &cfg->top);
	if ((r = opt_value(argc, argv, i, "--width", &val)))
		return r < 0 ? r : parse_width(val, &cfg->width);
	if ((r = opt_value(argc, argv, i, "--svg", &val))) {
		cfg->svg = val;
		return r < 0 ? r : 0;
	}
	if ((r = opt_value(argc, argv, i, "--metric", &val))) {
		if (r > 0 && metric__parse(val, &cfg->metric)) {
			usage_error("--metric: unknown metric '%s'", val);
			return -EINVAL;
		}
		cfg->metric_given = r > 0;
		return r < 0 ? r : 0;
	}
	usage_error("unknown option '%s'", argv[*i]);
	return -EINVAL;
}

int diff__parse_args(int argc, char **argv, struct diff_config *cfg)
{
	const char *files[2];
	size_t nfiles = 0;
	bool options = true;

	memset(cfg, 0, sizeof(*cfg));
	cfg->top = DIFF_DEFAULT_TOP;
	cfg->width = UNITS_WIDTH_UNSET;
	cfg->metric = FL_METRIC_RESIDENT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (options && !strcmp(a, "--")) {
			options = false;
		} else if (options && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			fputs(usage, stdout);
			fflush(stdout);
			return FL_CLI_DONE;
		} else if (options && a[0] == '-' && a[1]) {
			if (parse_option(argc, argv, &i, cfg))
				return -EINVAL;
		} else if (nfiles == 2) {
			usage_error("unexpected argument '%s': give two files", a);
			return -EINVAL;
		} else {
			files[nfiles++] = a;
		}
	}
	if (nfiles != 2) {
		usage_error("give two profiles (folded or JSON), BEFORE and AFTER");
		return -EINVAL;
	}
	cfg->before = files[0];
	cfg->after = files[1];
	return 0;
}
