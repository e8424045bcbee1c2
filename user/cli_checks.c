// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* The options that must go together, or not: checked once the whole command line is read. */
#include "cli_checks.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_ship.h"

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("faultline: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli__parse_number(const char *opt, const char *s, bool integer, double min, double max,
		      double *out)
{
	char *end = NULL;
	double v;

	errno = 0;
	if (!s || !((*s >= '0' && *s <= '9') || (*s == '.' && !integer)))
		goto bad;
	if (integer) {
		unsigned long long u = strtoull(s, &end, 10);

		v = (double)u;
		if (u == ULLONG_MAX && errno == ERANGE)
			v = INFINITY;
	} else {
		if (strpbrk(s, "xXnN")) /* hex floats, inf, nan */
			goto bad;
		v = strtod(s, &end);
	}
	if (end == s || *end || !isfinite(v) || (errno == ERANGE && !integer))
		goto bad;
	if (v < min || v > max) {
		usage_error("%s: '%s' is out of range (%.10g..%.10g)", opt, s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
bad:
	usage_error("%s: invalid number '%s'", opt, s ? s : "");
	return -EINVAL;
}

static int check_outputs(const struct fl_config *cfg)
{
	if (config__stdout_outputs(cfg) < 2)
		return 0;
	usage_error("only one of --folded, --json and --json-stream can write to stdout ('-')");
	return -EINVAL;
}

static int check_churn(const struct fl_config *cfg)
{
	if (metric__needs_frees(cfg->metric)) {
		usage_error("--metric %s needs the frees, which --alloc=churn does not trace (one "
			    "trap per allocation call, nothing known to be live): use --alloc for "
			    "exact live tracking, or --metric alloc-bytes or alloc-count",
			    metric__name(cfg->metric));
		return -EINVAL;
	}
	if (cfg->max_live_given) {
		usage_error("--max-live sizes the live table, which --alloc=churn does not keep "
			    "(use --alloc for exact live tracking)");
		return -EINVAL;
	}
	if (cfg->sample_time && cfg->sample_bytes) {
		usage_error("--sample-time and --sample-bytes: choose one (--sample-time saves "
			    "the traps, --sample-bytes only the recording)");
		return -EINVAL;
	}
	return 0;
}

/* The allocator options only mean something with --alloc, and so do its metrics. */
static int check_alloc(const struct fl_config *cfg)
{
	if (cfg->alloc_churn)
		return check_churn(cfg);
	if (cfg->sample_time) {
		usage_error("--sample-time needs --alloc=churn: exact tracking must see every "
			    "allocation and every free, and --alloc=churn counts calls alone");
		return -EINVAL;
	}
	if (cfg->alloc)
		return 0;
	if (cfg->alloc_lib || cfg->alloc_prefix || cfg->max_live_given || cfg->sample_bytes) {
		usage_error(
			"--alloc-lib, --alloc-prefix, --max-live and --sample-bytes need --alloc");
		return -EINVAL;
	}
	if (metric__needs_alloc(cfg->metric)) {
		usage_error("--metric %s needs --alloc", metric__name(cfg->metric));
		return -EINVAL;
	}
	return 0;
}

static int check_vm(const struct fl_config *cfg)
{
	if (!cfg->vm && metric__needs_vm(cfg->metric)) {
		usage_error("--metric %s needs --vm", metric__name(cfg->metric));
		return -EINVAL;
	}
	return 0;
}

static int check_target(const struct fl_config *cfg)
{
	if (cfg->npids && cfg->command) {
		usage_error("give either -p PID or a command after --, not both");
		return -EINVAL;
	}
	if (!cfg->npids && !cfg->command && !cfg->all && !cfg->ncgroups) {
		usage_error("nothing to profile: give -p PID[,PID...], -a, --cgroup PATH|UNIT|ID "
			    "or -- COMMAND [ARG...]");
		return -EINVAL;
	}
	if (cfg->all && cfg->ncgroups) {
		usage_error("-a traces every process already: --cgroup adds nothing to it");
		return -EINVAL;
	}
	/* a uprobe in every process's allocator: each of its calls on the host would trap */
	if (cfg->all && cfg->alloc) {
		usage_error("--alloc with -a would probe the allocator of every process on the "
			    "host: choose processes with -p or --cgroup");
		return -EINVAL;
	}
	return 0;
}

int cli__check(const struct fl_config *cfg)
{
	return check_target(cfg)	  ?:
		       check_alloc(cfg)	  ?:
		       check_vm(cfg)	  ?:
		       check_outputs(cfg) ?:
					    cli_ship__check(cfg);
}
