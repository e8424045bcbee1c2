#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# scripts/soak.sh [--minutes N] [--sample S] [--build DIR] [--install] [--ship]
#
# Soak: faultline --alloc -f attached to a private redis-server on 127.0.0.1 for N minutes
# (default 60) while redis-benchmark runs without pause; redis saves by the rule of its default
# configuration's busiest line, "60 10000" (a BGSAVE child a minute under this load), so -f
# follows children the whole time, as on a production host. Every S seconds (default 60) it prints faultline's
# RSS, its CPU over the sample (share of one core), the drops faultline counted (from its
# --json-stream) and redis's RSS. At the end: faultline's RSS at the first sample and at the
# last, the growth between them (the goal: under 10%), mean CPU, drops, and whether faultline
# ended cleanly after SIGINT (exit 0, with its final JSON written).
#
# --ship: continuous mode instead of --alloc (issue 28's soak): faultline -f --every 10 --otlp
# to the test collector (tests/otelcol/build.sh; Go needed), which is stopped for the second
# sixth of the soak and started again on the same port. At the end: the windows faultline made
# (-v), sent and lost (its last line), and the requests the collector wrote: sent must equal
# received, and made must equal sent + lost.
#
# --install apt-gets redis-server and redis-tools when missing. Needs root and a build (make).
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"

MINUTES=60
SAMPLE_S=60
SHIP=0
OTELCOL_PID=""
OTLP_PORT=""
OTLP_DIR=""
COLLECTOR=""

REDIS_PID=""
FL_PID=""

soak_args()
{
	while (($#)); do
		case $1 in
		--minutes)
			[[ ${2:-} =~ ^[0-9]+$ && $2 -ge 1 ]] || usage
			MINUTES=$2
			shift
			;;
		--sample)
			[[ ${2:-} =~ ^[0-9]+$ && $2 -ge 5 ]] || usage
			SAMPLE_S=$2
			shift
			;;
		--build)
			[[ -n ${2:-} ]] || usage
			OUT=$2
			shift
			;;
		--install) INSTALL=1 ;;
		--ship) SHIP=1 ;;
		*) usage ;;
		esac
		shift
	done
}

LOOP_PIDS=()

# The load and fork loops, and the client each may be running.
stop_loops()
{
	local pid

	for pid in "${LOOP_PIDS[@]}"; do
		pkill -TERM -P "$pid" 2>/dev/null || true
		kill -TERM "$pid" 2>/dev/null || true
	done
	LOOP_PIDS=()
}

cleanup_more()
{
	stop_loops
	stop_redis
	stop_collector
}

# The test collector on 127.0.0.1:OTLP_PORT, appending the requests to OTLP_DIR/out-N.json.
start_collector()
{
	local n=$1

	OTLP_HTTP_ENDPOINT=127.0.0.1:$OTLP_PORT OTLP_OUT_FILE=$OTLP_DIR/out-$n.json \
		"$COLLECTOR" --config "$(dirname "$0")/../tests/otelcol/config.yaml" \
		>"$OTLP_DIR/log-$n" 2>&1 &
	OTELCOL_PID=$!
	wait_line "$OTLP_DIR/log-$n" 'Everything is ready' 60 >/dev/null ||
		die "the collector did not start: $(tail -3 "$OTLP_DIR/log-$n")"
}

stop_collector()
{
	[[ -n $OTELCOL_PID ]] || return 0
	kill -TERM "$OTELCOL_PID" 2>/dev/null || true
	wait "$OTELCOL_PID" 2>/dev/null || true
	OTELCOL_PID=""
}

# The drops of the last complete line of the JSON stream @1, summed: "total (name n, ...)".
last_drops()
{
	local line

	line=$(tail -n 2 "$1" 2>/dev/null | grep -m1 '"drops"' || true)
	[[ -n $line ]] || { echo "?"; return; }
	grep -o '"drops":{[^}]*}' <<<"$line" | tr -d '"{}' | sed 's/^drops://' |
		awk -F, '{ for (i = 1; i <= NF; i++) { split($i, kv, ":"); t += kv[2];
			   if (kv[2] > 0) s = s sprintf("%s%s %s", s ? ", " : "", kv[1], kv[2]) } }
			 END { printf "%d%s", t, s ? " (" s ")" : "" }'
}

rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# redis-benchmark, again and again, until the soak ends (killed by the exit trap).
load_loop()
{
	while :; do
		redis-benchmark -h 127.0.0.1 -p "$REDIS_PORT" -q -n 200000 -P 16 -r 100000 \
			-t set,get,lpush,lpop,sadd,hset,incr >/dev/null 2>&1 || sleep 1
	done
}

