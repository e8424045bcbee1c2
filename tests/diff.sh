#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# `faultline diff` as a user runs it, on files made here (no root, no BPF): a folded file cut
# short is refused with FILE:LINE, a JSON profile re-indented by python3 -m json.tool or jq .
# diffs as the original, a bad JSON counter is refused with its place, a --alloc=churn profile
# compared by live bytes is refused (it traced no free), sums that pass 2^64-1 are held there
# with a note, folded files whose first lines name different metrics or layouts are refused
# (and that line is skipped by flame graph tools' parsers), and a cut report says how to
# widen it.
# Usage: tests/diff.sh [BUILD_DIR]   (default build)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
fl=$here/${1:-build}/faultline
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(cd "$(dirname "$0")" && pwd)/check.sh"

# diff A B: stdout and stderr in $tmp/out, the exit status in $status
diff_() {
	(cd "$tmp" && COLUMNS=200 "$fl" diff "$@") >"$tmp/out" 2>&1
	status=$?
}

printf 'app;main;a 4096\napp;main;b 8192\n' >"$tmp/before.folded"
printf 'app;main;a 4096\napp;main;b 81' >"$tmp/cut.folded"
diff_ before.folded cut.folded
check "a folded file cut mid-number is refused (exit 1)" "$([ $status = 1 ]; echo $?)" \
	"status $status: $(cat "$tmp/out")"
grep -q '^faultline: cut.folded:2: the last line has no newline: the file is truncated' \
	"$tmp/out"
check "... as FILE:LINE, truncated" $? "$(cat "$tmp/out")"

printf 'app;main;a 4096\napp;main;b -8192\n' >"$tmp/negative.folded"
diff_ before.folded negative.folded
check "a negative folded value is refused" \
	"$([ $status = 1 ] && grep -q "negative.folded:2: value '-8192' is negative" "$tmp/out"; echo $?)" \
	"$(cat "$tmp/out")"

json='{"schema":"faultline/1","stacks":[
{"frames":["app","main","a"],"counts":{"growth":{"anon":4096,"file":0},"faults":1,"at_peak":-1}},
{"frames":["app","main","b \u00e9"],"counts":{"growth":{"anon":12288},"faults":3,"at_peak":5}}]}'
printf '%s\n' "$json" | tr -d '\n' >"$tmp/profile.json"
echo >>"$tmp/profile.json"
diff_ before.folded profile.json
cp "$tmp/out" "$tmp/compact.out"
check "a --json profile diffs" "$([ $status = 0 ]; echo $?)" "$(cat "$tmp/out")"
sed 's/"stacks"/"options":{"alloc":true,"alloc_mode":"churn"},"stacks"/' "$tmp/profile.json" \
	>"$tmp/churn.json"
diff_ --metric live-bytes churn.json churn.json
check "a --alloc=churn profile has no live bytes to compare (exit 2, why)" \
	"$([ $status = 2 ] && grep -q '^faultline: churn.json has no live-bytes to compare: it was written by --alloc=churn, which does not trace frees' "$tmp/out"; echo $?)" \
	"$(cat "$tmp/out")"
for tool in "python3 -m json.tool" "jq ."; do
	if ! $tool <"$tmp/profile.json" >"$tmp/pretty.json" 2>/dev/null; then
		echo "  skip $tool: not installed"
		continue
	fi
	diff_ before.folded pretty.json
	sed -i 's/pretty\.json/profile.json/' "$tmp/out"
	check "re-indented by $tool ($(wc -l <"$tmp/pretty.json") lines): the same diff" \
		"$([ $status = 0 ] && cmp -s "$tmp/out" "$tmp/compact.out"; echo $?)" \
		"$(diff "$tmp/compact.out" "$tmp/out")"
done

sed 's/"faults":3/"faults":"3"/' "$tmp/profile.json" | python3 -m json.tool >"$tmp/bad.json" \
	2>/dev/null || sed 's/"faults":3/"faults":"3"/' "$tmp/profile.json" >"$tmp/bad.json"
diff_ --metric faults profile.json bad.json
check "a string counter is refused with FILE:LINE and its place" \
	"$([ $status = 1 ] && grep -Eq '^faultline: bad.json:[0-9]+: stacks\[1\]\.counts\.faults: "3" is a string, not a number$' "$tmp/out"; echo $?)" \
	"$(cat "$tmp/out")"

big=9223372036854775807
printf 'a %s\na %s\na %s\n' $big $big $big >"$tmp/big.folded"
diff_ --metric faults before.folded big.folded
check "sums past 2^64-1 are held there, with a note" \
	"$([ $status = 0 ] && grep -q '18446744073709551615' "$tmp/out" &&
		grep -q '^note: a sum passed its limit (2^64-1)' "$tmp/out"; echo $?)" "$(cat "$tmp/out")"

