#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# bench-overhead.sh: faultline's overhead, measured side by side in one run (a benchmark, not a
# test: it prints figures next to their targets and exits 0 unless the script itself failed).
#
#   scripts/bench-overhead.sh [--install] [--quick] [--pairs N] [--build DIR]
#                             [--only faults|redis|startup|session|vm|mapping|storm|unwind|
#                                     connections|new|regions]
#
#   1. faults: build/workloads/faultbench touches 1 GiB in 4 KiB pages and times itself; runs
#      with no profiler and with a profiler attached alternate in pairs (the order flips every
#      pair). Profilers: faultline -q -p PID; perf record -e page-faults -c 1 -g -p PID; the
#      bpftrace one-liner  tracepoint:kmem:rss_stat /pid == PID/ { @[ustack] = count(); }
#      Figure: added microseconds per fault, median over pairs.
#   2. redis: a private redis-server on 127.0.0.1 under redis-benchmark, requests/s with and
#      without faultline attached, in pairs; figure: median throughput ratio and its spread.
#      REDIS_MODES (default "faultline") lists the modes to pair with no profiler, one after
#      the other: faultline, fl-alloc (--alloc), fl-alloc-sampled (--alloc --sample-bytes
#      524288), fl-churn (--alloc=churn), fl-churn-time (--alloc=churn --sample-time 10), fl-vm,
#      fl-mapping, fl-children, fl-fp, fl-new (--metric new) and, when BASELINE_FL names an
#      older faultline binary, fl-old-alloc (that one with --alloc); e.g.
#      REDIS_MODES="faultline fl-alloc fl-churn fl-churn-time" --only redis. With
#      REDIS_ROUNDS=1 the modes are not paired one after the other but run in rounds with no
#      profiler, the order rotating each round, and each mode after the first is also compared
#      with the first, same round (e.g. REDIS_MODES="fl-old-alloc fl-alloc").
#   3. faultline itself: start-up (command start to "faultline: tracing" on stderr) and exit
#      latency (SIGINT to exit) in each mode (default, --alloc, --vm, --by mapping, -f), with
#      BASELINE_FL that binary in the same mode too, cycle by cycle in turn; CPU
#      per second of session at the default 1 s refresh while
#      attached to a busy faultbench, peak RSS, and the kernel's per-program BPF run time.
#   4. vm: build/workloads/vmbench mmaps and munmaps 64 KiB (not touched) and times itself;
#      --pairs rounds of three runs (no profiler, faultline -q -p PID, faultline -q --vm -p
#      PID), the order rotating each round. Figure: added nanoseconds per system call against
#      the same round's run without a profiler, median over rounds. Then one run more of
#      --vm (two without --quick) with kernel.bpf_stats_enabled=1, outside the rounds so that
#      the stats' own clock reads stay out of the added time: run_time_ns / run_cnt of
#      fl_sys_enter and fl_sys_exit (bpftool, the programs that faultline process holds), over
#      the timed window alone.
#   5. mapping: faultbench as in 1, in rounds of no profiler, faultline -q -p PID and
#      faultline -q --by mapping -p PID; figure: added microseconds per fault of each; then,
#      the same way as in 4, the BPF run time per run of fl_page_fault and fl_rss_stat in
#      each of the two modes, and the BPF time per fault they add up to.
#   6. storm: build/workloads/storm forks STORM_N children back to back (4,500; 1,500 with
#      --quick), 64 KiB each, then reaps them, says so and exits; faultline -q -f --json
#      --folded -p PID, attached before its go signal, runs at `ulimit -n 1024`. Then the same
#      with each child exec'ing stormchild (a third as many). Figures: seconds from the
#      storm's last child reaped to faultline's end (target: 2), faultline's CPU over the
#      session, the storm's time with faultline against without, whether both outputs were
#      written, and the drops.
#   7. unwind: the cost of whole stacks per fault, on faultbench (frame pointers kept) and on
#      faultbench_nofp (the same, -O2 -fomit-frame-pointer), in rounds of no profiler,
#      faultline --unwind-mem 0 (frame pointers only), faultline (unwind tables) and, when
#      BASELINE_FL names an older faultline binary, that one; then each mode's BPF run time
#      per fault as in 5 (the older binary's too, side by side).
#   8. connections: a private PostgreSQL under pgbench -C -c 4 (a new backend for every
#      transaction: what a server that forks per connection costs faultline -f), in rounds of
#      no profiler, faultline -q -f -p POSTMASTER and, with BASELINE_FL, that binary, the order
#      rotating each round. Figures: connections a second kept (median of the rounds' ratios),
#      faultline's CPU over the run, its drops, and, in one run more of each with
#      kernel.bpf_stats_enabled=1, the BPF run time per fl_page_fault. Skipped without
#      postgresql (pgbench).
#   9. new: --metric new's raw tracepoint on kmem:mm_page_alloc (fl_page_alloc) runs for
#      every page the machine allocates. a) faultbench as in 5, in rounds of no profiler,
#      faultline -q -p PID and faultline -q --metric new -p PID: added microseconds per fault
#      of each, then the BPF run time per run of fl_page_fault, fl_rss_stat and fl_page_alloc
#      and per fault, as in 5. b) the machine-wide share: faultbench not traced, in rounds of
#      no profiler, faultline -q -p IDLE and faultline -q --metric new -p IDLE (IDLE: a
#      sleep started for it): added nanoseconds per fault of a process faultline does not
#      trace, and the BPF time per such fault.
#  10. regions: exact --alloc also loads a raw tracepoint on sys_exit (fl_region_exit), which
#      puts every system call of the machine on the tracing path. With
#      faultline -q --alloc -p IDLE (and, with BASELINE_FL, that binary the same way, from
#      before the regions) against no profiler, in rounds: added nanoseconds per call of an
#      untraced vmbench (mmap + munmap: the calls the programs look at, the target lookup
#      failing) and of an untraced build/workloads/syscallbench (getpid: a call they return from
#      at once); then the BPF run time of fl_region_exit per run and per
#      call, as in 4. For redis under --alloc (regions included) against the build before,
#      REDIS_MODES="fl-alloc fl-old-alloc" with BASELINE_FL, --only redis.
#      9 and 10 also give each run's workload CPU time (its threads' sum_exec_runtime over the
#      timed window, the BPF programs included), added per fault or call the same way: what a
#      busy machine's other processes do stretches the wall clock far more than that.
#
# --install apt-gets bpftrace, linux-perf, redis-server and redis-tools when missing; without it
# a comparison whose tool is missing is skipped, and the output says so; the BPF run times of
# 4 and 5 need bpftool and jq. Run as root, after `make all workloads`. Default run: about
# 6 minutes on a 2-CPU machine (4 and 5: 1 and 0.5 of them); --quick: about 1.5.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"	# options, exit trap, helpers, start-up, summary rows

