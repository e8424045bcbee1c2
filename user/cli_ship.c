// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#include "cli_ship.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_checks.h"
#include "cli_options.h"
#include "ship/http.h"

static int parse_url(const char *opt, const char *arg, const char **out)
{
	char why[160];

	if (!http__url_ok(arg, why, sizeof(why))) {
		usage_error("%s %s: %s", opt, arg, why);
		return -EINVAL;
	}
	*out = arg;
	return 0;
}

/* K=V: a header's name (no space, no colon) and its value, both on one line. */
static int parse_header(const char *opt, const char *arg, const char **v, size_t *n)
{
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : 0;

	if (!klen || strcspn(arg, " \t:") < klen || strpbrk(arg, "\r\n")) {
		usage_error("%s %s: give NAME=VALUE (a header name, '=', its value)", opt, arg);
		return -EINVAL;
	}
	if (*n >= FL_SHIP_MAX_HEADERS) {
		usage_error("too many %s: at most %d", opt, FL_SHIP_MAX_HEADERS);
		return -EINVAL;
	}
	v[(*n)++] = arg;
	return 0;
}

int cli_ship__parse(struct fl_config *cfg, int key, const char *arg)
{
	struct fl_ship_config *s = &cfg->ship;

	switch (key) {
	case OPT_OTLP:
		return parse_url("--otlp", arg, &s->otlp);
	case OPT_PYROSCOPE:
		return parse_url("--pyroscope", arg, &s->pyroscope);
	case OPT_OTLP_HEADER:
		return parse_header("--otlp-header", arg, s->otlp_headers, &s->notlp_headers);
	case OPT_PYROSCOPE_HEADER:
		return parse_header("--pyroscope-header", arg, s->pyroscope_headers,
				    &s->npyroscope_headers);
	case OPT_SERVICE:
		if (!*arg || strpbrk(arg, "{}=,\r\n")) {
			usage_error("--service '%s': give a name without {}=, (a Pyroscope "
				    "application name)",
				    arg);
			return -EINVAL;
		}
		s->service = arg;
		return 0;
	case OPT_EVERY:
		return cli__parse_number("--every", arg, false, 1, 86400, &s->every_s);
	case OPT_CA_FILE:
		if (access(arg, R_OK)) {
			usage_error("--ca-file %s: %s", arg, strerror(errno));
			return -EINVAL;
		}
		s->ca_file = arg;
		return 0;
	default:
		return -ENOENT;
	}
}

int cli_ship__check(const struct fl_config *cfg)
{
	const struct fl_ship_config *s = &cfg->ship;

	if (s->notlp_headers && !s->otlp) {
		usage_error("--otlp-header: no --otlp to send it with");
		return -EINVAL;
	}
	if (s->npyroscope_headers && !s->pyroscope) {
		usage_error("--pyroscope-header: no --pyroscope to send it with");
		return -EINVAL;
	}
	if ((s->ca_file || s->service || s->every_s) && !s->otlp && !s->pyroscope) {
		usage_error("%s: no --otlp or --pyroscope to use it with",
			    s->ca_file ? "--ca-file" :
			    s->service ? "--service" :
					 "--every");
		return -EINVAL;
	}
	return 0;
}
