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

OUT=build
INSTALL=0
QUICK=0
PAIRS=""
ONLY=""
TMP=""
BG_PIDS=()
REDIS_PID=""
BPF_STATS_OLD=""
declare -A FIG=()	# figure name -> value, for the summary

usage()
{
	sed -n '4,23s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

parse_args()
{
	while (($#)); do
		case $1 in
		--install) INSTALL=1 ;;
		--quick) QUICK=1 ;;
		--pairs)
			[[ ${2:-} =~ ^[0-9]+$ && $2 -ge 1 && $2 -le 50 ]] || usage
			PAIRS=$2
			shift
			;;
		--only)
			[[ ${2:-} =~ ^(faults|redis|startup|session)$ ]] || usage
			ONLY=$2
			shift
			;;
		--build)
			[[ -n ${2:-} ]] || usage
			OUT=$2
			shift
			;;
		-h | --help) usage ;;
		*) usage ;;
		esac
		shift
	done
}

# Sizes: the default meets issue 2's bar (>= 1 GiB touched, >= 5 pairs); --quick does not.
set_sizes()
{
	if ((QUICK)); then
		FB_MIB=256 RB_N=100000 CPU_SECS=5 STARTS=5
		PAIRS=${PAIRS:-3}
	else
		FB_MIB=1024 RB_N=400000 CPU_SECS=10 STARTS=7
		PAIRS=${PAIRS:-10}
	fi
	FB_CHUNK_MIB=256
	FL=$OUT/faultline
	FB=$OUT/workloads/faultbench
}

log() { printf '%s\n' "$*" >&2; }
die() { log "bench-overhead: $*"; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

cleanup()
{
	local pid

	for pid in "${BG_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
	done
	stop_redis
	[[ -n $BPF_STATS_OLD ]] && sysctl -q kernel.bpf_stats_enabled="$BPF_STATS_OLD" || true
	[[ -n $TMP ]] && rm -rf "$TMP"
	return 0
}

# ---------------------------------------------------------------- small helpers

now() { printf '%s' "$EPOCHREALTIME"; }

# True while @1 runs (a zombie that was not reaped yet counts as gone).
alive()
{
	local st

	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && $st != Z ]]
}

# Waits up to @3 seconds for a line of file @1 matching the ERE @2; prints it.
wait_line()
{
	local file=$1 re=$2 end

	end=$(awk -v t="$(now)" -v d="$3" 'BEGIN { printf "%.6f", t + d }')
	while :; do
		if [[ -f $file ]] && grep -E -m1 -- "$re" "$file"; then
			return 0
		fi
		awk -v a="$(now)" -v b="$end" 'BEGIN { exit !(a > b) }' && return 1
		sleep 0.01
	done
}

# Waits up to @2 seconds for child @1 to end, then kills it; reaps it either way.
reap()
{
	local pid=$1 i

	for ((i = 0; i < $2 * 100; i++)); do
		alive "$pid" || break
		sleep 0.01
	done
	alive "$pid" && { log "  (pid $pid did not end in $2 s: killed)"; kill -KILL "$pid"; }
	wait "$pid" 2>/dev/null || true
	forget "$pid"
}

# Drops @1 from the pids the exit trap kills.
forget()
{
	local keep=() p

	for p in "${BG_PIDS[@]}"; do
		[[ $p == "$1" ]] || keep+=("$p")
	done
	BG_PIDS=("${keep[@]}")
}

# Lines of stdin, each prefixed with the time it arrived; "[eof]" when the writer is gone.
stamp()
{
	local l

	while IFS= read -r l; do
		printf '%s %s\n' "$EPOCHREALTIME" "$l"
	done
	printf '%s [eof]\n' "$EPOCHREALTIME"
}

median()
{
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 }
		END { if (!NR) print "nan"; else if (NR % 2) print a[(NR + 1) / 2];
		      else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# "p25..p75" of the arguments (nearest rank).
quartiles()
{
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
		printf "%.3f..%.3f", a[int((NR + 3) / 4)], a[int((3 * NR + 3) / 4)] }'
}

minmax() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

# ---------------------------------------------------------------- tools

