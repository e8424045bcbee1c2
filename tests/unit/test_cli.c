/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"
#include "cli.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

/* parse_args() on a NULL-terminated list of arguments after the program name. */
#define PARSE(cfg, ...)                                             \
	({                                                          \
		char *argv_[] = { "faultline", __VA_ARGS__, NULL }; \
		parse_args(ARGC(argv_), argv_, (cfg));              \
	})

static void quiet(void)
{
	cr_redirect_stderr();
	cr_redirect_stdout();
}

/* Everything the redirected stream @f received. */
static char *slurp(FILE *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;

	cr_assert_not_null(f);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	return buf;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A usage error: -EINVAL, exactly one lowercase line on stderr holding @needle. */
#define EXPECT_USAGE_ERROR(needle, ...)                                                  \
	do {                                                                             \
		struct fl_config cfg_;                                                   \
		char *err_;                                                              \
		cr_assert_eq(PARSE(&cfg_, __VA_ARGS__), -EINVAL);                        \
		fflush(stderr);                                                          \
		err_ = slurp(cr_get_redirected_stderr());                                \
		cr_expect_eq(count_lines(err_), 1, "stderr: '%s'", err_);                \
		cr_expect_not_null(strstr(err_, needle), "stderr: '%s'", err_);          \
		cr_expect_eq(strncmp(err_, "faultline: ", 11), 0, "stderr: '%s'", err_); \
		cr_expect(err_[11]<'A' || err_[11]> 'Z', "stderr: '%s'", err_);          \
		free(err_);                                                              \
	} while (0)

Test(cli, defaults_with_pid, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "42"), 0);
	cr_expect_eq(cfg.npids, 1);
	cr_expect_eq(cfg.pids[0], 42);
	cr_expect_null(cfg.command);
	cr_expect_eq(cfg.duration_s, 0);
	cr_expect_eq(cfg.interval_s, 1.0);
	cr_expect_eq(cfg.top, 20);
	cr_expect_not(cfg.threads);
	cr_expect_not(cfg.children);
	cr_expect_not(cfg.quiet);
	cr_expect_eq(cfg.verbose, 0);
	cr_expect_null(cfg.folded);
	cr_expect_null(cfg.pprof);
	cr_expect_eq(cfg.metric, FL_METRIC_RESIDENT);
	cr_expect_eq(cfg.stack_storage, 16384);
}

Test(cli, pid_lists, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "1,22,333", "--pid", "4444", "-p5", "--pid=22"), 0);
	cr_assert_eq(cfg.npids, 5, "duplicates count once");
	cr_expect_eq(cfg.pids[0], 1);
	cr_expect_eq(cfg.pids[1], 22);
	cr_expect_eq(cfg.pids[2], 333);
	cr_expect_eq(cfg.pids[3], 4444);
	cr_expect_eq(cfg.pids[4], 5);
	cr_assert_eq(PARSE(&cfg, "-p", "2147483647"), 0);
	cr_expect_eq(cfg.pids[0], 2147483647);
}

Test(cli, pid_limit, .init = quiet)
{
	struct fl_config cfg;
	char list[1024] = "";
	int i;

	for (i = 1; i <= FL_MAX_PIDS; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", i > 1 ? "," : "",
			 i);
	cr_assert_eq(PARSE(&cfg, "-p", list), 0);
	cr_expect_eq(cfg.npids, FL_MAX_PIDS);
	cr_expect_eq(PARSE(&cfg, "-p", list, "-p", "1000"), -EINVAL);
}

Test(cli, bad_pids, .init = quiet)
{
	EXPECT_USAGE_ERROR("'0'", "-p", "0");
	EXPECT_USAGE_ERROR("'-1'", "-p", "-1");
	EXPECT_USAGE_ERROR("'12x'", "-p", "12x");
	EXPECT_USAGE_ERROR("'+3'", "-p", "+3");
	EXPECT_USAGE_ERROR("' 3'", "-p", " 3");
	EXPECT_USAGE_ERROR("'1.5'", "-p", "1.5");
	EXPECT_USAGE_ERROR("2147483648", "-p", "2147483648");
	EXPECT_USAGE_ERROR("99999999999999999999999", "-p", "99999999999999999999999");
	EXPECT_USAGE_ERROR("empty pid", "-p", "");
	EXPECT_USAGE_ERROR("empty pid", "-p", "1,,2");
	EXPECT_USAGE_ERROR("empty pid", "-p", "1,");
	EXPECT_USAGE_ERROR("empty pid", "-p", ",1");
	EXPECT_USAGE_ERROR("requires an argument", "-p");
}

