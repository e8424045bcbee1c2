#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# bench-ship.sh: what a window of 10,000 stacks costs --otlp (issue 28's goal: encoded and
# sent in under 50 ms), measured (a benchmark, not a test: it prints figures next to their
# target and exits 0 unless the script itself failed).
#
#   scripts/bench-ship.sh [--build DIR] [--rounds N]
#
# build/tests/shipbench makes a profile of 10,000 samples of 20 frames and times its OTLP
# encoding with gzip, then its send to a sink that answers at once (a thread of shipbench:
# faultline's side of the send alone, the figure the goal is about), and to the test collector
# (tests/otelcol, built once and cached; skipped without Go), N rounds (default 7) each of:
#   shared:   frames drawn from 5,000 code addresses of one process (a server's stacks share
#             their frames);
#   distinct: every frame an address of its own (200,000 locations: the worst case).
# The collector's file exporter answers once it has written its JSON: the send's time holds
# that too, more than a collector with a batch processor would take.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
OUT=build
ROUNDS=7
while (($#)); do
	case $1 in
	--build) OUT=${2:?}; shift ;;
	--rounds) ROUNDS=${2:?}; shift ;;
	*) sed -n '4,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
	shift
done
make -s -C "$here" OUTPUT="$OUT" "$OUT/tests/shipbench" >/dev/null
bench=$here/$OUT/tests/shipbench
tmp=$(mktemp -d)
col_pid=""
cleanup() { [[ -z $col_pid ]] || kill "$col_pid" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

url=""
if collector=$("$here/tests/otelcol/build.sh" 2>"$tmp/build.log"); then
	OTLP_HTTP_ENDPOINT=127.0.0.1:0 OTLP_OUT_FILE=$tmp/out.json "$collector" \
		--config "$here/tests/otelcol/config.yaml" >"$tmp/col.log" 2>&1 &
	col_pid=$!
	for _ in $(seq 600); do
		grep -q 'Everything is ready' "$tmp/col.log" && break
		sleep 0.1
	done
	port=$(grep -o '"endpoint": "127.0.0.1:[0-9]*' "$tmp/col.log" | grep -o '[0-9]*$' || true)
	[[ -n $port ]] && url=http://127.0.0.1:$port
fi
[[ -n $url ]] || echo "bench-ship: no test collector ($(head -1 "$tmp/build.log")): encoding only"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for kind in shared distinct; do
	pool=5000
	[[ $kind == distinct ]] && pool=0
	"$bench" --rounds "$ROUNDS" --pool "$pool" --sink >"$tmp/$kind.txt"
	head -1 "$tmp/$kind.txt" | sed "s/^shipbench:/bench-ship: $kind:/"
	enc=$(sed -n "s/.*gzip'd in \([0-9.]*\) ms.*/\1/p" "$tmp/$kind.txt" | median)
	kib=$(sed -n 's/.*KiB, \([0-9]*\) KiB sent.*/\1/p' "$tmp/$kind.txt" | head -1)
	snd=$(sed -n 's/.*sent in \([0-9.]*\) ms.*/\1/p' "$tmp/$kind.txt" | median)
	tot=$(awk -v a="$enc" -v b="$snd" 'BEGIN { printf "%.1f", a + b }')
	echo "  encoded and gzip'd: median $enc ms of $ROUNDS rounds ($kib KiB on the wire);" \
		"sent to a sink that answers at once in $snd ms; both $tot ms (target: 50)"
	[[ -n $url ]] || continue
	"$bench" --rounds "$ROUNDS" --pool "$pool" --url "$url" >"$tmp/$kind-col.txt"
	snd=$(sed -n 's/.*sent in \([0-9.]*\) ms.*/\1/p' "$tmp/$kind-col.txt" | median)
	echo "  sent to the test collector in $snd ms (it answers once it wrote its JSON)"
done
