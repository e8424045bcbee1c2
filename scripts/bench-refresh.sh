#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# bench-refresh.sh: faultline's own CPU at a 1 s refresh with --alloc, against the size of its
# live table and against its number of rows, side by side with an older build (a benchmark,
# not a test: it prints figures next to their targets and exits 0 unless the script itself
# failed).
#
#   scripts/bench-refresh.sh [--quick] [--rounds N] [--build DIR] [--only live|rows]
#
#   1. live: build/workloads/allocbench live 600000 16 1000: 600,000 small blocks kept alive,
#      from 16 stacks, then 1,000 of them freed and allocated again per second. faultline
#      --alloc -i 1 -p PID attaches before the workload's go signal; once the heap is built and
#      a refresh or so went by, faultline's CPU (utime + stime of all its threads, from
#      /proc/PID/task/*/sched) over WINDOW seconds as % of one core; then SIGINT and the time
#      to its exit (the final report reads every live block). Configurations, the order
#      rotating each round: faultline (the live table to a file), faultline -q --json-stream
#      FILE, and with BASELINE_FL (an older faultline binary) that one with the table.
#      Figures: median CPU per configuration, the live blocks the final report counted, the
#      exit time. BLOCKS=N in the environment changes the 600,000.
#   2. rows: the same with 60,000 blocks from 4,096 stacks (about 9,000 counts rows with the
#      workload's own page faults): what a refresh costs per row. faultline and BASELINE_FL.
#
# The figure is faultline's own CPU time, not the wall clock's: on a busy machine it is still
# faultline's work, though caches shared with the load make it noisier. A window should hold a
# few of faultline's walks of the live table, which it paces at ~1% of a CPU (at 600,000
# blocks here, one every ~20 s): a short window can miss them or catch two. Run as root, after
# `make all workloads`. Default run: about 5 minutes on a 2-CPU machine; --quick: about 2.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"	# options, exit trap, helpers, summary rows

SECTIONS=(live rows)	# --only's choices, in the order they run
CONFIGS=(faultline fl-stream)
[[ -n ${BASELINE_FL:-} ]] && CONFIGS+=(fl-old)
declare -A LABEL=(
	[faultline]="faultline --alloc -i 1 -p PID"
	[fl-stream]="faultline --alloc -i 1 -q --json-stream F"
	[fl-old]="BASELINE_FL --alloc -i 1 -p PID"
)
declare -A SHORT=(	# the same, for the summary's column
	[faultline]="faultline"
	[fl-stream]="faultline -q --json-stream"
	[fl-old]="the baseline build"
)

set_sizes()
{
	if ((QUICK)); then
		WINDOW=15 ROUNDS=${COUNT:-1}
	else
		WINDOW=30 ROUNDS=${COUNT:-2}
	fi
	BLOCKS=${BLOCKS:-600000}
	STACKS=16 CHURN=1000
	ROWS_BLOCKS=60000 ROWS_STACKS=4096
	FL=$OUT/faultline
	WL_BIN=$OUT/workloads/allocbench
}

# ---------------------------------------------------------------- one run

# One run of configuration @1 on a live heap of @2 blocks from @3 stacks: sets RUN_CPU (% of a
# core over the window), RUN_BLOCKS (live blocks in faultline's final report), RUN_HWM (KiB)
# and EXIT_S.
refresh_run()
{
	local c=$1 bin=$FL opts=(-i 1) log=$TMP/fl.log out=$TMP/fl.out fpid c0 c1 t0 t1

	[[ $c == fl-old ]] && bin=$BASELINE_FL
	[[ $c == fl-stream ]] && opts+=(-q --json-stream "$TMP/stream.json")
	wl_start live "$2" "$3" "$CHURN"
	rm -f "$log" "$out"
	"$bin" --alloc "${opts[@]}" -p "$WL_PID" >"$out" 2> >(stamp >"$log") &
	fpid=$!
	BG_PIDS+=("$fpid")
	wait_line "$log" 'faultline: tracing' 30 >/dev/null || die "faultline did not start"
	kill -USR1 "$WL_PID"
	wait_line "$WL_OUT" '^live ' 300 >/dev/null || die "allocbench did not build its heap"
	sleep 1.5	# a refresh or so that reads the whole heap
	c0=$(cpu_of "$fpid") t0=$(now)
	sleep "$WINDOW"
	c1=$(cpu_of "$fpid") t1=$(now)
	RUN_HWM=$(hwm_kib "$fpid")
	stop_timed "$fpid" "$log" || die "faultline did not exit"
	wl_stop USR2
	RUN_CPU=$(calc %.3f "($c1 - $c0) / ($t1 - $t0) * 100")
	# the final report's retention line: "live heap +4.6 MiB (600000 blocks)"
	RUN_BLOCKS=$(sed -n 's/.*retention: live heap [^(]*(\([0-9]*\) blocks).*/\1/p' "$out" |
		tail -1)
	RUN_BLOCKS=${RUN_BLOCKS:-?}
}

