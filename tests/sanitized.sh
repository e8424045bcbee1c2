#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# Runs a program built with -fsanitize=address,undefined and fails on any sanitizer report,
# whatever the program's own exit status says: Criterion runs each test in a worker process
# whose stderr a test may redirect, and a leak found when a worker exits does not fail its
# test, so every report goes to a file under REPORT_DIR and any such file is a failure.
# Usage: tests/sanitized.sh REPORT_DIR PROGRAM [ARG...]
set -uo pipefail
if [ $# -lt 2 ]; then
	echo "usage: $0 REPORT_DIR PROGRAM [ARG...]" >&2
	exit 2
fi
reports=$1
shift
rm -rf "$reports"
mkdir -p "$reports"
reports=$(cd "$reports" && pwd)

# fast_unwind_on_malloc=0: leak stacks through glibc (open_memstream) name the caller.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0:log_path=$reports/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
"$@"
status=$?

found=$(find "$reports" -type f | sort)
if [ -n "$found" ]; then
	for f in $found; do
		echo "=== $f"
		cat "$f"
	done
	echo "sanitized.sh: $(echo "$found" | wc -l) sanitizer report(s) from $1" >&2
	exit 1
fi
if [ "$status" -ne 0 ]; then
	echo "sanitized.sh: $1 exited with status $status" >&2
	exit 1
fi
# a passing run says so in one word: "no report from" read like an error among the results
echo "sanitized.sh: clean: $1 exited 0 with no ASan or UBSan report"