SECTIONS=(faults redis startup session vm mapping storm unwind connections new regions)	# --only's choices, in the order they run
REDIS_PID=""
BPF_STATS_OLD=""
STATS_RUN=0	# 1: the runs of 4 and 5 read their faultline's BPF run times (see stats_begin)
STATS_NAMES='[]'	# the programs they read (a JSON array of names)
STATS_T0=""
declare -A BPF_CNT=() BPF_NS=() BPF_UNITS=()	# see stats_end
declare -A FL_OPTS=([faultline]="" [fl-vm]="--vm" [fl-mapping]="--by mapping" [fl-alloc]="--alloc"
	[fl-alloc-sampled]="--alloc --sample-bytes 524288"
	[fl-children]="-f" [fl-fp]="--unwind-mem 0" [fl-churn]="--alloc=churn"
	[fl-churn-time]="--alloc=churn --sample-time 10" [fl-new]="--metric new"
	[fl-old-alloc]="--alloc" [fl-old-vm]="--vm" [fl-old-mapping]="--by mapping"
	[fl-old-children]="-f"
	[fl-idle]="" [fl-new-idle]="--metric new" [fl-alloc-idle]="--alloc"
	[fl-old-alloc-idle]="--alloc")
declare -A LABEL=(
	[none]="no profiler"
	[faultline]="faultline -q -p PID"
	[fl-vm]="faultline -q --vm -p PID"
	[fl-mapping]="faultline -q --by mapping -p PID"
	[fl-alloc]="faultline -q --alloc -p PID"
	[fl-alloc-sampled]="faultline -q --alloc --sample-bytes 524288 -p PID"
	[fl-churn]="faultline -q --alloc=churn -p PID"
	[fl-churn-time]="faultline -q --alloc=churn --sample-time 10 -p PID"
	[fl-children]="faultline -q -f -p PID"
	[fl-fp]="faultline -q --unwind-mem 0 -p PID"
	[fl-old]="BASELINE_FL -q -p PID"
	[fl-new]="faultline -q --metric new -p PID"
	[fl-old-alloc]="BASELINE_FL -q --alloc -p PID"
	[fl-old-vm]="BASELINE_FL -q --vm -p PID"
	[fl-old-mapping]="BASELINE_FL -q --by mapping -p PID"
	[fl-old-children]="BASELINE_FL -q -f -p PID"
	[fl-idle]="faultline -q -p IDLE"
	[fl-new-idle]="faultline -q --metric new -p IDLE"
	[fl-alloc-idle]="faultline -q --alloc -p IDLE"
	[fl-old-alloc-idle]="BASELINE_FL -q --alloc -p IDLE"
)
ROUNDS_CPU=0	# 1: rounds_compare also compares the workload's CPU time (9 and 10)
IDLE_PID=""	# 9 and 10: the process the *-idle modes trace (see idle_start)

# Sizes: the default meets issue 2's bar (>= 1 GiB touched, >= 5 pairs); --quick does not.
set_sizes()
{
	if ((QUICK)); then
		FB_MIB=256 RB_N=100000 CPU_SECS=5 STARTS=5 VM_CALLS=200000 STATS_N=1 STORM_N=1500
		CONN_SECS=5 SYS_CALLS=1000000
		PAIRS=${COUNT:-3}
	else
		FB_MIB=1024 RB_N=400000 CPU_SECS=10 STARTS=7 VM_CALLS=500000 STATS_N=2 STORM_N=4500
		CONN_SECS=10 SYS_CALLS=2000000
		PAIRS=${COUNT:-10}
	fi
	FB_CHUNK_MIB=256
	FL=$OUT/faultline
	WL_BIN=$OUT/workloads/faultbench
	VM_BIN=$OUT/workloads/vmbench
	SYS_BIN=$OUT/workloads/syscallbench
}

# What the exit trap undoes besides the background processes and TMP (see cleanup).
cleanup_more()
{
	stop_redis
	stop_postgres
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
# faultline and fl-* are faultline with FL_OPTS; fl-old* is BASELINE_FL instead, and fl-*-idle
# traces IDLE_PID, not the workload.
prof_start()
{
	local opts=() target=$WL_PID bin=$FL

	PROF_TOOL=$1 PROF_LOG=$TMP/prof.$1.log
	rm -f "$PROF_LOG"
	START_AT=$(now)
	case $1 in
	none) PROF_PID="" ; return 0 ;;
	faultline | fl-*)
		read -ra opts <<<"${FL_OPTS[$1]:-}"
		[[ $1 == fl-old* ]] && bin=$BASELINE_FL
		[[ $1 == *-idle ]] && target=$IDLE_PID
		"$bin" -q "${opts[@]}" -p "$target" >/dev/null 2> >(stamp >"$PROF_LOG") &
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
	if [[ $PROF_TOOL == faultline || $PROF_TOOL == fl-* ]]; then
		stop_timed "$PROF_PID" "$PROF_LOG" || true
	else
		kill -INT "$PROF_PID" 2>/dev/null || true
		reap "$PROF_PID" 60
	fi
	rm -f "$TMP/perf.data" "$TMP/perf.data.old"
}

# The workload's CPU time so far in nanoseconds, its threads' sum_exec_runtime (user + sys,
# the BPF programs run in its context included): read just before its go signal and just after
# its result line, when it sits in sigwaitinfo, it is the timed window's. Another process
# busy on the same machine stretches the window's wall clock (preempted, its CPU shared), far
# less its CPU time.
wl_cpu_ns() { awk '/^se.sum_exec_runtime/ { ms += $3 } END { printf "%.0f", ms * 1e6 }' \
	"/proc/$WL_PID/task/"*/sched; }