need_root_and_build()
{
	((EUID == 0)) || die "run as root (BPF, perf and tracepoints need it)"
	[[ -x $FL ]] || die "$FL missing: run 'make' first"
	[[ -x $FB ]] || die "$FB missing: run 'make workloads' first"
}

install_tools()
{
	local missing=()

	have bpftrace || missing+=(bpftrace)
	have perf || missing+=(linux-perf)
	have redis-server || missing+=(redis-server)
	have redis-benchmark && have redis-cli || missing+=(redis-tools)
	((${#missing[@]})) || return 0
	if ((!INSTALL)); then
		log "missing: ${missing[*]} (--install installs them); their comparisons are skipped"
		return 0
	fi
	log "installing: ${missing[*]}"
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# ---------------------------------------------------------------- 1. faults

# Starts faultbench waiting for its go signal: sets WL_PID, WL_OUT.
wl_start()
{
	WL_OUT=$TMP/wl.$RANDOM.out
	"$FB" "$@" >"$WL_OUT" &
	WL_PID=$!
	BG_PIDS+=("$WL_PID")
	wait_line "$WL_OUT" '^ready' 10 >/dev/null || die "faultbench did not get ready"
}

# Starts profiler @1 on WL_PID and returns once its probes are live: sets PROF_PID.
prof_start()
{
	local log=$TMP/prof.$1.log

	rm -f "$log"
	case $1 in
	none) PROF_PID="" ; return 0 ;;
	faultline)
		"$FL" -q -p "$WL_PID" >/dev/null 2> >(stamp >"$log") &
		PROF_PID=$!
		wait_line "$log" 'faultline: tracing' 10 >/dev/null || die "faultline did not start"
		;;
	perf)
		perf record -q -B -e page-faults -c 1 -g -p "$WL_PID" -o "$TMP/perf.data" \
			>"$log" 2>&1 &
		PROF_PID=$!
		# -B: no build-id pass at exit (outside the timed window; it only saves time).
		# perf says nothing when its events are enabled; they are well before this.
		sleep 1
		;;
	bpftrace)
		bpftrace -e "tracepoint:kmem:rss_stat /pid == $WL_PID/ { @[ustack] = count(); }" \
			>"$log" 2>&1 &
		PROF_PID=$!
		wait_line "$log" '^Attaching' 30 >/dev/null || die "bpftrace did not start"
		sleep 0.5	# it prints that line just before attaching
		;;
	esac
	BG_PIDS+=("$PROF_PID")
}

