#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# bench-overhead.sh: faultline's overhead, measured side by side in one run (a benchmark, not a
# test: it prints figures next to their targets and exits 0 unless the script itself failed).
#
#   scripts/bench-overhead.sh [--install] [--quick] [--pairs N] [--build DIR]
#                             [--only faults|redis|startup|session]
#
#   1. faults: build/workloads/faultbench touches 1 GiB in 4 KiB pages and times itself; runs
#      with no profiler and with a profiler attached alternate in pairs (the order flips every
#      pair). Profilers: faultline -q -p PID; perf record -e page-faults -c 1 -g -p PID; the
#      bpftrace one-liner  tracepoint:kmem:rss_stat /pid == PID/ { @[ustack] = count(); }
#      Figure: added microseconds per fault, median over pairs.
#   2. redis: a private redis-server on 127.0.0.1 under redis-benchmark, requests/s with and
#      without faultline attached, in pairs; figure: median throughput ratio and its spread.
#   3. faultline itself: start-up (command start to "faultline: tracing" on stderr), exit
#      latency (SIGINT to exit), CPU per second of session at the default 1 s refresh while
#      attached to a busy faultbench, peak RSS, and the kernel's per-program BPF run time.
#
# --install apt-gets bpftrace, linux-perf, redis-server and redis-tools when missing; without it
# a comparison whose tool is missing is skipped, and the output says so. Run as root, after
# `make all workloads`. Default run: about 4 minutes on a 2-CPU machine; --quick: about 1.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"	# options, exit trap, helpers, start-up, summary rows

SECTIONS=(faults redis startup session)	# --only's choices, in the order they run
REDIS_PID=""
BPF_STATS_OLD=""

# Sizes: the default meets issue 2's bar (>= 1 GiB touched, >= 5 pairs); --quick does not.
set_sizes()
{
	if ((QUICK)); then
		FB_MIB=256 RB_N=100000 CPU_SECS=5 STARTS=5
		PAIRS=${COUNT:-3}
	else
		FB_MIB=1024 RB_N=400000 CPU_SECS=10 STARTS=7
		PAIRS=${COUNT:-10}
	fi
	FB_CHUNK_MIB=256
	FL=$OUT/faultline
	WL_BIN=$OUT/workloads/faultbench
}

# What the exit trap undoes besides the background processes and TMP (see cleanup).
cleanup_more()
{
	stop_redis
	[[ -n $BPF_STATS_OLD ]] && sysctl -q kernel.bpf_stats_enabled="$BPF_STATS_OLD" || true
}

# ---------------------------------------------------------------- tools

install_tools()
{
	local missing=()

	have bpftrace || missing+=(bpftrace)
	have perf || missing+=(linux-perf)
	have redis-server || missing+=(redis-server)
	have redis-benchmark && have redis-cli || missing+=(redis-tools)
	install_missing comparisons "${missing[@]}"
}

# ---------------------------------------------------------------- 1. faults

# Starts profiler @1 on WL_PID and returns once its probes are live: sets PROF_PID, PROF_TOOL,
# PROF_LOG (its output; faultline's stderr, stamped), START_AT and LIVE_AT (for faultline).
prof_start()
{
	PROF_TOOL=$1 PROF_LOG=$TMP/prof.$1.log
	rm -f "$PROF_LOG"
	START_AT=$(now)
	case $1 in
	none) PROF_PID="" ; return 0 ;;
	faultline)
		"$FL" -q -p "$WL_PID" >/dev/null 2> >(stamp >"$PROF_LOG") &
		PROF_PID=$!
		wait_line "$PROF_LOG" 'faultline: tracing' 10 >/dev/null ||
			die "faultline did not start"
		LIVE_AT=$(stamp_of "$PROF_LOG" 'faultline: tracing')
		;;
	perf)
		perf record -q -B -e page-faults -c 1 -g -p "$WL_PID" -o "$TMP/perf.data" \
			>"$PROF_LOG" 2>&1 &
		PROF_PID=$!
		# -B: no build-id pass at exit (outside the timed window; it only saves time).
		# perf says nothing when its events are enabled; they are well before this.
		sleep 1
		;;
	bpftrace)
		bpftrace -e "tracepoint:kmem:rss_stat /pid == $WL_PID/ { @[ustack] = count(); }" \
			>"$PROF_LOG" 2>&1 &
		PROF_PID=$!
		wait_line "$PROF_LOG" '^Attaching' 30 >/dev/null || die "bpftrace did not start"
		sleep 0.5	# it prints that line just before attaching
		;;
	esac
	BG_PIDS+=("$PROF_PID")
}