Test(cli, command, .init = quiet)
{
	struct fl_config cfg;
	char *argv[] = { "faultline", "-T", "--", "./app", "-p", "7", "--", "--help", NULL };

	cr_assert_eq(parse_args(ARGC(argv), argv, &cfg), 0);
	cr_assert_not_null(cfg.command);
	cr_expect_str_eq(cfg.command[0], "./app");
	cr_expect_str_eq(cfg.command[1], "-p");
	cr_expect_str_eq(cfg.command[2], "7");
	cr_expect_str_eq(cfg.command[3], "--");
	cr_expect_str_eq(cfg.command[4], "--help");
	cr_expect_null(cfg.command[5]);
	cr_expect_eq(cfg.npids, 0, "the command's -p is not ours");
	cr_expect(cfg.threads);
}

Test(cli, target_errors, .init = quiet)
{
	EXPECT_USAGE_ERROR("not both", "-p", "1", "--", "ls");
	EXPECT_USAGE_ERROR("nothing to profile", "-T");
	EXPECT_USAGE_ERROR("nothing to profile", "--");
	EXPECT_USAGE_ERROR("unexpected argument 'ls'", "ls");
	EXPECT_USAGE_ERROR("unexpected argument 'foo'", "-d", "5", "foo", "--", "ls");
}

Test(cli, no_arguments, .init = quiet)
{
	struct fl_config cfg;
	char *argv[] = { "faultline", NULL };

	cr_expect_eq(parse_args(1, argv, &cfg), -EINVAL);
}

Test(cli, durations_and_intervals, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "1", "-d", "2.5", "-i", "0.1"), 0);
	cr_expect_eq(cfg.duration_s, 2.5);
	cr_expect_eq(cfg.interval_s, 0.1);
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--duration=10", "--interval", "3"), 0);
	cr_expect_eq(cfg.duration_s, 10);
	cr_expect_eq(cfg.interval_s, 3);
	cr_assert_eq(PARSE(&cfg, "-p", "1", "-d", ".5"), 0);
	cr_expect_eq(cfg.duration_s, 0.5);
}

Test(cli, bad_durations_and_intervals, .init = quiet)
{
	EXPECT_USAGE_ERROR("positive", "-p", "1", "-d", "0");
	EXPECT_USAGE_ERROR("'-1'", "-p", "1", "-d", "-1");
	EXPECT_USAGE_ERROR("''", "-p", "1", "-d", "");
	EXPECT_USAGE_ERROR("'1x'", "-p", "1", "-d", "1x");
	EXPECT_USAGE_ERROR("'inf'", "-p", "1", "-d", "inf");
	EXPECT_USAGE_ERROR("'nan'", "-p", "1", "-d", "nan");
	EXPECT_USAGE_ERROR("'0x10'", "-p", "1", "-d", "0x10");
	EXPECT_USAGE_ERROR("out of range", "-p", "1", "-d", "1e300");
	EXPECT_USAGE_ERROR("out of range", "-p", "1", "-i", "0.05");
	EXPECT_USAGE_ERROR("out of range", "-p", "1", "-i", "0");
	EXPECT_USAGE_ERROR("'1s'", "-p", "1", "-i", "1s");
	EXPECT_USAGE_ERROR("requires an argument", "-p", "1", "-d");
	EXPECT_USAGE_ERROR("requires an argument", "-p", "1", "--interval");
}