prof_stop()
{
	[[ -n $PROF_PID ]] || return 0
	kill -INT "$PROF_PID" 2>/dev/null || true
	reap "$PROF_PID" 60
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
	kill -USR2 "$WL_PID"
	reap "$WL_PID" 10
	ns=${line#*ns=} ns=${ns%% *}
	faults=${line#*faults=} faults=${faults%% *}
	RUN_NS=$ns
	RUN_US=$(calc %.4f "$ns / $faults / 1000")
	rm -f "$WL_OUT"
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
		"${FIG[redis]}" "$(quartiles "${ratios[@]}")" "$(minmax "${ratios[@]}")"
	printf '  runs without it: %s req/s (drift over the run is what the pairs cancel)\n' \
		"$(minmax "${bases[@]}")"
}

# ---------------------------------------------------------------- 3. faultline itself

# First stamp of a line matching @2 in stamped log @1.
stamp_of() { awk -v re="$2" '$0 ~ re { print $1; exit }' "$1"; }

bench_startup()
{
	local i log=$TMP/start.log t0 t1 starts=() exits=()

	echo "== 3a. start-up (command start to 'faultline: tracing') and exit (SIGINT to exit)," \
		"$STARTS runs on an idle target"
	wl_start
	for ((i = 0; i < STARTS; i++)); do
		rm -f "$log"
		t0=$(now)
		"$FL" -q -p "$WL_PID" >/dev/null 2> >(stamp >"$log") &
		PROF_PID=$!
		BG_PIDS+=("$PROF_PID")
		wait_line "$log" 'faultline: tracing' 10 >/dev/null || die "faultline did not start"
		sleep 0.3
		t1=$(now)
		kill -INT "$PROF_PID"
		wait_line "$log" '\[eof\]' 30 >/dev/null || die "faultline did not exit"
		reap "$PROF_PID" 5
		starts+=("$(calc %.4f "$(stamp_of "$log" 'faultline: tracing') - $t0")")
		exits+=("$(calc %.4f "$(stamp_of "$log" '\[eof\]') - $t1")")
	done
	kill -TERM "$WL_PID"	# still waiting for its go signal: exits at once
	reap "$WL_PID" 10
	FIG[start]=$(median "${starts[@]}")
	FIG[exit]=$(median "${exits[@]}")
	printf '  start-up: median %.3f s (%s); exit: median %.3f s (%s)\n' "${FIG[start]}" \
		"$(minmax "${starts[@]}")" "${FIG[exit]}" "$(minmax "${exits[@]}")"
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

# CPU seconds of process @1: the scheduler's exact sum over its threads when /proc/PID/sched
# has it, else utime + stime from /proc/PID/stat (whole clock ticks: 10 ms steps).
cpu_of()
{
	local f=("/proc/$1/task/"*/sched)

	if grep -qs se.sum_exec_runtime "${f[0]}"; then
		awk '/^se.sum_exec_runtime/ { ms += $3 } END { printf "%.6f", ms / 1000 }' "${f[@]}"
	else
		awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$1/stat"
	fi
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
	local log=$TMP/sess.log tfile=$TMP/time.out tpid fpid c0 c1 t0 t1 t2 hwm ids=""

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
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$fpid/status")
	[[ -n $ids ]] && { bpf_prog_costs "$ids" || log "  (bpftool/jq failed: no BPF run times)"; }
	t2=$(now)
	kill -INT "$fpid"
	wait_line "$log" '\[eof\]' 60 >/dev/null || die "faultline did not exit"
	FIG[exit_busy]=$(calc %.4f "$(stamp_of "$log" '\[eof\]') - $t2")
	reap "$tpid" 10
	[[ -n $BPF_STATS_OLD ]] && sysctl -q kernel.bpf_stats_enabled="$BPF_STATS_OLD"
	BPF_STATS_OLD=""
	kill -USR2 "$WL_PID" 2>/dev/null || true
	reap "$WL_PID" 30
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

# One row: name, figure key, printf format, unit, comparison (le/ge), target.
row()
{
	local v=${FIG[$2]:-} verdict

	if [[ -z $v ]]; then
		printf '  %-38s %12s   %-10s %s\n' "$1" skipped "$5 $6" -
		return 0
	fi
	verdict=$(awk -v v="$v" -v t="$6" -v op="$5" 'BEGIN {
		ok = (op == "<=") ? v <= t : v >= t; print ok ? "PASS" : "MISS" }')
	[[ $5 == - ]] && verdict=-
	printf "  %-38s %12s   %-10s %s\n" "$1" "$(printf "$3" "$v")$4" "$5 $6" "$verdict"
}

summary()
{
	echo "== summary ($(uname -r), $(nproc) CPUs, $("$FL" --version 2>&1 | head -1))"
	printf '  %-38s %12s   %-10s %s\n' figure measured target verdict
	row "added per fault, faultline -p" add_faultline %.3f " us" "<=" 0.8
	row "added per fault, perf record -c 1 -g" add_perf %.3f " us" - ""
	row "added per fault, bpftrace rss_stat" add_bpftrace %.3f " us" - ""
	row "faultbench time with faultline" ratio_faultline %.2f x - ""
	row "redis-benchmark throughput kept" redis %.3f x ">=" 0.97
	row "start-up to probes live (median)" start %.3f " s" "<=" 0.1
	row "faultline CPU at 1 s refresh" cpu %.3f "%" "<=" 2
	row "faultline peak RSS" rss %.1f " MiB" "<=" 32
	row "exit after SIGINT (idle, median)" exit %.3f " s" "<=" 0.5
	row "exit after SIGINT (busy session)" exit_busy %.3f " s" "<=" 0.5
}

main()
{
	parse_args "$@"
	set_sizes
	need_root_and_build
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	TMP=$(mktemp -d /tmp/faultline-bench.XXXXXX)
	install_tools
	for section in faults redis startup session; do
		[[ -z $ONLY || $ONLY == "$section" ]] && "bench_$section"
	done
	summary
}

main "$@"
