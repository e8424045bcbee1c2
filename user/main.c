// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* faultline: where resident memory grows, by call stack and by thread. */
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "diff.h"
#include "session.h"

static int verbosity;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && verbosity < 2)
		return 0;
	/* libbpf's warnings include whole verifier logs: faultline says what failed on its own */
	if (level != LIBBPF_DEBUG && verbosity < 1)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void on_sigpipe(int sig)
{
	(void)sig;
}

/*
 * A reader that goes away (`faultline ... | head`) must not kill faultline before it writes
 * its files: a write to it fails with EPIPE instead, which the writers report. Caught, not
 * ignored: exec resets a caught signal to SIG_DFL, where SIG_IGN would be inherited by a
 * launched command (and by everything it starts), which would then no longer die of SIGPIPE
 * in its own pipelines. tests/integration/test_outputs.c checks both.
 */
static void survive_sigpipe(void)
{
	struct sigaction sa = { .sa_handler = on_sigpipe, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
}

int main(int argc, char **argv)
{
	struct fl_config cfg;
	int err;

	survive_sigpipe();
	/* a subcommand, with its own options: reads files, needs no BPF and no root */
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff__main(argc - 1, argv + 1);
	err = parse_args(argc, argv, &cfg);
	if (err == FL_CLI_DONE)
		return 0;
	if (err)
		return 2;
	verbosity = cfg.verbose;
	libbpf_set_print(print_libbpf);
	return session__run(&cfg);
}