# Rounds of the configurations @3.. on heaps of @1 blocks from @2 stacks; figures keyed
# cpu_CONFIG_@1 and exit_CONFIG_@1.
refresh_rounds()
{
	local n=$1 st=$2 r i c cfgs
	declare -A CPUS=() EXITS=()

	shift 2
	cfgs=("$@")
	for ((r = 0; r < ROUNDS; r++)); do
		for ((i = 0; i < ${#cfgs[@]}; i++)); do
			c=${cfgs[(i + r) % ${#cfgs[@]}]}
			refresh_run "$c" "$n" "$st"
			CPUS[$c]+="$RUN_CPU " EXITS[$c]+="${EXIT_S:+$EXIT_S }"
			printf '  round %d %-44s CPU %6.2f%% of a core; final report: %s live' \
				$((r + 1)) "${LABEL[$c]}" "$RUN_CPU" "$RUN_BLOCKS"
			printf ' blocks, exit %.3f s; VmHWM %.1f MiB\n' "${EXIT_S:-nan}" \
				"$(calc %.1f "$RUN_HWM / 1024")"
		done
	done
	for c in "${cfgs[@]}"; do
		# shellcheck disable=SC2086 # word lists
		FIG[cpu_${c}_$n]=$(median ${CPUS[$c]})
		# shellcheck disable=SC2086
		FIG[exit_${c}_$n]=$(median ${EXITS[$c]})
		# shellcheck disable=SC2086
		printf '  %-44s median CPU %.2f%% of a core (rounds %s)\n' "${LABEL[$c]}" \
			"${FIG[cpu_${c}_$n]}" "$(minmax ${CPUS[$c]})"
	done
}

# ---------------------------------------------------------------- sections

bench_live()
{
	echo "== 1. live: allocbench live $BLOCKS $STACKS $CHURN, faultline's CPU over" \
		"$WINDOW s at a 1 s refresh, $ROUNDS rounds${BASELINE_FL:+, fl-old is $BASELINE_FL}"
	refresh_rounds "$BLOCKS" "$STACKS" "${CONFIGS[@]}"
}

bench_rows()
{
	local cfgs=(faultline)

	[[ -n ${BASELINE_FL:-} ]] && cfgs+=(fl-old)
	echo "== 2. rows: allocbench live $ROWS_BLOCKS $ROWS_STACKS $CHURN, faultline's CPU" \
		"over $WINDOW s at a 1 s refresh, $ROUNDS rounds"
	refresh_rounds "$ROWS_BLOCKS" "$ROWS_STACKS" "${cfgs[@]}"
}

# ---------------------------------------------------------------- summary

summary()
{
	local c

	summary_head 52 "$(uptime | sed 's/.*load average: /load /')"
	for c in "${CONFIGS[@]}"; do
		if [[ $c == fl-old ]]; then
			row "CPU, $BLOCKS live blocks, ${SHORT[$c]}" "cpu_${c}_$BLOCKS" %.2f "%" - ""
		else
			row "CPU, $BLOCKS live blocks, ${SHORT[$c]}" "cpu_${c}_$BLOCKS" %.2f "%" \
				"<=" 2
		fi
	done
	row "CPU, $ROWS_STACKS stacks, ${SHORT[faultline]}" "cpu_faultline_$ROWS_BLOCKS" %.2f "%" \
		- ""
	row "CPU, $ROWS_STACKS stacks, ${SHORT[fl-old]}" "cpu_fl-old_$ROWS_BLOCKS" %.2f "%" - ""
	for c in "${CONFIGS[@]}"; do
		row "exit after SIGINT, $BLOCKS live, ${SHORT[$c]}" "exit_${c}_$BLOCKS" %.3f " s" \
			- ""
	done
}

main()
{
	bench_start --rounds "BPF and uprobes need it" "$@"
	run_sections
	summary
}

main "$@"