# folded files that say what they hold (their first line) compare only with their like
layout() { printf '# faultline folded metric=%s by=%s threads=no\n' "$1" "$2"; }
{ layout peak stack; printf 'app;main;a 4096\n'; } >"$tmp/peak.folded"
{ layout resident mapping; printf 'app;[heap] 8192\n'; } >"$tmp/mapping.folded"
{ layout faults stack; printf 'app;main;a 3\n'; } >"$tmp/faults1.folded"
{ layout faults stack; printf 'app;main;a 5\n'; } >"$tmp/faults2.folded"
diff_ peak.folded mapping.folded
check "files of different metrics and layouts are refused (exit 2, one line naming both)" \
	"$([ $status = 2 ] && [ "$(wc -l <"$tmp/out")" = 1 ] &&
		grep -qx 'faultline diff: peak.folded holds metric=peak by=stack threads=no, mapping.folded holds metric=resident by=mapping threads=no: different metrics or layouts do not compare' "$tmp/out"; echo $?)" \
	"status $status: $(cat "$tmp/out")"
diff_ faults1.folded faults2.folded
check "files of one metric compare, by the metric their first line names" \
	"$([ $status = 0 ] && grep -q '^faultline diff (faults): faults1.folded -> faults2.folded' "$tmp/out" &&
		grep -Eq '^ +3 +5 +\+2 ' "$tmp/out"; echo $?)" "status $status: $(cat "$tmp/out")"
diff_ --metric resident faults1.folded faults2.folded
check "a --metric other than the files' is refused (exit 2)" \
	"$([ $status = 2 ] && grep -qx 'faultline diff: faults1.folded holds metric faults, not --metric resident' "$tmp/out"; echo $?)" \
	"status $status: $(cat "$tmp/out")"
diff_ before.folded peak.folded
check "a file without the line (older, another tool's) is taken as before" \
	"$([ $status = 0 ] && grep -q '^faultline diff (peak): before.folded -> peak.folded' "$tmp/out"; echo $?)" \
	"status $status: $(cat "$tmp/out")"
# what flame graph tools make of the line: flamegraph.pl's own pattern for a stack and its
# count, and inferno's rule (the last word is a count), both skip it
perl -ne 'chomp; print "$_\n" unless /^(.*)\s+?(\d+(?:\.\d*)?)$/' "$tmp/peak.folded" >"$tmp/skipped"
check "flamegraph.pl's parser skips the layout line, and only it" \
	"$([ "$(cat "$tmp/skipped")" = "$(head -1 "$tmp/peak.folded")" ]; echo $?)" "$(cat "$tmp/skipped")"
awk '{ if ($NF !~ /^[0-9]+(\.[0-9]*)?$/) print }' "$tmp/mapping.folded" >"$tmp/skipped"
check "inferno's rule skips it too" \
	"$([ "$(cat "$tmp/skipped")" = "$(head -1 "$tmp/mapping.folded")" ]; echo $?)" "$(cat "$tmp/skipped")"

# lines cut at a width nobody chose are said once, on stderr; --width 0 cuts none
long=$(printf 'frame_%03d;' $(seq 1 40))
printf 'app;%sleaf 4096\n' "$long" >"$tmp/long_before.folded"
printf 'app;%sleaf 8192\n' "$long" >"$tmp/long_after.folded"
(cd "$tmp" && COLUMNS=80 "$fl" diff long_before.folded long_after.folded) >"$tmp/out" \
	2>"$tmp/err"
status=$?
check "a cut report says once how to widen it" \
	"$([ $status = 0 ] && [ "$(grep -c 'lines cut at 80 columns' "$tmp/err")" = 1 ] &&
		grep -q -- '--width 0 cuts none' "$tmp/err" &&
		[ "$(awk '{ print length }' "$tmp/out" | sort -n | tail -1)" -le 80 ]; echo $?)" \
	"status $status: $(cat "$tmp/err")"
(cd "$tmp" && COLUMNS=80 "$fl" diff --width 0 long_before.folded long_after.folded) \
	>"$tmp/out" 2>"$tmp/err"
status=$?
check "--width 0 cuts nothing and says nothing" \
	"$([ $status = 0 ] && [ ! -s "$tmp/err" ] && grep -q 'app;frame_001;frame_002;' "$tmp/out"; echo $?)" \
	"status $status: $(cat "$tmp/err") $(cat "$tmp/out")"

echo "diff: $pass passed, $fail failed"
[ "$fail" = 0 ]