Test(cli, top_and_stack_storage, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "1", "--top", "1", "--stack-storage", "256"), 0);
	cr_expect_eq(cfg.top, 1);
	cr_expect_eq(cfg.stack_storage, 256);
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--top=500", "--stack-storage=1048576"), 0);
	cr_expect_eq(cfg.top, 500);
	cr_expect_eq(cfg.stack_storage, 1048576);
	EXPECT_USAGE_ERROR("out of range", "-p", "1", "--top", "0");
	EXPECT_USAGE_ERROR("'-5'", "-p", "1", "--top", "-5");
	EXPECT_USAGE_ERROR("'2.5'", "-p", "1", "--top", "2.5");
	EXPECT_USAGE_ERROR("'1x'", "-p", "1", "--top", "1x");
	EXPECT_USAGE_ERROR("out of range", "-p", "1", "--stack-storage", "255");
	EXPECT_USAGE_ERROR("out of range", "-p", "1", "--stack-storage", "1048577");
	EXPECT_USAGE_ERROR("'99999999999999999999'", "-p", "1", "--stack-storage",
			   "99999999999999999999");
}

/* --width N: 0 cuts nothing; narrower than a table's columns is refused (issue 25) */
Test(cli, width, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "1"), 0);
	cr_expect_eq(cfg.width, UNITS_WIDTH_UNSET);
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--width", "0"), 0);
	cr_expect_eq(cfg.width, 0);
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--width=250"), 0);
	cr_expect_eq(cfg.width, 250);
	EXPECT_USAGE_ERROR("--width: '10' is too narrow (0 for no cut, or 40..1000)", "-p", "1",
			   "--width", "10");
	EXPECT_USAGE_ERROR("out of range", "-p", "1", "--width", "1001");
	EXPECT_USAGE_ERROR("'-1'", "-p", "1", "--width", "-1");
}

Test(cli, unwind_mem, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "1"), 0);
	cr_expect_eq(cfg.unwind_mib, 64, "the default bound");
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--unwind-mem", "0"), 0);
	cr_expect_eq(cfg.unwind_mib, 0, "0: frame pointers only");
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--unwind-mem=512"), 0);
	cr_expect_eq(cfg.unwind_mib, 512);
	EXPECT_USAGE_ERROR("'-1'", "-p", "1", "--unwind-mem", "-1");
	EXPECT_USAGE_ERROR("out of range", "-p", "1", "--unwind-mem", "65537");
}

Test(cli, flags, .init = quiet)
{
	char *cmd[] = { "faultline", "--children", "--", "./app", "-f", NULL };
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "1", "-T", "-q", "-v", "-vv", "--verbose"), 0);
	cr_expect(cfg.threads);
	cr_expect(cfg.quiet);
	cr_expect_eq(cfg.verbose, 4);
	cr_assert_eq(PARSE(&cfg, "-Tqp", "9", "--threads", "--quiet"), 0);
	cr_expect(cfg.threads);
	cr_expect(cfg.quiet);
	cr_expect_eq(cfg.pids[0], 9);
	cr_assert_eq(PARSE(&cfg, "-fp", "9"), 0);
	cr_expect(cfg.children);
	/* cfg.command points into argv: one that outlives the call (PARSE's does not) */
	cr_assert_eq(parse_args(ARGC(cmd), cmd, &cfg), 0);
	cr_expect(cfg.children);
	cr_expect_str_eq(cfg.command[1], "-f", "the command's -f is not ours");
}

Test(cli, folded_and_metric, .init = quiet)
{
	struct fl_config cfg;
	static const char *const names[] = { "resident", "anon",   "file",    "shmem",
					     "swap",	 "faults", "released" };
	size_t i;

	cr_assert_eq(PARSE(&cfg, "-p", "1", "--folded", "-"), 0);
	cr_expect_str_eq(cfg.folded, "-");
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--folded=out.txt"), 0);
	cr_expect_str_eq(cfg.folded, "out.txt");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		cr_assert_eq(PARSE(&cfg, "-p", "1", "--metric", (char *)names[i]), 0);
		cr_expect_eq(cfg.metric, (enum fl_metric)i, "%s", names[i]);
	}
	EXPECT_USAGE_ERROR("resident, anon, file, shmem, swap, faults, released", "-p", "1",
			   "--metric", "rss");
	EXPECT_USAGE_ERROR("empty file name", "-p", "1", "--folded", "");
	EXPECT_USAGE_ERROR("requires an argument", "-p", "1", "--folded");
}