# One timed faultbench run under profiler @1: sets RUN_US (microseconds per fault), RUN_NS,
# RUN_FAULTS, RUN_CPU_NS (see wl_cpu_ns); in a stats run, adds its BPF run times (see
# stats_begin).
fault_run()
{
	local line ns faults c0

	wl_start "$FB_MIB" "$FB_CHUNK_MIB"
	prof_start "$1"
	stats_begin
	c0=$(wl_cpu_ns)
	kill -USR1 "$WL_PID"
	line=$(wait_line "$WL_OUT" '^result' 300) || die "faultbench gave no result under $1"
	RUN_CPU_NS=$(calc %.0f "$(wl_cpu_ns) - $c0")
	ns=${line#*ns=} ns=${ns%% *}
	faults=${line#*faults=} faults=${faults%% *}
	stats_end "$faults"
	prof_stop
	wl_stop
	RUN_NS=$ns RUN_FAULTS=$faults
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

# Pairs of (no profiler, mode @1) on the running redis-server; the median ratio into
# FIG[redis] for faultline, FIG[redis_@1] for another mode.
redis_pairs()
{
	local mode=$1 i t order off on ratios=() bases=() key=redis

	[[ $mode == faultline ]] || key=redis_$mode
	for ((i = 0; i < PAIRS * 2; i++)); do	# twice as many: the noise here is 6-12%
		if ((i % 2)); then order="$mode none"; else order="none $mode"; fi
		for t in $order; do
			redis_run "$t"
			if [[ $t == none ]]; then off=$RB_RPS; else on=$RB_RPS; fi
			printf '  pair %2d %-11s %9s req/s  (%s)\n' $((i + 1)) "$t" "$RB_RPS" \
				"$RB_LINE"
		done
		ratios+=("$(calc %.4f "$on / $off")")
		bases+=("$off")
	done
	FIG[$key]=$(median "${ratios[@]}")
	printf '  throughput with %s: median %.3fx; pair ratios: middle half %s, all %s\n' \
		"${LABEL[$mode]}" "${FIG[$key]}" "$(quartiles %.3f "${ratios[@]}")" \
		"$(minmax "${ratios[@]}")"
	printf '  runs without it: %s req/s (drift over the run is what the pairs cancel)\n' \
		"$(minmax "${bases[@]}")"
}

bench_redis()
{
	local modes=() mode

	read -ra modes <<<"${REDIS_MODES:-faultline}"
	for mode in "${modes[@]}"; do
		[[ -n ${FL_OPTS[$mode]+set} && $mode != *-idle ]] ||
			die "REDIS_MODES: unknown mode '$mode' (faultline or fl-alloc, fl-churn, ...)"
		[[ $mode != fl-old* || -n ${BASELINE_FL:-} ]] ||
			die "REDIS_MODES: $mode needs BASELINE_FL (an older faultline binary)"
	done
	echo "== 2. redis-server under redis-benchmark -t set,get,lpush -n $RB_N -P 16 -r 100000," \
		"$((PAIRS * 2)) $( ((${REDIS_ROUNDS:-0})) && echo "rounds of none and" ||
			echo "pairs per mode") (${modes[*]})"
	if ! have redis-server || ! have redis-benchmark || ! have redis-cli; then
		echo "  redis-server/redis-tools not installed: skipped (--install)"
		return 0
	fi
	start_redis
	echo "  redis-server $(redis-server --version | awk '{ print $3 }') pid $REDIS_PID" \
		"port $REDIS_PORT"
	redis_run none	# warm-up: the first run pays for the allocator's first growth
	if ((${REDIS_ROUNDS:-0})); then
		redis_rounds "${modes[@]}"
	else
		for mode in "${modes[@]}"; do
			redis_pairs "$mode"
		done
	fi
	stop_redis
}

# REDIS_ROUNDS=1: rounds of no profiler and every mode @@ (twice PAIRS of them), the order
# rotating each round, so that the modes see the same drift: each mode's median ratio to the
# same round's run without a profiler into FIG as redis_pairs puts it, and each mode after the
# first against the first, same round (a build against BASELINE_FL's, say).
redis_rounds()
{
	local configs=(none "$@") n r i c m line ratios
	local -A this=() rat=() vs=()

	n=${#configs[@]}
	for ((r = 0; r < PAIRS * 2; r++)); do
		line=""
		for ((i = 0; i < n; i++)); do
			c=${configs[(i + r) % n]}
			redis_run "$c"
			this[$c]=$RB_RPS
			line+=$(printf ' %s %s' "$c" "$RB_RPS")
		done
		for m in "$@"; do
			rat[$m]+="$(calc %.4f "${this[$m]} / ${this[none]}") "
			[[ $m == "$1" ]] || vs[$m]+="$(calc %.4f "${this[$m]} / ${this[$1]}") "
		done
		printf '  round %2d (req/s):%s\n' $((r + 1)) "$line"
	done
	for m in "$@"; do
		read -ra ratios <<<"${rat[$m]}"
		c=redis_$m
		[[ $m == faultline ]] && c=redis
		FIG[$c]=$(median "${ratios[@]}")
		printf '  throughput with %s: median %.3fx; round ratios: middle half %s, all %s\n' \
			"${LABEL[$m]}" "${FIG[$c]}" "$(quartiles %.3f "${ratios[@]}")" \
			"$(minmax "${ratios[@]}")"
	done
	for m in "${@:2}"; do
		read -ra ratios <<<"${vs[$m]}"
		FIG[redis_${m}_vs]=$(median "${ratios[@]}")
		printf '  %s against %s, same round: median %.3fx (middle half %s, all %s)\n' "$m" "$1" \
			"${FIG[redis_${m}_vs]}" "$(quartiles %.3f "${ratios[@]}")" "$(minmax "${ratios[@]}")"
	done
}

# ---------------------------------------------------------------- 3. faultline itself

bench_startup()
{
	local mode

	echo "== 3a. start-up (command start to 'faultline: tracing') and exit (SIGINT to exit)," \
		"$STARTS runs each on an idle target, per mode"
	wl_start
	for mode in faultline fl-alloc fl-vm fl-mapping fl-children; do
		if [[ -n ${BASELINE_FL:-} ]]; then
			startup_beside "$mode" "${OLD_OF[$mode]}"
			continue
		fi
		startup_cycles "$mode"
		startup_figures "$mode" "${LABEL[$mode]}"
	done
	wl_stop TERM	# still waiting for its go signal: exits at once
}

# Each start-up mode's BASELINE_FL counterpart.
declare -A OLD_OF=([faultline]=fl-old [fl-alloc]=fl-old-alloc [fl-vm]=fl-old-vm
	[fl-mapping]=fl-old-mapping [fl-children]=fl-old-children)

# STARTS start/stop cycles of mode @1 and of BASELINE_FL's @2 in turn, the order flipping
# every cycle, so that both see the same load: the figures of each, as startup_figures gives
# them.
startup_beside()
{
	local i c order new=() new_exit=() old=() old_exit=()

	for ((i = 0; i < STARTS; i++)); do
		order=("$1" "$2")
		((i % 2)) && order=("$2" "$1")
		for c in "${order[@]}"; do
			STARTS=1 startup_cycles "$c" || die "${LABEL[$c]} did not start"
			if [[ $c == "$1" ]]; then
				new+=("${STARTS_S[0]}") new_exit+=("${EXITS_S[0]}")
			else
				old+=("${STARTS_S[0]}") old_exit+=("${EXITS_S[0]}")
			fi
		done
	done
	STARTS_S=("${new[@]}") EXITS_S=("${new_exit[@]}")
	startup_figures "$1" "${LABEL[$1]}"
	STARTS_S=("${old[@]}") EXITS_S=("${old_exit[@]}")
	startup_figures "$2" "${LABEL[$2]}"
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

# ---------------------------------------------------------------- BPF run time (4 and 5)

# Sets kernel.bpf_stats_enabled to 1, keeping the old value for bpf_stats_off and the exit trap.
bpf_stats_on()
{
	BPF_STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -q kernel.bpf_stats_enabled=1
}

bpf_stats_off()
{
	if [[ -n $BPF_STATS_OLD ]]; then
		sysctl -q kernel.bpf_stats_enabled="$BPF_STATS_OLD"
	fi
	BPF_STATS_OLD=""
}

# "NAME RUN_CNT RUN_TIME_NS" of each program named in STATS_NAMES (a JSON array) that process
# @1 holds, from @2 (the output of bpftool -j prog show). Its fds' fdinfo gives the ids: this
# bpftool lists no holders, and "loaded since" would also take in another faultline started
# meanwhile (a test run, say).
prog_stats()
{
	local ids

	ids=$(cat "/proc/$1/fdinfo/"* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -un |
		jq -sc .) || true
	jq -r --argjson ids "${ids:-[]}" --argjson names "$STATS_NAMES" '.[]
		| select(.id as $i | $ids | index($i)) | select(.name as $n | $names | index($n))
		| "\(.name) \(.run_cnt // 0) \(.run_time_ns // 0)"' <<<"$2"
}

# In a stats run (STATS_RUN=1) with a profiler, the counters of its programs just before the
# timed window (stats_begin) and just after it (stats_end @1, the window's calls or faults):
# the differences add up, per configuration and program, in BPF_CNT and BPF_NS, and @1 in
# BPF_UNITS. Outside a stats run they do nothing. The programs count every process's events:
# bpftool alone is read between the two readings, the rest comes after, so that the tools'
# own start-up (some 4,000 page faults for this pipeline) stays out of the counts.
stats_begin()
{
	((STATS_RUN)) && [[ -n $PROF_PID ]] || return 0
	STATS_T0=$(bpftool -j prog show 2>/dev/null) || true
}

stats_end()
{
	local name c n k t1

	((STATS_RUN)) && [[ -n $PROF_PID ]] || return 0
	t1=$(bpftool -j prog show 2>/dev/null) || true
	BPF_UNITS[$PROF_TOOL]=$((BPF_UNITS[$PROF_TOOL] + $1))
	while read -r name c n; do
		k=$PROF_TOOL/$name
		BPF_CNT[$k]=$((BPF_CNT[$k] + c)) BPF_NS[$k]=$((BPF_NS[$k] + n))
	done < <(awk 'NR == FNR { c[$1] = $2; n[$1] = $3; next }
		{ print $1, $2 - c[$1], $3 - n[$1] }' <(prog_stats "$PROF_PID" "$STATS_T0") \
		<(prog_stats "$PROF_PID" "$t1"))
}

# STATS_N runs of each configuration @4.. with run function @2, kernel.bpf_stats_enabled=1,
# then per program of STATS_NAMES: runs, runs per @3 (call, fault), ns per run; and the BPF
# time per @3 of them all, into FIG[@1_bpf_CONFIG] (ns).
stats_runs()
{
	local key=$1 run=$2 unit=$3 c name k i total more="1 more run"

	shift 3
	((STATS_N == 1)) || more="$STATS_N more runs"
	if ! have bpftool || ! have jq; then
		echo "  BPF run time: skipped (needs bpftool and jq)"
		return 0
	fi
	BPF_CNT=() BPF_NS=() BPF_UNITS=()
	bpf_stats_on
	STATS_RUN=1
	for c in "$@"; do
		for ((i = 0; i < STATS_N; i++)); do
			"$run" "$c"
		done
	done
	STATS_RUN=0
	bpf_stats_off
	for c in "$@"; do
		echo "  BPF run time under ${LABEL[$c]} ($more, kernel.bpf_stats_enabled=1," \
			"timed window only):"
		total=0
		for name in $(jq -r '.[]' <<<"$STATS_NAMES"); do
			k=$c/$name
			if ((${BPF_CNT[$k]:-0} == 0)); then
				printf '    %-16s no runs\n' "$name"
				continue
			fi
			printf '    %-16s %9d runs, %5.2f per %s, %6.0f ns per run\n' "$name" \
				"${BPF_CNT[$k]}" \
				"$(calc %.4f "${BPF_CNT[$k]} / ${BPF_UNITS[$c]}")" "$unit" \
				"$(calc %.2f "${BPF_NS[$k]} / ${BPF_CNT[$k]}")"
			total=$((total + BPF_NS[$k]))
		done
		FIG[${key}_bpf_$c]=$(calc %.2f "$total / ${BPF_UNITS[$c]}")
		printf '    all of them: %.0f ns of BPF per %s\n' "${FIG[${key}_bpf_$c]}" "$unit"
	done
	echo "  (runs are the whole machine's: a program also runs, and returns early, for other" \
		"processes' events)"
}

# ---------------------------------------------------------------- 4 and 5: rounds

# PAIRS rounds of configurations @6.. (none first), each run by function @2, which sets
# RUN_PER: the cost per @5 (call, fault) in unit @4 (ns, us), shown in printf format @3; the
# order rotates every round. Per configuration: added cost against the same round's run of
# none, and the ratio of the two; medians into FIG[@1_add_CONFIG], FIG[@1_ratio_CONFIG], and
# none's own into FIG[@1_base]. With ROUNDS_CPU=1 the run function also sets RUN_CPU, the
# workload's own CPU time per @5 in the same unit, and the same figures of it follow (into
# FIG[@1_cpuadd_CONFIG], FIG[@1_cpubase]).
rounds_compare()
{
	local key=$1 run=$2 fmt=$3 unit=$4 per=$5 n r i c base line cbase
	local -A this=() added=() ratio=() cpu=() cadded=()	# config -> its figure(s)
	local bases=() cbases=() list=() order

	shift 5
	n=$#
	local configs=("$@")
	for ((r = 0; r < PAIRS; r++)); do
		list=()
		for ((i = 0; i < n; i++)); do
			c=${configs[(i + r) % n]}
			"$run" "$c"
			this[$c]=$(calc "$fmt" "$RUN_PER")
			((ROUNDS_CPU)) && cpu[$c]=$(calc "$fmt" "$RUN_CPU")
			list+=("$c")
		done
		base=${this[none]}
		bases+=("$base")
		order=$(IFS=,; echo "${list[*]}")
		line=$(printf "  round %2d (%-30s alone $fmt %s/%s" $((r + 1)) "${order//,/, }):" \
			"$base" "$unit" "$per")
		for c in "${configs[@]:1}"; do
			added[$c]+="$(calc "$fmt" "${this[$c]} - $base") "
			ratio[$c]+="$(calc %.4f "${this[$c]} / $base") "
			line+=$(printf "; %s +$fmt" "$c" "$(calc "$fmt" "${this[$c]} - $base")")
		done
		echo "${line//+-/-}"
		((ROUNDS_CPU)) || continue
		cbase=${cpu[none]}
		cbases+=("$cbase")
		line=$(printf "  %-41s cpu $fmt %s/%s" "" "$cbase" "$unit" "$per")
		for c in "${configs[@]:1}"; do
			cadded[$c]+="$(calc "$fmt" "${cpu[$c]} - $cbase") "
			line+=$(printf "; %s +$fmt" "$c" "$(calc "$fmt" "${cpu[$c]} - $cbase")")
		done
		echo "${line//+-/-}"
	done
	FIG[${key}_base]=$(median "${bases[@]}")
	printf "  %-34s median $fmt %s/%s alone (rounds %s)\n" "${LABEL[none]}:" \
		"${FIG[${key}_base]}" "$unit" "$per" "$(minmax "${bases[@]}")"
	for c in "${configs[@]:1}"; do
		read -ra list <<<"${added[$c]}"
		FIG[${key}_add_$c]=$(median "${list[@]}")
		printf "  %-34s median ${fmt/\%/%+} %s per %s added (rounds %s)" "${LABEL[$c]}:" \
			"${FIG[${key}_add_$c]}" "$unit" "$per" "$(minmax "${list[@]}")"
		read -ra list <<<"${ratio[$c]}"
		FIG[${key}_ratio_$c]=$(median "${list[@]}")
		printf ', %.3fx the time\n' "${FIG[${key}_ratio_$c]}"
	done
	((ROUNDS_CPU)) || return 0
	FIG[${key}_cpubase]=$(median "${cbases[@]}")
	printf "  the workload's CPU time (user + sys, its threads' sum_exec_runtime over the timed"
	printf " window;\n  load on the other CPU stretches its wall clock, not this):\n"
	printf "  %-34s median $fmt %s/%s CPU alone (rounds %s)\n" "${LABEL[none]}:" \
		"${FIG[${key}_cpubase]}" "$unit" "$per" "$(minmax "${cbases[@]}")"
	for c in "${configs[@]:1}"; do
		read -ra list <<<"${cadded[$c]}"
		FIG[${key}_cpuadd_$c]=$(median "${list[@]}")
		printf "  %-34s median ${fmt/\%/%+} %s of CPU per %s added (rounds %s)\n" \
			"${LABEL[$c]}:" "${FIG[${key}_cpuadd_$c]}" "$unit" "$per" "$(minmax "${list[@]}")"
	done
}

# ---------------------------------------------------------------- 4. vm

# One timed run of system-call workload @2 (vmbench, syscallbench: "result ns= calls=") making @3
# calls, under profiler @1: sets RUN_PER (nanoseconds per system call) and RUN_CPU (its CPU
# time per call, see wl_cpu_ns); in a stats run, adds its BPF run times (see stats_begin).
calls_run()
{
	local WL_BIN=$2 line ns calls c0 c1

	wl_start "$3"
	prof_start "$1"
	stats_begin
	c0=$(wl_cpu_ns)
	kill -USR1 "$WL_PID"
	line=$(wait_line "$WL_OUT" '^result' 300) || die "${2##*/} gave no result under $1"
	c1=$(wl_cpu_ns)
	ns=${line#*ns=} ns=${ns%% *}
	calls=${line#*calls=} calls=${calls%% *}
	stats_end "$calls"
	prof_stop
	wl_stop
	RUN_PER=$(calc %.4f "$ns / $calls")
	RUN_CPU=$(calc %.4f "($c1 - $c0) / $calls")
}

vm_run() { calls_run "$1" "$VM_BIN" "$VM_CALLS"; }
sys_run() { calls_run "$1" "$SYS_BIN" "$SYS_CALLS"; }

bench_vm()
{
	[[ -x $VM_BIN ]] || die "$VM_BIN missing: run 'make workloads' first"
	echo "== 4. vm: vmbench, $VM_CALLS calls of mmap + munmap 64 KiB (not touched), $PAIRS" \
		"rounds, the order rotating each round; added = with - alone, same round"
	rounds_compare vm vm_run %.1f ns call none faultline fl-vm
	STATS_NAMES='["fl_sys_enter","fl_sys_exit"]'
	stats_runs vm vm_run call fl-vm
}

# ---------------------------------------------------------------- 5. mapping

mapping_run()
{
	fault_run "$1"
	RUN_PER=$RUN_US
	RUN_CPU=$(calc %.4f "$RUN_CPU_NS / $RUN_FAULTS / 1000")
}

bench_mapping()
{
	echo "== 5. mapping: faultbench touches $FB_MIB MiB in 4 KiB pages, $PAIRS rounds, the" \
		"order rotating each round; added = with - alone, same round"
	rounds_compare map mapping_run %.3f us fault none faultline fl-mapping
	STATS_NAMES='["fl_page_fault","fl_rss_stat"]'
	stats_runs map mapping_run fault faultline fl-mapping
}

# ---------------------------------------------------------------- 6. storm

# storm ARGS alone, to its last child reaped: sets STORM_ALONE_S.
storm_alone()
{
	local out=$TMP/storm.alone t0

	t0=$(now)
	"$OUT/workloads/storm" --now --exit "$@" > >(stamp >"$out")
	wait_line "$out" '^[0-9.]+ children ' 600 >/dev/null || die "storm gave no sums"
	STORM_ALONE_S=$(calc %.3f "$(stamp_of "$out" ' children ') - $t0")
}

# storm ARGS under faultline -f at ulimit -n 1024: sets STORM_S (to the last child reaped),
# STORM_END_S (from then to faultline's end), STORM_CPU (faultline's user + sys seconds),
# STORM_OUTPUTS (yes: --json and --folded written) and STORM_DROPS.
storm_run()
{
	local out=$TMP/storm.out log=$TMP/storm.log tfile=$TMP/storm.time json=$TMP/storm.json
	local folded=$TMP/storm.folded spid fpid t0 last

	rm -f "$out" "$log" "$tfile" "$json" "$folded"
	"$OUT/workloads/storm" --exit "$@" > >(stamp >"$out") &
	spid=$!
	BG_PIDS+=("$spid")
	wait_line "$out" ' ready$' 10 >/dev/null || die "storm did not get ready"
	(ulimit -n 1024 && exec /usr/bin/time -f '%U %S' -o "$tfile" "$FL" -q -f --json "$json" \
		--folded "$folded" -p "$spid") >/dev/null 2> >(stamp >"$log") &
	fpid=$!
	BG_PIDS+=("$fpid")
	wait_line "$log" 'faultline: tracing' 10 >/dev/null || die "faultline did not start"
	t0=$(now)
	kill -USR1 "$spid"
	wait_line "$out" ' children ' 600 >/dev/null || die "storm gave no sums"
	wait_line "$log" '\[eof\]' 120 >/dev/null || die "faultline did not end after the storm"
	reap "$spid" 10
	reap "$fpid" 10
	last=$(stamp_of "$out" ' children ')
	STORM_S=$(calc %.3f "$last - $t0")
	STORM_END_S=$(calc %.3f "$(stamp_of "$log" '\[eof\]') - $last")
	STORM_CPU=$(awk '{ printf "%.2f", $1 + $2 }' "$tfile")
	STORM_OUTPUTS=no
	[[ -s $json && -s $folded ]] && STORM_OUTPUTS=yes
	STORM_DROPS=$(jq -r '[.drops | to_entries[] | select(.value > 0) | "\(.key) \(.value)"]
		| if length == 0 then "none" else join(", ") end' "$json" 2>/dev/null || echo "?")
}

# One storm configuration: @1 its figure key, @2 its label, then storm's arguments.
storm_case()
{
	local key=$1 label=$2

	shift 2
	storm_alone "$@"
	storm_run "$@"
	FIG[storm_end_$key]=$STORM_END_S
	FIG[storm_ratio_$key]=$(calc %.3f "$STORM_S / $STORM_ALONE_S")
	printf '  %s: storm %.2f s (alone %.2f s, %.2fx); faultline ended %.3f s after the last' \
		"$label" "$STORM_S" "$STORM_ALONE_S" "${FIG[storm_ratio_$key]}" "$STORM_END_S"
	printf ' child, %s s of CPU; outputs at ulimit -n 1024: %s; drops: %s\n' "$STORM_CPU" \
		"$STORM_OUTPUTS" "$STORM_DROPS"
	[[ $STORM_OUTPUTS == yes ]] || FIG[storm_end_$key]=""
}

bench_storm()
{
	echo "== 6. storm: $STORM_N forked children back to back, then $((STORM_N / 3)) that exec," \
		"faultline -q -f -p PID at ulimit -n 1024"
	storm_case fork "fork only" "$STORM_N" 64 0
	storm_case exec "fork + exec" "$((STORM_N / 3))" 64 0 "$OUT/workloads/stormchild"
}

# ---------------------------------------------------------------- 7. unwind

bench_unwind()
{
	local configs=(none fl-fp faultline) bin

	[[ -n ${BASELINE_FL:-} ]] && configs+=(fl-old)
	for bin in faultbench faultbench_nofp; do
		[[ -x $OUT/workloads/$bin ]] || die "$OUT/workloads/$bin missing: run 'make workloads'"
		echo "== 7. unwind: $bin touches $FB_MIB MiB in 4 KiB pages, $PAIRS rounds, the order" \
			"rotating each round; fl-fp walks by frame pointers only (--unwind-mem 0)" \
			"${BASELINE_FL:+, fl-old is $BASELINE_FL}"
		WL_BIN=$OUT/workloads/$bin
		rounds_compare "unw_$bin" mapping_run %.3f us fault "${configs[@]}"
		STATS_NAMES='["fl_page_fault","fl_rss_stat"]'
		stats_runs "unw_$bin" mapping_run fault fl-fp faultline \
			${BASELINE_FL:+fl-old}
	done
	WL_BIN=$OUT/workloads/faultbench
}

# ---------------------------------------------------------------- 8. connections

# pgbench -C (a new connection, so a new backend, for every transaction; 4 clients, CONN_SECS)
# with profiler @1 on the postmaster: none, fl-children (faultline -q -f) or fl-old (the same
# with BASELINE_FL). Sets CONN_TPS, and for faultline CONN_CPU (its user + sys seconds over
# the session) and CONN_DROPS; in a stats run, adds its programs' run times (stats_end).
conn_run()
{
	local log=$TMP/conn.log tfile=$TMP/conn.time json=$TMP/conn.json bin=$FL fpid
	local PROF_PID="" PROF_TOOL=conn_$1 # what stats_begin and stats_end read

	CONN_CPU="" CONN_DROPS=""
	rm -f "$log" "$tfile" "$json"
	if [[ $1 != none ]]; then
		[[ $1 == fl-old ]] && bin=$BASELINE_FL
		/usr/bin/time -f '%U %S' -o "$tfile" "$bin" -q -f --json "$json" -p "$PG_PID" \
			>/dev/null 2> >(stamp >"$log") &
		fpid=$!
		BG_PIDS+=("$fpid")
		wait_line "$log" 'faultline: tracing' 20 >/dev/null || die "faultline did not start"
		# time's child: time ignores SIGINT, and a comm is cut to 15 characters
		PROF_PID=$(child_named "$fpid" "$(basename "$bin" | cut -c1-15)") ||
			die "no faultline process under /usr/bin/time ($bin)"
	fi
	stats_begin
	# pgbench exits 2 when a connection failed: its tps line still says what it did
	CONN_TPS=$(runuser -u postgres -- "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -C -c 4 \
		-T "$CONN_SECS" postgres 2>/dev/null | awk '/^tps/ { print $3; exit }' || true)
	[[ -n $CONN_TPS ]] || die "pgbench -C gave no figure under $1"
	stats_end 0
	[[ $1 != none ]] || return 0
	kill -INT "$PROF_PID" 2>/dev/null || true
	reap "$fpid" 60
	# the last line: time writes "Command exited with non-zero status N" before it
	CONN_CPU=$(tail -n 1 "$tfile" 2>/dev/null | awk '{ printf "%.2f", $1 + $2 }')
	CONN_DROPS=$(jq -r '[.drops | to_entries[] | select(.value > 0) | "\(.key) \(.value)"]
		| if length == 0 then "none" else join(", ") end' "$json" 2>/dev/null || echo "?")
}

bench_connections()
{
	local configs=(none fl-children) i j t k order line ratios on off
	declare -A runs=()

	[[ -n ${BASELINE_FL:-} ]] && configs+=(fl-old)
	echo "== 8. connections: PostgreSQL under pgbench -C -c 4 -T $CONN_SECS (a backend per" \
		"transaction), $PAIRS rounds of ${configs[*]} (faultline -q -f on the postmaster)," \
		"the order rotating each round${BASELINE_FL:+; fl-old is $BASELINE_FL}"
	if ! have pgbench || ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
		echo "  postgresql not installed: skipped"
		return 0
	fi
	start_postgres 2	# pgbench scale
	conn_run none	# warm-up: the tables into the page cache
	for ((i = 0; i < PAIRS; i++)); do
		order=("${configs[@]:i % ${#configs[@]}}" "${configs[@]:0:i % ${#configs[@]}}")
		line=""
		for t in "${order[@]}"; do
			conn_run "$t"
			runs[$t]+="$CONN_TPS "
			[[ $t == none ]] || runs[cpu_$t]+="$CONN_CPU "
			line+=$(printf ' %s %.1f tps' "$t" "$CONN_TPS")
			[[ $t == none ]] || line+=$(printf ' (CPU %s s, drops %s)' "$CONN_CPU" "$CONN_DROPS")
		done
		echo "  round $((i + 1)):$line"
	done
	for t in "${configs[@]:1}"; do
		ratios=()
		read -ra on <<<"${runs[$t]}"
		read -ra off <<<"${runs[none]}"
		for ((j = 0; j < ${#on[@]}; j++)); do
			ratios+=("$(calc %.4f "${on[j]} / ${off[j]}")")
		done
		FIG[conn_$t]=$(median "${ratios[@]}")
		# shellcheck disable=SC2086
		FIG[conn_cpu_$t]=$(median ${runs[cpu_$t]})
		printf '  connections a second kept with %s: median %.3fx (rounds %s); its CPU: median' \
			"$t" "${FIG[conn_$t]}" "$(minmax "${ratios[@]}")"
		printf ' %.2f s over %s s\n' "${FIG[conn_cpu_$t]}" "$CONN_SECS"
	done
	# shellcheck disable=SC2086
	printf '  runs without a profiler: %s tps\n' "$(minmax ${runs[none]})"
	bpf_stats_on
	STATS_RUN=1 STATS_NAMES='["fl_page_fault"]'
	for t in "${configs[@]:1}"; do
		conn_run "$t"
		k=conn_$t/fl_page_fault
		((${BPF_CNT[$k]:-0})) && FIG[conn_bpf_$t]=$(calc %.0f "${BPF_NS[$k]} / ${BPF_CNT[$k]}")
		printf '  BPF per fault (fl_page_fault), %s, one run more with bpf_stats: %s ns\n' \
			"$t" "${FIG[conn_bpf_$t]:-?}"
	done
	STATS_RUN=0
	bpf_stats_off
	stop_postgres
}

# ---------------------------------------------------------------- 9 and 10: an idle target

# A process that does nothing, for the *-idle modes to trace while the workload runs untraced:
# sets IDLE_PID. sleep is linked to libc, so --alloc finds an allocator in it to attach to.
idle_start()
{
	sleep infinity &
	IDLE_PID=$!
	BG_PIDS+=("$IDLE_PID")
}

idle_stop()
{
	[[ -n $IDLE_PID ]] || return 0
	kill -TERM "$IDLE_PID" 2>/dev/null || true
	reap "$IDLE_PID" 10
	IDLE_PID=""
}

# ---------------------------------------------------------------- 9. new

# faultbench as fault_run, RUN_PER in nanoseconds per fault (an untraced process's share is a
# few of them).
fault_run_ns()
{
	fault_run "$1"
	RUN_PER=$(calc %.2f "$RUN_NS / $RUN_FAULTS")
	RUN_CPU=$(calc %.2f "$RUN_CPU_NS / $RUN_FAULTS")
}

bench_new()
{
	echo "== 9a. new: faultbench touches $FB_MIB MiB in 4 KiB pages, $PAIRS rounds, the order" \
		"rotating each round; added = with - alone, same round"
	ROUNDS_CPU=1
	rounds_compare new mapping_run %.3f us fault none faultline fl-new
	STATS_NAMES='["fl_page_fault","fl_rss_stat","fl_page_alloc"]'
	stats_runs new mapping_run fault faultline fl-new
	idle_start
	echo "== 9b. new, machine-wide: faultbench ($FB_MIB MiB) NOT traced while faultline traces" \
		"an idle process (sleep, pid $IDLE_PID), $PAIRS rounds, the order rotating each round"
	rounds_compare newidle fault_run_ns %.1f ns fault none fl-idle fl-new-idle
	FIG[newidle_alloc]=$(calc %.1f "${FIG[newidle_add_fl-new-idle]} - ${FIG[newidle_add_fl-idle]}")
	printf '  fl_page_alloc alone (--metric new - default, medians): %+.1f ns per untraced fault\n' \
		"${FIG[newidle_alloc]}"
	stats_runs newidle fault_run_ns fault fl-idle fl-new-idle
	ROUNDS_CPU=0
	idle_stop
}

# ---------------------------------------------------------------- 10. regions

bench_regions()
{
	local configs=(none fl-alloc-idle)

	[[ -x $VM_BIN ]] || die "$VM_BIN missing: run 'make workloads' first"
	[[ -x $SYS_BIN ]] || die "$SYS_BIN missing: run 'make workloads' first"
	[[ -n ${BASELINE_FL:-} ]] && configs+=(fl-old-alloc-idle)
	idle_start
	echo "== 10. regions: system calls of a process faultline does NOT trace, while it traces an" \
		"idle process (sleep, pid $IDLE_PID) with --alloc; $PAIRS rounds of ${configs[*]}," \
		"the order rotating each round${BASELINE_FL:+; fl-old is $BASELINE_FL}"
	ROUNDS_CPU=1
	echo "  a) vmbench, $VM_CALLS calls of mmap + munmap 64 KiB (the programs look these up)"
	rounds_compare regvm vm_run %.1f ns call "${configs[@]}"
	echo "  b) syscallbench, $SYS_CALLS calls of getpid (the programs return at once)"
	rounds_compare regsys sys_run %.1f ns call "${configs[@]}"
	ROUNDS_CPU=0
	STATS_NAMES='["fl_region_exit"]'
	echo "  a) vmbench:"
	stats_runs regvm vm_run call fl-alloc-idle
	echo "  b) syscallbench:"
	stats_runs regsys sys_run call fl-alloc-idle
	idle_stop
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
	row "... with --alloc (REDIS_MODES)" redis_fl-alloc %.3f x - ""
	row "... with --alloc --sample-bytes 524288 (REDIS_MODES)" redis_fl-alloc-sampled %.3f x - ""
	row "... with --alloc=churn (REDIS_MODES)" redis_fl-churn %.3f x - ""
	row "... with --alloc=churn --sample-time 10 (REDIS_MODES)" redis_fl-churn-time %.3f x - ""
	row "... with --metric new (REDIS_MODES)" redis_fl-new %.3f x - ""
	row "... BASELINE_FL --alloc (REDIS_MODES)" redis_fl-old-alloc %.3f x - ""
	row "start-up to probes live (median)" start_faultline %.3f " s" "<=" 0.1
	row "... with --alloc" start_fl-alloc %.3f " s" "<=" 0.1
	row "... with --vm" start_fl-vm %.3f " s" "<=" 0.1
	row "... with --by mapping" start_fl-mapping %.3f " s" "<=" 0.1
	row "... with -f" start_fl-children %.3f " s" "<=" 0.1
	row "... BASELINE_FL" start_fl-old %.3f " s" - ""
	row "... BASELINE_FL --alloc" start_fl-old-alloc %.3f " s" - ""
	row "... BASELINE_FL --vm" start_fl-old-vm %.3f " s" - ""
	row "... BASELINE_FL --by mapping" start_fl-old-mapping %.3f " s" - ""
	row "... BASELINE_FL -f" start_fl-old-children %.3f " s" - ""
	row "faultline CPU at 1 s refresh" cpu %.3f "%" "<=" 2
	row "faultline peak RSS" rss %.1f " MiB" "<=" 32
	row "exit after SIGINT (idle, median)" exit_faultline %.3f " s" "<=" 0.5
	row "... with --alloc" exit_fl-alloc %.3f " s" "<=" 0.5
	row "... with --vm" exit_fl-vm %.3f " s" "<=" 0.5
	row "... with --by mapping" exit_fl-mapping %.3f " s" "<=" 0.5
	row "... with -f" exit_fl-children %.3f " s" "<=" 0.5
	row "exit after SIGINT (busy session)" exit_busy %.3f " s" "<=" 0.5
	row "added per mmap/munmap, faultline -p" vm_add_faultline %.1f " ns" - ""
	row "added per mmap/munmap, --vm -p" vm_add_fl-vm %.1f " ns" - ""
	row "BPF per mmap/munmap, --vm -p" vm_bpf_fl-vm %.0f " ns" - ""
	row "added per fault (5.), faultline -p" map_add_faultline %.3f " us" - ""
	row "added per fault (5.), --by mapping -p" map_add_fl-mapping %.3f " us" - ""
	row "BPF per fault (5.), faultline -p" map_bpf_faultline %.0f " ns" - ""
	row "BPF per fault (5.), --by mapping -p" map_bpf_fl-mapping %.0f " ns" - ""
	row "end after a storm's last child (6.)" storm_end_fork %.3f " s" "<=" 2
	row "... children that exec" storm_end_exec %.3f " s" "<=" 2
	row "storm's time with faultline -f (6.)" storm_ratio_fork %.2f x - ""
	row "... children that exec" storm_ratio_exec %.2f x - ""
	row "added per fault (7.), fp code, fp only" unw_faultbench_add_fl-fp %.3f " us" - ""
	row "... unwind tables" unw_faultbench_add_faultline %.3f " us" - ""
	row "... the baseline build" unw_faultbench_add_fl-old %.3f " us" - ""
	row "added per fault (7.), -fomit-frame-pointer" unw_faultbench_nofp_add_faultline %.3f \
		" us" "<=" 1.5
	row "... fp only (stacks cut)" unw_faultbench_nofp_add_fl-fp %.3f " us" - ""
	row "... the baseline build" unw_faultbench_nofp_add_fl-old %.3f " us" - ""
	row "pgbench -C connections kept, -f (8.)" conn_fl-children %.3f x - ""
	row "... the baseline build" conn_fl-old %.3f x - ""
	row "faultline CPU over pgbench -C, -f" conn_cpu_fl-children %.2f " s" - ""
	row "... the baseline build" conn_cpu_fl-old %.2f " s" - ""
	row "BPF per fault, pgbench -C backends" conn_bpf_fl-children %.0f " ns" - ""
	row "... the baseline build" conn_bpf_fl-old %.0f " ns" - ""
	row "BPF per fault (7.), fp code, tables" unw_faultbench_bpf_faultline %.0f " ns" - ""
	row "BPF per fault (7.), nofp code, tables" unw_faultbench_nofp_bpf_faultline %.0f " ns" - ""
	row "added per fault (9.), faultline -p" new_add_faultline %.3f " us" - ""
	row "added per fault (9.), --metric new -p" new_add_fl-new %.3f " us" - ""
	row "BPF per fault (9.), faultline -p" new_bpf_faultline %.0f " ns" - ""
	row "BPF per fault (9.), --metric new -p" new_bpf_fl-new %.0f " ns" - ""
	row "added per untraced fault, -p IDLE" newidle_add_fl-idle %.1f " ns" - ""
	row "... --metric new -p IDLE" newidle_add_fl-new-idle %.1f " ns" - ""
	row "... fl_page_alloc's share (difference)" newidle_alloc %.1f " ns" - ""
	row "CPU added per fault (9.), faultline -p" new_cpuadd_faultline %.3f " us" - ""
	row "... --metric new -p" new_cpuadd_fl-new %.3f " us" - ""
	row "CPU added per untraced fault, -p IDLE" newidle_cpuadd_fl-idle %.1f " ns" - ""
	row "... --metric new -p IDLE" newidle_cpuadd_fl-new-idle %.1f " ns" - ""
	row "BPF per untraced fault, -p IDLE" newidle_bpf_fl-idle %.1f " ns" - ""
	row "... --metric new -p IDLE" newidle_bpf_fl-new-idle %.1f " ns" - ""
	row "untraced mmap/munmap added, --alloc" regvm_add_fl-alloc-idle %.1f " ns" - ""
	row "... the baseline build (no regions)" regvm_add_fl-old-alloc-idle %.1f " ns" - ""
	row "added per untraced getpid, --alloc" regsys_add_fl-alloc-idle %.1f " ns" - ""
	row "... the baseline build (no regions)" regsys_add_fl-old-alloc-idle %.1f " ns" - ""
	row "CPU added per untraced mmap/munmap" regvm_cpuadd_fl-alloc-idle %.1f " ns" - ""
	row "... the baseline build (no regions)" regvm_cpuadd_fl-old-alloc-idle %.1f " ns" - ""
	row "CPU added per untraced getpid" regsys_cpuadd_fl-alloc-idle %.1f " ns" - ""
	row "... the baseline build (no regions)" regsys_cpuadd_fl-old-alloc-idle %.1f " ns" - ""
	row "BPF per untraced mmap/munmap, regions" regvm_bpf_fl-alloc-idle %.1f " ns" - ""
	row "BPF per untraced getpid (regions)" regsys_bpf_fl-alloc-idle %.1f " ns" - ""
}

main()
{
	bench_start --pairs "BPF, perf and tracepoints need it" "$@"
	install_tools
	run_sections
	summary
}

main "$@"
