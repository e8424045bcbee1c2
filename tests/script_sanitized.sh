#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# tests/sanitized.sh as make unit-sanitize runs it, on stand-in programs (no sanitizer build
# needed): a passing run says "clean" and exits 0; a report file, left by the program as the
# sanitizers leave theirs, fails it even when the program exits 0; a failing program fails it.
# Usage: tests/script_sanitized.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(cd "$(dirname "$0")" && pwd)/check.sh"

"$here/sanitized.sh" "$tmp/reports" true >"$tmp/out" 2>&1
status=$?
check "a clean run exits 0" "$([ $status = 0 ]; echo $?)" "status $status: $(cat "$tmp/out")"
grep -qx 'sanitized.sh: clean: true exited 0 with no ASan or UBSan report' "$tmp/out"
check "... and says clean" $? "$(cat "$tmp/out")"
grep -qiE 'no sanitizer report|error|fail' "$tmp/out"
check "... with no word that reads like an error" "$([ $? = 1 ]; echo $?)" "$(cat "$tmp/out")"

# the program's report lands where ASAN_OPTIONS' log_path points, as ASan's own would
"$here/sanitized.sh" "$tmp/reports" sh -c \
	'p=${ASAN_OPTIONS#*log_path=}; echo "ERROR: AddressSanitizer: use-after-free" >"${p%%:*}.42"' \
	>"$tmp/out" 2>&1
status=$?
check "a sanitizer report fails a run that exits 0" \
	"$([ $status = 1 ] && grep -q '^sanitized.sh: 1 sanitizer report(s) from sh' "$tmp/out" &&
		! grep -q clean "$tmp/out"; echo $?)" "status $status: $(cat "$tmp/out")"

"$here/sanitized.sh" "$tmp/reports" sh -c 'exit 3' >"$tmp/out" 2>&1
status=$?
check "a program that fails fails the run" \
	"$([ $status = 1 ] && grep -q '^sanitized.sh: sh exited with status 3' "$tmp/out" &&
		! grep -q clean "$tmp/out"; echo $?)" "status $status: $(cat "$tmp/out")"

echo "script_sanitized: $pass passed, $fail failed"
[ "$fail" = 0 ]