Test(cli, pprof, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "1", "--pprof", "out.pb.gz", "--folded", "-"), 0);
	cr_expect_str_eq(cfg.pprof, "out.pb.gz");
	cr_expect_str_eq(cfg.folded, "-");
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--pprof=p.pb.gz"), 0);
	cr_expect_str_eq(cfg.pprof, "p.pb.gz");
	EXPECT_USAGE_ERROR("not for stdout", "-p", "1", "--pprof", "-");
	EXPECT_USAGE_ERROR("give a file name", "-p", "1", "--pprof", "");
	EXPECT_USAGE_ERROR("requires an argument", "-p", "1", "--pprof");
}

Test(cli, json_outputs, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "1"), 0);
	cr_expect_null(cfg.json);
	cr_expect_null(cfg.json_stream);
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--json", "out.json", "--json-stream=-"), 0);
	cr_expect_str_eq(cfg.json, "out.json");
	cr_expect_str_eq(cfg.json_stream, "-");
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--json", "-", "--folded", "f"), 0);
	EXPECT_USAGE_ERROR("empty file name", "-p", "1", "--json", "");
	EXPECT_USAGE_ERROR("empty file name", "-p", "1", "--json-stream", "");
	EXPECT_USAGE_ERROR("requires an argument", "-p", "1", "--json-stream");
	/* two machine formats on stdout could not be told apart */
	EXPECT_USAGE_ERROR("only one of", "-p", "1", "--json", "-", "--json-stream", "-");
	EXPECT_USAGE_ERROR("only one of", "-p", "1", "--folded", "-", "--json", "-");
}

Test(cli, svg, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "1"), 0);
	cr_expect_null(cfg.svg);
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--svg", "out.svg", "--folded", "out.txt"), 0);
	cr_expect_str_eq(cfg.svg, "out.svg");
	cr_expect_str_eq(cfg.folded, "out.txt");
	EXPECT_USAGE_ERROR("--svg: give a file name", "-p", "1", "--svg", "-");
	EXPECT_USAGE_ERROR("--svg: give a file name", "-p", "1", "--svg=");
}

Test(cli, alloc_options, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-p", "1"), 0);
	cr_expect_not(cfg.alloc);
	cr_expect_eq(cfg.max_live, 1048576);
	cr_expect_eq(cfg.sample_bytes, 0);
	cr_assert_eq(PARSE(&cfg, "--alloc", "--alloc-lib", "/x/libjemalloc.so.2", "--alloc-prefix",
			   "je_", "--max-live", "4096", "--sample-bytes", "524288", "--metric",
			   "live-bytes", "-p", "1"),
		     0);
	cr_expect(cfg.alloc);
	cr_expect_str_eq(cfg.alloc_lib, "/x/libjemalloc.so.2");
	cr_expect_str_eq(cfg.alloc_prefix, "je_");
	cr_expect_eq(cfg.max_live, 4096);
	cr_expect_eq(cfg.sample_bytes, 524288);
	cr_expect_eq(cfg.metric, FL_METRIC_LIVE_BYTES);
	EXPECT_USAGE_ERROR("need --alloc", "--sample-bytes", "4096", "-p", "1");
	EXPECT_USAGE_ERROR("need --alloc", "--alloc-lib", "/lib/x.so", "-p", "1");
	EXPECT_USAGE_ERROR("--metric alloc-count needs --alloc", "--metric", "alloc-count", "-p",
			   "1");
	EXPECT_USAGE_ERROR("out of range", "--alloc", "--max-live", "10", "-p", "1");
	EXPECT_USAGE_ERROR("invalid number", "--alloc", "--sample-bytes", "-5", "-p", "1");
	EXPECT_USAGE_ERROR("out of range", "--alloc", "--sample-bytes", "0", "-p", "1");
	EXPECT_USAGE_ERROR("empty value", "--alloc", "--alloc-prefix", "", "-p", "1");
}