main()
{
	local fl=$OUT/faultline stream t0 cpu0 cpu1 t1 rss first="" last="" cpus=() n=0 rc mode
	local missing=()

	soak_args "$@"
	((EUID == 0)) || die "run as root (BPF)"
	[[ -x $fl ]] || die "$fl missing: run 'make' first"
	have redis-server || missing+=(redis-server)
	have redis-benchmark && have redis-cli || missing+=(redis-tools)
	install_missing "soak" "${missing[@]}"
	if ! have redis-server || ! have redis-benchmark; then
		die "redis-server and redis-tools needed (--install)"
	fi
	bench_init
	start_redis "60 10000"
	BG_PIDS+=("$REDIS_PID")
	stream=$TMP/stream.jsonl
	mode=(--alloc)
	if ((SHIP)); then
		COLLECTOR=$("$(dirname "$0")/../tests/otelcol/build.sh") ||
			die "no test collector (tests/otelcol/build.sh)"
		OTLP_DIR=$TMP/otlp
		mkdir -p "$OTLP_DIR"
		OTLP_PORT=$(free_port)
		start_collector 1
		mode=(-v --every 10 --otlp "http://127.0.0.1:$OTLP_PORT")
	fi
	"$fl" -q "${mode[@]}" -f -i 10 -p "$REDIS_PID" --json-stream "$stream" \
		--json "$TMP/final.json" >"$TMP/fl.out" 2>"$TMP/fl.err" &
	FL_PID=$!
	BG_PIDS+=("$FL_PID")
	wait_line "$TMP/fl.err" 'tracing' 30 >/dev/null || die "faultline did not attach: $(cat "$TMP/fl.err")"
	# disowned: the shell does not report their end when stop_loops kills them
	load_loop 2>/dev/null &
	LOOP_PIDS+=($!)
	disown $!
	echo "soak: faultline $("$fl" --version | head -1) ${mode[*]} -f on redis-server" \
		"$(redis-server --version | awk '{ print $3 }') (pid $REDIS_PID), $MINUTES min"
	printf '%8s %12s %8s %12s  %s\n' minute "fl rss" "fl cpu" "redis rss" drops
	t0=$(now)
	cpu0=$(cpu_of "$FL_PID")
	while :; do
		sleep "$SAMPLE_S"
		alive "$FL_PID" || die "faultline ended early: $(tail -3 "$TMP/fl.err")"
		t1=$(now)
		cpu1=$(cpu_of "$FL_PID")
		rss=$(rss_kib "$FL_PID")
		cpus+=("$(calc %.2f "($cpu1 - $cpu0) / ($t1 - $t0) * 100")")
		[[ -n $first ]] || first=$rss
		last=$rss
		n=$((n + 1))
		printf '%8.1f %9.1f MiB %7s%% %8.1f MiB  %s\n' "$(calc %.2f "$n * $SAMPLE_S / 60")" \
			"$(calc %.2f "$rss / 1024")" "${cpus[-1]}" \
			"$(calc %.2f "$(rss_kib "$REDIS_PID") / 1024")" "$(last_drops "$stream")"
		t0=$t1
		cpu0=$cpu1
		# --ship: the collector is down for the second sixth of the soak
		if ((SHIP)) && [[ -n $OTELCOL_PID ]] && ((n * SAMPLE_S * 6 >= MINUTES * 60)) &&
			((n * SAMPLE_S * 6 < MINUTES * 60 * 2)); then
			stop_collector
			echo "soak: collector stopped"
		elif ((SHIP)) && [[ -z $OTELCOL_PID ]] && ((n * SAMPLE_S * 6 >= MINUTES * 60 * 2)); then
			start_collector 2
			echo "soak: collector started again"
		fi
		((n * SAMPLE_S >= MINUTES * 60)) && break
	done
	stop_loops
	kill -INT "$FL_PID"
	rc=0
	wait "$FL_PID" || rc=$?
	forget "$FL_PID"
	echo "soak: faultline rss $(calc %.1f "$first / 1024") MiB at the first sample," \
		"$(calc %.1f "$last / 1024") MiB at the last: $(calc %+.1f "($last - $first) * 100 / $first")%" \
		"(goal: under +10%)"
	echo "soak: faultline cpu $(median "${cpus[@]}")% of a core (median of the samples," \
		"range $(minmax "${cpus[@]}")%); drops at the end: $(last_drops "$stream")"
	echo "soak: faultline exited $rc after SIGINT; final JSON $(test -s "$TMP/final.json" &&
		echo "written ($(wc -c <"$TMP/final.json") bytes)" || echo MISSING)"
	echo "soak: children followed: $(grep -o '"followed":true' "$TMP/final.json" | wc -l)" \
		"(redis's BGSAVEs)"
	((SHIP)) || return 0
	sleep 1
	stop_collector
	ship_figures
}

# --ship: windows made, sent and lost by faultline's word, and what the collector received.
ship_figures()
{
	local made line sent lost received

	made=$(grep -c ': window of ' "$TMP/fl.err" || true)
	line=$(grep -m1 ' windows sent, ' "$TMP/fl.err" || true)
	sent=$(sed -n 's/.*: \([0-9]*\) windows sent, .*/\1/p' <<<"$line")
	lost=$(sed -n 's/.* windows sent, \([0-9]*\) lost.*/\1/p' <<<"$line")
	received=$(cat "$OTLP_DIR"/out-*.json 2>/dev/null | tr -d '\0' | grep -c resourceProfiles || true)
	echo "soak: windows made $made, sent $sent, lost $lost (faultline); received $received" \
		"(the collector: $(for f in "$OTLP_DIR"/out-*.json; do
			tr -d '\0' <"$f" | grep -c resourceProfiles; done | paste -sd+) in its two runs)"
	# a request the collector took as it shut down may be acknowledged and not written
	grep -h 'Received signal\|rror' "$OTLP_DIR"/log-* | tail -4 | sed 's/^/soak: collector: /'
	echo "soak: sent = received: $([[ $sent == "$received" ]] && echo yes || echo NO);" \
		"made = sent + lost: $([[ $made == $((sent + lost)) ]] && echo yes || echo NO)"
}

main "$@"
