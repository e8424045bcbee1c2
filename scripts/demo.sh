#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# make demo: profile the bundled demo service for a few seconds, then show the folded output.
set -euo pipefail
out=${1:-build}
folded=$out/demo.folded
svg=$out/demo.svg
echo "== faultline -T --alloc --folded $folded --svg $svg -- $out/workloads/demo 6"
"$out/faultline" -T --alloc --top 12 --folded "$folded" --svg "$svg" -- "$out/workloads/demo" 6
echo
echo "== $folded (the heaviest stacks; feed the file to flamegraph.pl or speedscope)"
# sed reads to the end, where head would leave sort writing into a closed pipe: SIGPIPE, which
# pipefail turns into a failed `make demo` (Error 141) once the file outgrows the pipe
# (its first line says what the file holds: not a stack)
sed '1{/^# faultline folded /d}' "$folded" | sort -t' ' -k2 -nr | sed -n 1,8p | cut -c1-160
echo
echo "== $svg: the flame graph; open it in a browser (click a frame to zoom, Ctrl-F to search)"