/* --alloc[=MODE]: plain --alloc is exact, --alloc=churn takes the entries alone. */
Test(cli, alloc_modes, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "--alloc", "-p", "1"), 0);
	cr_expect(cfg.alloc);
	cr_expect_not(cfg.alloc_churn);
	cr_assert_eq(PARSE(&cfg, "--alloc=exact", "-p", "1"), 0);
	cr_expect(cfg.alloc);
	cr_expect_not(cfg.alloc_churn);
	cr_assert_eq(PARSE(&cfg, "--alloc=churn", "-p", "1"), 0);
	cr_expect(cfg.alloc);
	cr_expect(cfg.alloc_churn);
	cr_expect_eq(cfg.metric, FL_METRIC_RESIDENT, "the tree's default, as with --alloc");
	/* the last one given wins, as for any option */
	cr_assert_eq(PARSE(&cfg, "--alloc=churn", "--alloc", "-p", "1"), 0);
	cr_expect_not(cfg.alloc_churn);
	/* what composes with it: the allocator options, sampling, its two metrics */
	cr_assert_eq(PARSE(&cfg, "--alloc=churn", "--alloc-lib", "/x/libjemalloc.so.2",
			   "--alloc-prefix", "je_", "--sample-bytes", "4096", "--metric",
			   "alloc-count", "-p", "1"),
		     0);
	cr_expect(cfg.alloc_churn);
	cr_expect_eq(cfg.sample_bytes, 4096);
	cr_expect_eq(cfg.metric, FL_METRIC_ALLOC_COUNT);
	cr_assert_eq(PARSE(&cfg, "--alloc=churn", "--metric", "alloc-bytes", "-p", "1"), 0);
	cr_expect(config__has_metric(&cfg, FL_METRIC_ALLOC_BYTES));
	cr_expect(config__has_metric(&cfg, FL_METRIC_ALLOC_COUNT));
	cr_expect_not(config__has_metric(&cfg, FL_METRIC_LIVE_BYTES), "nothing is known live");
	cr_expect_not(config__has_metric(&cfg, FL_METRIC_LIVE_COUNT));
	/* --sample-time: churn mode only, 1-50%, with or without the sign */
	cr_expect_eq(cfg.sample_time, 0);
	cr_assert_eq(PARSE(&cfg, "--alloc=churn", "--sample-time", "10", "-p", "1"), 0);
	cr_expect_float_eq(cfg.sample_time, 0.10, 1e-12);
	cr_assert_eq(PARSE(&cfg, "--alloc=churn", "--sample-time", "2.5%", "-p", "1"), 0);
	cr_expect_float_eq(cfg.sample_time, 0.025, 1e-12);
	EXPECT_USAGE_ERROR("--sample-time needs --alloc=churn", "--alloc", "--sample-time", "10",
			   "-p", "1");
	EXPECT_USAGE_ERROR("--sample-time needs --alloc=churn", "--sample-time", "10", "-p", "1");
	EXPECT_USAGE_ERROR("out of range", "--alloc=churn", "--sample-time", "60", "-p", "1");
	EXPECT_USAGE_ERROR("out of range", "--alloc=churn", "--sample-time", "0.5%", "-p", "1");
	EXPECT_USAGE_ERROR("invalid number", "--alloc=churn", "--sample-time", "%", "-p", "1");
	EXPECT_USAGE_ERROR("invalid number", "--alloc=churn", "--sample-time", "10%%", "-p", "1");
	EXPECT_USAGE_ERROR("choose one", "--alloc=churn", "--sample-time", "10", "--sample-bytes",
			   "4096", "-p", "1");
	cr_expect(config__has_metric(&cfg, FL_METRIC_RESIDENT));
	cr_assert_eq(PARSE(&cfg, "--alloc", "-p", "1"), 0);
	cr_expect(config__has_metric(&cfg, FL_METRIC_LIVE_BYTES));
	/* what it cannot do is refused with why and what to use instead */
	EXPECT_USAGE_ERROR("--metric live-bytes needs the frees, which --alloc=churn does not "
			   "trace",
			   "--alloc=churn", "--metric", "live-bytes", "-p", "1");
	EXPECT_USAGE_ERROR("use --alloc for exact live tracking", "--alloc=churn", "--metric",
			   "live-count", "-p", "1");
	EXPECT_USAGE_ERROR("--max-live sizes the live table, which --alloc=churn does not keep",
			   "--alloc=churn", "--max-live", "4096", "-p", "1");
	EXPECT_USAGE_ERROR("--alloc=bogus: expected --alloc=exact", "--alloc=bogus", "-p", "1");
	EXPECT_USAGE_ERROR("--alloc=: expected", "--alloc=", "-p", "1");
	EXPECT_USAGE_ERROR("the mode is joined to the option, --alloc=churn", "--alloc", "churn",
			   "-p", "1");
	EXPECT_USAGE_ERROR("--metric live-bytes needs --alloc", "--metric", "live-bytes", "-p",
			   "1");
}