# SIGINT, then waits for the exit: sets EXIT_S for faultline (see stop_timed).
prof_stop()
{
	EXIT_S=""
	[[ -n $PROF_PID ]] || return 0
	if [[ $PROF_TOOL == faultline ]]; then
		stop_timed "$PROF_PID" "$PROF_LOG" || true
	else
		kill -INT "$PROF_PID" 2>/dev/null || true
		reap "$PROF_PID" 60
	fi
	rm -f "$TMP/perf.data" "$TMP/perf.data.old"
}

# One timed faultbench run under profiler @1: sets RUN_US (microseconds per fault), RUN_NS.
fault_run()
{
	local line ns faults

	wl_start "$FB_MIB" "$FB_CHUNK_MIB"
	prof_start "$1"
	kill -USR1 "$WL_PID"
	line=$(wait_line "$WL_OUT" '^result' 300) || die "faultbench gave no result under $1"
	prof_stop
	wl_stop
	ns=${line#*ns=} ns=${ns%% *}
	faults=${line#*faults=} faults=${faults%% *}
	RUN_NS=$ns
	RUN_US=$(calc %.4f "$ns / $faults / 1000")
}

# Pairs of (no profiler, profiler @1), the order flipping each pair; figures into FIG.
fault_compare()
{
	local tool=$1 i base_us tool_us base_ns tool_ns adds=() ratios=() bases=() order

	for ((i = 0; i < PAIRS; i++)); do
		if (((i + $2) % 2)); then order="$tool none"; else order="none $tool"; fi
		for t in $order; do
			fault_run "$t"
			if [[ $t == none ]]; then base_us=$RUN_US base_ns=$RUN_NS
			else tool_us=$RUN_US tool_ns=$RUN_NS; fi
		done
		adds+=("$(calc %.4f "$tool_us - $base_us")")
		ratios+=("$(calc %.4f "$tool_ns / $base_ns")")
		bases+=("$base_us")
		printf '  %-9s pair %2d (%-14s): %7.3f us/fault alone, %7.3f with: %+.3f us\n' \
			"$tool" $((i + 1)) "${order/ /, }" "$base_us" "$tool_us" "${adds[-1]}"
	done
	FIG[add_$tool]=$(median "${adds[@]}")
	FIG[ratio_$tool]=$(median "${ratios[@]}")
	FIG[base_$tool]=$(median "${bases[@]}")
	printf '  %-9s median: %.3f us/fault alone, %+.3f us added (pairs %s), %.2fx the time\n' \
		"$tool" "${FIG[base_$tool]}" "${FIG[add_$tool]}" "$(minmax "${adds[@]}")" \
		"${FIG[ratio_$tool]}"
}

bench_faults()
{
	local tools=(faultline) i

	echo "== 1. faults: faultbench touches $FB_MIB MiB in 4 KiB pages, $PAIRS pairs per profiler"
	if have perf; then tools+=(perf); else echo "  perf: not installed, skipped"; fi
	if have bpftrace; then tools+=(bpftrace); else echo "  bpftrace: not installed, skipped"; fi
	for i in "${!tools[@]}"; do
		fault_compare "${tools[$i]}" "$i"
	done
	for t in "${tools[@]:1}"; do
		awk -v a="${FIG[add_$t]}" -v b="${FIG[add_faultline]}" -v t="$t" 'BEGIN {
			if (b > 0) printf "  %s adds %.2fx what faultline adds per fault\n", t, a / b }'
	done
}

# ---------------------------------------------------------------- 2. redis

free_port()
{
	local p

	for ((p = 26379; p < 26479; p++)); do
		(: </dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo "$p"; return 0; }
	done
	return 1
}

start_redis()
{
	local i

	REDIS_PORT=$(free_port) || die "no free port for redis"
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
		--daemonize no --dir "$TMP" --logfile "$TMP/redis.log" &
	REDIS_PID=$!
	for ((i = 0; i < 500; i++)); do
		[[ $(redis-cli -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]] && return 0
		sleep 0.01
	done
	die "redis-server did not answer on port $REDIS_PORT"
}

stop_redis()
{
	[[ -n $REDIS_PID ]] || return 0
	kill -TERM "$REDIS_PID" 2>/dev/null || true
	reap "$REDIS_PID" 10
	REDIS_PID=""
}

# One redis-benchmark run, faultline attached when @1 = faultline: sets RB_RPS (geometric mean
# of the three tests' requests/s) and RB_LINE.
redis_run()
{
	local out=$TMP/rb.out

	redis-cli -p "$REDIS_PORT" flushall >/dev/null
	WL_PID=$REDIS_PID
	prof_start "$1"
	timeout 120 redis-benchmark -h 127.0.0.1 -p "$REDIS_PORT" -q -t set,get,lpush \
		-n "$RB_N" -P 16 -r 100000 2>/dev/null | tr '\r' '\n' >"$out" || true
	prof_stop
	RB_LINE=$(awk -F'[: ]+' '/requests per second/ { printf "%s %.0f  ", $1, $2 }' "$out")
	RB_RPS=$(awk -F'[: ]+' '/requests per second/ { s += log($2); n++ }
		END { if (n == 3) printf "%.0f", exp(s / n); else print "nan" }' "$out")
	[[ $RB_RPS != nan ]] || die "redis-benchmark gave no figures: $(head -c 300 "$out")"
}

bench_redis()
{
	local i t order off on ratios=() bases=()

	echo "== 2. redis-server under redis-benchmark -t set,get,lpush -n $RB_N -P 16 -r 100000," \
		"$((PAIRS * 2)) pairs"
	if ! have redis-server || ! have redis-benchmark || ! have redis-cli; then
		echo "  redis-server/redis-tools not installed: skipped (--install)"
		return 0
	fi
	start_redis
	echo "  redis-server $(redis-server --version | awk '{ print $3 }') pid $REDIS_PID" \
		"port $REDIS_PORT"
	redis_run none	# warm-up: the first run pays for the allocator's first growth
	for ((i = 0; i < PAIRS * 2; i++)); do	# twice as many: the noise here is 6-12%
		if ((i % 2)); then order="faultline none"; else order="none faultline"; fi
		for t in $order; do
			redis_run "$t"
			if [[ $t == none ]]; then off=$RB_RPS; else on=$RB_RPS; fi
			printf '  pair %2d %-9s %9s req/s  (%s)\n' $((i + 1)) "$t" "$RB_RPS" "$RB_LINE"
		done
		ratios+=("$(calc %.4f "$on / $off")")
		bases+=("$off")
	done
	stop_redis
	FIG[redis]=$(median "${ratios[@]}")
	printf '  throughput with faultline: median %.3fx; pair ratios: middle half %s, all %s\n' \
		"${FIG[redis]}" "$(quartiles %.3f "${ratios[@]}")" "$(minmax "${ratios[@]}")"
	printf '  runs without it: %s req/s (drift over the run is what the pairs cancel)\n' \
		"$(minmax "${bases[@]}")"
}

# ---------------------------------------------------------------- 3. faultline itself

bench_startup()
{
	echo "== 3a. start-up (command start to 'faultline: tracing') and exit (SIGINT to exit)," \
		"$STARTS runs on an idle target"
	wl_start
	startup_cycles faultline
	wl_stop TERM	# still waiting for its go signal: exits at once
	startup_figures faultline
}

# The child of @1 whose command is @2 (the stamper of a process substitution is a child too).
child_named()
{
	local c

	for c in $(cat "/proc/$1/task/$1/children"); do
		[[ $(cat "/proc/$c/comm" 2>/dev/null) == "$2" ]] && { echo "$c"; return 0; }
	done
	return 1
}

prog_ids() { bpftool prog show --json 2>/dev/null | jq -c '[.[].id]'; }

# Average ns per run of each BPF program loaded since the ids @1 were listed (bpftool here may
# not know which process holds a program, so "new since" stands for "faultline's").
bpf_prog_costs()
{
	bpftool prog show --json 2>/dev/null | jq -r --argjson old "$1" '.[]
		| select(.id as $id | $old | index($id) | not) | select((.run_cnt // 0) > 0)
		| "  bpf \(.name): \(.run_cnt) runs, \(.run_time_ns / .run_cnt | floor) ns per run"'
	# Both fault programs run once per fault: all programs' time over the busiest one's runs.
	bpftool prog show --json 2>/dev/null | jq -r --argjson old "$1" '[.[]
		| select(.id as $id | $old | index($id) | not) | select((.run_cnt // 0) > 0)]
		| select(length > 0)
		| "  bpf, all programs: \((map(.run_time_ns) | add) / (map(.run_cnt) | max) | floor)" +
		  " ns per run of the busiest (about one per fault)"'
}

bench_session()
{
	local log=$TMP/sess.log tfile=$TMP/time.out tpid fpid c0 c1 t0 t1 hwm ids=""

	echo "== 3b. a ${CPU_SECS} s session at the default 1 s refresh (live table to a file)," \
		"attached to a busy faultbench"
	# Busy for a little longer than the window, so that faultline is stopped, not left alone.
	wl_start 0 64 $((CPU_SECS + 3))
	if have bpftool && have jq; then
		BPF_STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
		sysctl -q kernel.bpf_stats_enabled=1
		ids=$(prog_ids)
	fi
	/usr/bin/time -f '%M %U %S %e' -o "$tfile" "$FL" -p "$WL_PID" >"$TMP/table.out" \
		2> >(stamp >"$log") &
	tpid=$!
	BG_PIDS+=("$tpid")
	wait_line "$log" 'faultline: tracing' 10 >/dev/null || die "faultline did not start"
	kill -USR1 "$WL_PID"
	fpid=$(child_named "$tpid" faultline) || die "no faultline process under /usr/bin/time"
	c0=$(cpu_of "$fpid") t0=$(now)
	sleep "$CPU_SECS"
	c1=$(cpu_of "$fpid") t1=$(now)
	hwm=$(hwm_kib "$fpid")
	[[ -n $ids ]] && { bpf_prog_costs "$ids" || log "  (bpftool/jq failed: no BPF run times)"; }
	stop_timed "$fpid" "$log" || die "faultline did not exit"
	FIG[exit_busy]=$EXIT_S
	reap "$tpid" 10
	[[ -n $BPF_STATS_OLD ]] && sysctl -q kernel.bpf_stats_enabled="$BPF_STATS_OLD"
	BPF_STATS_OLD=""
	wl_stop USR2 30
	session_figures "$c0" "$c1" "$t0" "$t1" "$hwm" "$tfile"
}

session_figures()
{
	local maxrss

	maxrss=$(awk '{ print $1 }' "$6")
	FIG[cpu]=$(calc %.4f "($2 - $1) / ($4 - $3) * 100")
	FIG[rss]=$(calc %.1f "(${maxrss:-$5}) / 1024")
	printf '  faultline CPU: %.4f s in %.1f s steady = %.3f%% of a core;' "$(calc %.4f "$2 - $1")" \
		"$(calc %.1f "$4 - $3")" "${FIG[cpu]}"
	printf ' whole process (start-up and report too): user %s s, sys %s s in %s s\n' \
		"$(awk '{ print $2 }' "$6")" "$(awk '{ print $3 }' "$6")" "$(awk '{ print $4 }' "$6")"
	printf '  faultline RSS: VmHWM %.1f MiB before SIGINT, peak %.1f MiB to exit;' \
		"$(calc %.1f "$5 / 1024")" "${FIG[rss]}"
	printf ' exit after the busy session: %.3f s\n' "${FIG[exit_busy]}"
	echo "  (BPF run time is charged to the faulting workload, not to faultline's CPU)"
}

# ---------------------------------------------------------------- summary

summary()
{
	summary_head 38
	row "added per fault, faultline -p" add_faultline %.3f " us" "<=" 0.8
	row "added per fault, perf record -c 1 -g" add_perf %.3f " us" - ""
	row "added per fault, bpftrace rss_stat" add_bpftrace %.3f " us" - ""
	row "faultbench time with faultline" ratio_faultline %.2f x - ""
	row "redis-benchmark throughput kept" redis %.3f x ">=" 0.97
	row "start-up to probes live (median)" start_faultline %.3f " s" "<=" 0.1
	row "faultline CPU at 1 s refresh" cpu %.3f "%" "<=" 2
	row "faultline peak RSS" rss %.1f " MiB" "<=" 32
	row "exit after SIGINT (idle, median)" exit_faultline %.3f " s" "<=" 0.5
	row "exit after SIGINT (busy session)" exit_busy %.3f " s" "<=" 0.5
}

main()
{
	parse_args --pairs "$@"
	set_sizes
	need_root_and_build "BPF, perf and tracepoints need it"
	bench_init
	install_tools
	run_sections
	summary
}

main "$@"