Test(cli, unknown_options, .init = quiet)
{
	EXPECT_USAGE_ERROR("--bogus", "-p", "1", "--bogus");
	EXPECT_USAGE_ERROR("'x'", "-p", "1", "-x");
	EXPECT_USAGE_ERROR("'z'", "-Tz", "-p", "1");
}

Test(cli, help, .init = quiet)
{
	struct fl_config cfg;
	char *out;

	cr_assert_eq(PARSE(&cfg, "--help"), FL_CLI_DONE);
	cr_assert_eq(PARSE(&cfg, "-p", "1", "-h", "--bogus"), FL_CLI_DONE);
	fflush(stdout);
	out = slurp(cr_get_redirected_stdout());
	cr_expect_not_null(strstr(out, "USAGE: faultline [OPTIONS] -p PID[,PID...]"), "%s", out);
	cr_expect_not_null(strstr(out, "faultline [OPTIONS] -- COMMAND [ARG...]"));
	cr_expect_not_null(strstr(out, "EXAMPLES:"));
	cr_expect_not_null(strstr(out, "# "));
	cr_expect_not_null(strstr(out, "--stack-storage"));
	cr_expect_not_null(strstr(out, "2 usage error"));
	cr_expect_not_null(strstr(out, "SIGINT"));
	free(out);
}

Test(cli, version, .init = quiet)
{
	struct fl_config cfg;
	char *out;

	cr_assert_eq(PARSE(&cfg, "--version"), FL_CLI_DONE);
	fflush(stdout);
	out = slurp(cr_get_redirected_stdout());
	cr_expect_eq(strncmp(out, "faultline ", 10), 0, "%s", out);
	cr_expect_eq(count_lines(out), 1);
	free(out);
}

Test(cli, scopes, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "-a", "-d", "5"), 0);
	cr_expect(cfg.all && cfg.children, "-a follows new processes");
	cr_expect_eq(cfg.npids, 0);
	cr_assert_eq(PARSE(&cfg, "--cgroup", "mysql.service", "--cgroup", "/sys/fs/cgroup/x"), 0);
	cr_expect_eq(cfg.ncgroups, 2);
	cr_expect_str_eq(cfg.cgroups[0], "mysql.service");
	cr_expect_str_eq(cfg.cgroups[1], "/sys/fs/cgroup/x");
	cr_expect(cfg.children && !cfg.all);
	/* selectors combine with -p */
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--cgroup", "x.service", "--alloc"), 0);
	cr_expect(cfg.npids == 1 && cfg.ncgroups == 1 && cfg.alloc);
}

Test(cli, scope_errors, .init = quiet)
{
	EXPECT_USAGE_ERROR("adds nothing", "-a", "--cgroup", "x.service");
	EXPECT_USAGE_ERROR("--alloc with -a", "-a", "--alloc");
	EXPECT_USAGE_ERROR("empty cgroup", "--cgroup", "");
	EXPECT_USAGE_ERROR("at most 16", "--cgroup", "a", "--cgroup", "a", "--cgroup", "a",
			   "--cgroup", "a", "--cgroup", "a", "--cgroup", "a", "--cgroup", "a",
			   "--cgroup", "a", "--cgroup", "a", "--cgroup", "a", "--cgroup", "a",
			   "--cgroup", "a", "--cgroup", "a", "--cgroup", "a", "--cgroup", "a",
			   "--cgroup", "a", "--cgroup", "a");
}

Test(cli, by_tops, .init = quiet)
{
	struct fl_config cfg;
	char by[64];

	cr_assert_eq(PARSE(&cfg, "-a", "--by", "cgroup"), 0);
	cr_expect(cfg.by_top == FL_TOP_CGROUP && cfg.by_stack && !cfg.by_mapping);
	config__by_name(&cfg, by, sizeof(by));
	cr_expect_str_eq(by, "cgroup,stack");
	cr_assert_eq(PARSE(&cfg, "-a", "--by", "process,stack,mapping"), 0);
	cr_expect(cfg.by_top == FL_TOP_PROCESS && cfg.by_stack && cfg.by_mapping);
	config__by_name(&cfg, by, sizeof(by));
	cr_expect_str_eq(by, "process,stack,mapping");
	cr_assert_eq(PARSE(&cfg, "-p", "1", "--by", "exe,mapping"), 0);
	config__by_name(&cfg, by, sizeof(by));
	cr_expect_str_eq(by, "mapping", "exe is the default top: the layout says nothing of it");
	EXPECT_USAGE_ERROR("at most one of exe", "-a", "--by", "cgroup,process");
	EXPECT_USAGE_ERROR("at most one of exe", "-a", "--by", "thread");
}

Test(cli, shipping_options, .init = quiet)
{
	struct fl_config cfg;

	cr_assert_eq(PARSE(&cfg, "--otlp", "https://otlp.example.com:4318", "--otlp-header",
			   "Authorization=Bearer a=b", "--pyroscope", "http://pyro:4040",
			   "--pyroscope-header", "X-Scope-OrgID=team", "--service", "orders",
			   "--every", "60", "-p", "1"),
		     0);
	cr_expect_str_eq(cfg.ship.otlp, "https://otlp.example.com:4318");
	cr_expect_eq(cfg.ship.notlp_headers, 1);
	cr_expect_str_eq(cfg.ship.otlp_headers[0], "Authorization=Bearer a=b");
	cr_expect_str_eq(cfg.ship.pyroscope, "http://pyro:4040");
	cr_expect_eq(cfg.ship.npyroscope_headers, 1);
	cr_expect_str_eq(cfg.ship.service, "orders");
	cr_expect_eq(cfg.ship.every_s, 60);
	cr_assert_eq(PARSE(&cfg, "-p", "1"), 0);
	cr_expect_null(cfg.ship.otlp);
	cr_expect_eq(cfg.ship.every_s, 0, "one profile at the end unless --every");
	/* a window's live heap is the one as it ends */
	cr_expect_eq(PARSE(&cfg, "--otlp", "http://c", "--every", "10", "--alloc", "-p", "1"), 0);
}

Test(cli, shipping_errors, .init = quiet)
{
	EXPECT_USAGE_ERROR("it needs a scheme: http://collector:4318", "--otlp", "collector:4318",
			   "-p", "1");
	EXPECT_USAGE_ERROR("no host after the scheme", "--pyroscope", "https://", "-p", "1");
	EXPECT_USAGE_ERROR("give NAME=VALUE", "--otlp", "http://c", "--otlp-header", "novalue",
			   "-p", "1");
	EXPECT_USAGE_ERROR("give NAME=VALUE", "--otlp", "http://c", "--otlp-header", "A b=c", "-p",
			   "1");
	EXPECT_USAGE_ERROR("no --otlp to send it with", "--otlp-header", "A=b", "-p", "1");
	EXPECT_USAGE_ERROR("--every: no --otlp or --pyroscope", "--every", "10", "-p", "1");
	EXPECT_USAGE_ERROR("--every: '0.5' is out of range (1..86400)", "--otlp", "http://c",
			   "--every", "0.5", "-p", "1");
	EXPECT_USAGE_ERROR("--every: invalid number '10s'", "--otlp", "http://c", "--every", "10s",
			   "-p", "1");
	EXPECT_USAGE_ERROR("--service 'a{b}'", "--otlp", "http://c", "--service", "a{b}", "-p",
			   "1");
	EXPECT_USAGE_ERROR("--ca-file /nonexistent/ca.pem", "--otlp", "https://c", "--ca-file",
			   "/nonexistent/ca.pem", "-p", "1");
}
