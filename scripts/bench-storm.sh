#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# bench-storm.sh: faultline -f at its default options under exec storms, a shell starting short
# programs one after the other, measured against the goals of the exec-storm issue (a benchmark,
# not a test: it prints figures next to their targets and exits 0 unless the script itself
# failed). Goals, for each storm: 0 stack-map drops, >= 95% of resident growth on whole
# stacks, the report within 3 s of the storm's end, faultline's RSS <= 64 MiB.
#
#   scripts/bench-storm.sh [--quick] [--rounds N] [--build DIR]
#                          [--only storm300|storm3000|storm12000]
#
#   1. storm300: 300 programs 5 ms apart (about 1 s alone on a 2-CPU machine).
#   2. storm3000: 3,000 programs 5 ms apart (about 11 s alone: the issue's "3,000 in 15 s").
#   3. storm12000, only with --only: 12,000 programs (about 45 s alone), past --keep-exited's
#      4,096 exited processes listed: faultline's memory must stay that of storm3000 (a host
#      followed for a week holds no more than for a day), not grow with the processes.
#   The storm, launched by faultline -f -q --json J -- sh -c '...': a loop of N/2 rounds, each
#   one short program (head -c1, cat, /bin/true, uname in turn, on /etc/hostname) and then
#   sleep 0.005, every other program being the sleep that spaces them out; date +%s.%N before
#   the loop and as its last action, into files (dash has no $EPOCHREALTIME): N + 2 programs,
#   N + 3 processes with the shell. The shell is faultline's ptraced command, which stops at
#   each SIGCHLD until faultline's loop lets it go on: a busy faultline slows the storm. Per run: the stacks map's drops (JSON drops.stacks_map_full) and
#   every other drop that is not 0; the share of resident growth on whole stacks (JSON
#   stack_walks.growth_bytes: whole over the sum of all its members), and whole +
#   no_unwind_info beside it (a stripped distribution binary's _start has no unwind row, so its
#   walks that reach _start end as no_unwind_info: the "stripped _start" figure); the number
#   of distinct stacks (JSON stacks) and of processes (JSON processes); the storm's time, and
#   over its time alone (each round runs it once without faultline first); from
#   the storm's last timestamp to faultline's end (its stderr closed); faultline's peak RSS
#   (/usr/bin/time's %M, which also covers the children faultline reaped, whose peak is at most
#   what faultline had when it forked; without /usr/bin/time, the last VmHWM polled every
#   0.1 s) and its CPU (user + sys, from /usr/bin/time). KEEP_JSON=DIR keeps each run's JSON
#   in DIR (SECTION-CONFIG-rROUND.json).
#
# FL_BASE=PATH (BASELINE_FL, as the other benchmarks call it, is taken too) runs that faultline
# binary, an older build, the same way in the same run, the two alternating in each round (the
# order flipping every round), and the summary shows both side by side with the ratio: a
# change measured beside the build before it. Summary figures: drops, the worst round;
# the others, the median over rounds. Default: 3 rounds (--rounds N; --quick: 1). Another
# benchmark may be running on the machine: the load average is printed with each section and
# in the summary; the times stretch with it (the storm's most, the figures of stacks least).
# Run as root, after `make`. Default run with FL_BASE: about 4 minutes on a 2-CPU machine with
# a little load (storm3000 most of it), more when it is busy; without FL_BASE about 2.5.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"	# options, exit trap, helpers, summary rows

SECTIONS=(storm300 storm3000 storm12000)	# --only's choices, in the order they run
FL_BASE=${FL_BASE:-${BASELINE_FL:-}}
CONFIGS=(fl)
[[ -n $FL_BASE ]] && CONFIGS+=(base)
declare -A BIN=()	# configuration -> its faultline binary (set_sizes)
declare -A LABEL=([fl]="this build" [base]="FL_BASE")
declare -A RUNS=()	# SECTION_CONFIG_FIGURE -> the rounds' values, space-separated
INTERVAL=0.005	# seconds of sleep between two programs
TIME_BIN=/usr/bin/time

# The storm: $1 rounds of a short program and sleep $2, timestamps into $3 (start) and $4 (end).
# shellcheck disable=SC2016 # expanded by sh, not here
STORM_SH='date +%s.%N >"$3"
i=0
while [ $i -lt "$1" ]; do
	case $((i % 4)) in
	0) head -c1 /etc/hostname >/dev/null ;;
	1) cat /etc/hostname >/dev/null ;;
	2) /bin/true ;;
	3) uname >/dev/null ;;
	esac
	sleep "$2"
	i=$((i + 1))
done
date +%s.%N >"$4"'

set_sizes()
{
	if ((QUICK)); then
		ROUNDS=${COUNT:-1}
	else
		ROUNDS=${COUNT:-3}
	fi
	FL=$OUT/faultline
	WL_BIN=/bin/sh	# the workload is a shell and what it starts
	BIN=([fl]=$FL)
	if [[ -n $FL_BASE ]]; then
		[[ -x $FL_BASE ]] || die "FL_BASE=$FL_BASE is not an executable"
		BIN[base]=$FL_BASE
	fi
}

load() { uptime | sed 's/.*load average: /load average /'; }

# ---------------------------------------------------------------- one run

# The storm of @2 programs under configuration @1: sets the run's figures R_* and R_LINE, the
# line that shows them. faultline has 120 s + 0.1 s per program to end, busy machine included.
storm_run()
{
	local c=$1 n=$2 bin=${BIN[$1]} log=$TMP/fl.log tfile=$TMP/fl.time json=$TMP/storm.json
	local t0f=$TMP/storm.t0 t1f=$TMP/storm.t1 pre=() tpid fpid hwm="" h t end i rss u s

	rm -f "$log" "$tfile" "$json" "$t0f" "$t1f"
	[[ -x $TIME_BIN ]] && pre=("$TIME_BIN" -f '%M %U %S' -o "$tfile")
	"${pre[@]}" "$bin" -f -q --json "$json" -- sh -c "$STORM_SH" storm $((n / 2)) "$INTERVAL" \
		"$t0f" "$t1f" >"$TMP/fl.out" 2> >(stamp >"$log") &
	tpid=$!
	BG_PIDS+=("$tpid")
	wait_line "$log" 'faultline: tracing' 30 >/dev/null ||
		die "$bin did not start: $(tail -n 3 "$log" 2>/dev/null)"
	fpid=$tpid
	if ((${#pre[@]})); then
		# time's child (time ignores SIGINT); a comm is cut to 15 characters
		fpid=$(child_named "$tpid" "$(basename "$bin" | cut -c1-15)") ||
			die "no faultline process under $TIME_BIN ($bin)"
		BG_PIDS+=("$fpid")
	fi
	# its peak RSS so far, every 0.1 s until it ends by itself, the storm over
	now_us t
	end=$((t + (120 + n / 10) * 1000000))
	while alive "$fpid"; do
		h=$(hwm_kib "$fpid" 2>/dev/null) && [[ -n $h ]] && hwm=$h
		for ((i = 0; i < 10; i++)); do nap; done
		now_us t
		((t < end)) || die "$bin did not end $((120 + n / 10)) s after it started the storm"
	done
	wait_line "$log" '\[eof\]' 30 >/dev/null || die "$bin's stderr still open after its end"
	reap "$tpid" 10
	forget "$fpid"
	[[ -s $t1f ]] || die "the storm did not end under $bin: $(tail -n 3 "$log")"
	[[ -s $json ]] || die "$bin wrote no JSON: $(tail -n 3 "$log")"
	R_STORM=$(calc %.3f "$(<"$t1f") - $(<"$t0f")")
	R_EXIT=$(calc %.3f "$(stamp_of "$log" '\[eof\]') - $(<"$t1f")")
	R_HWM=$(calc %.1f "${hwm:-0} / 1024")
	R_RSS=$R_HWM R_CPU=""
	if [[ -s $tfile ]]; then
		# the last line: time writes "Command exited with non-zero status N" before it
		read -r rss u s < <(tail -n 1 "$tfile")
		R_RSS=$(calc %.1f "$rss / 1024") R_CPU=$(calc %.2f "$u + $s")
	fi
	# shellcheck disable=SC2034 # R_SMF and R_OTHER: read through ${!name} (storm_rounds)
	read -r R_SMF R_OTHER R_WHOLE R_WHOLE_NU R_STACKS R_PROCS R_DROPS R_CUTS < <(jq -r '
		(.stack_walks.growth_bytes // {}) as $g | ([$g[]] | add // 0) as $t
		| [(.drops.stacks_map_full // 0),
		   ([.drops | to_entries[] | select(.key != "stacks_map_full") | .value] | add // 0),
		   (if $t > 0 then 100 * ($g.whole // 0) / $t else 0 end),
		   (if $t > 0 then 100 * (($g.whole // 0) + ($g.no_unwind_info // 0)) / $t else 0 end),
		   (.stacks | length), (.processes | length),
		   ([.drops | to_entries[] | select(.value > 0) | "\(.key)=\(.value)"]
		    | if length == 0 then "none" else join(",") end),
		   ([$g | to_entries[] | select(.key != "whole" and .value > 0)
		     | "\(.key)=\(100 * .value / $t * 10 | round / 10)%"]
		    | if length == 0 then "none" else join(",") end)]
		| map(tostring) | join(" ")' "$json") || die "$bin's JSON does not read: $json"
	R_WHOLE=$(calc %.2f "$R_WHOLE") R_WHOLE_NU=$(calc %.2f "$R_WHOLE_NU")
	R_LINE=$(printf '%-10s storm %6.2f s, %4d processes; drops: %s; whole %5.1f%% (+ stripped' \
		"${LABEL[$c]}" "$R_STORM" "$R_PROCS" "$R_DROPS" "$R_WHOLE")
	R_LINE+=$(printf ' _start %5.1f%%); %4d stacks; end %.3f s after the storm; RSS %5.1f MiB' \
		"$R_WHOLE_NU" "$R_STACKS" "$R_EXIT" "$R_RSS")
	R_LINE+=$(printf ' (VmHWM polled %.1f); CPU %s s; growth cut: %s' "$R_HWM" "${R_CPU:-?}" \
		"${R_CUTS//,/, }")
}

# The same storm of @1 programs without faultline: sets R_ALONE, its time.
storm_alone()
{
	local t0f=$TMP/storm.t0 t1f=$TMP/storm.t1

	rm -f "$t0f" "$t1f"
	sh -c "$STORM_SH" storm $(($1 / 2)) "$INTERVAL" "$t0f" "$t1f" >/dev/null 2>&1 ||
		die "the storm failed on its own"
	R_ALONE=$(calc %.3f "$(<"$t1f") - $(<"$t0f")")
}

# ---------------------------------------------------------------- rounds

# ROUNDS rounds of the storm of @2 programs alone and then under every configuration, their
# order flipping every round: each run's figures into RUNS (SLOW: the storm's time over the
# same round's alone), then per configuration the worst drops and the medians of the rest
# into FIG[@1_CONFIG_FIGURE]; KEEP_JSON=DIR keeps each run's JSON there.
storm_rounds()
{
	local sec=$1 n=$2 r i c f order list

	for ((r = 0; r < ROUNDS; r++)); do
		storm_alone "$n"
		RUNS[${sec}_none_STORM]+="$R_ALONE "
		printf '  round %d %-10s storm %6.2f s\n' $((r + 1)) alone "$R_ALONE"
		order=("${CONFIGS[@]}")
		((r % 2)) && order=("${CONFIGS[@]:1}" "${CONFIGS[0]}")
		for c in "${order[@]}"; do
			storm_run "$c" "$n"
			[[ -n ${KEEP_JSON:-} ]] && cp "$TMP/storm.json" "$KEEP_JSON/$sec-$c-r$((r + 1)).json"
			# shellcheck disable=SC2034 # read through ${!name} below
			R_SLOW=$(calc %.3f "$R_STORM / $R_ALONE")
			for f in SMF OTHER WHOLE WHOLE_NU STACKS PROCS STORM SLOW EXIT RSS CPU; do
				i=R_$f
				[[ -n ${!i} ]] && RUNS[${sec}_${c}_$f]+="${!i} "
			done
			printf '  round %d %s\n' $((r + 1)) "$R_LINE"
		done
	done
	# shellcheck disable=SC2086 # word lists
	FIG[${sec}_none_STORM]=$(median ${RUNS[${sec}_none_STORM]})
	# shellcheck disable=SC2086
	printf '  %-10s median: storm %.2f s (rounds %s)\n' alone "${FIG[${sec}_none_STORM]}" \
		"$(minmax ${RUNS[${sec}_none_STORM]})"
	for c in "${CONFIGS[@]}"; do
		for f in SMF OTHER; do
			read -ra list <<<"${RUNS[${sec}_${c}_$f]}"
			FIG[${sec}_${c}_$f]=$(printf '%s\n' "${list[@]}" | sort -g | tail -n 1)
		done
		for f in WHOLE WHOLE_NU STACKS PROCS STORM SLOW EXIT RSS CPU; do
			[[ -n ${RUNS[${sec}_${c}_$f]:-} ]] || continue
			read -ra list <<<"${RUNS[${sec}_${c}_$f]}"
			FIG[${sec}_${c}_$f]=$(median "${list[@]}")
		done
		# shellcheck disable=SC2086 # word lists
		printf '  %-10s median: whole %.1f%% (rounds %s), end %.3f s after the storm (%s),' \
			"${LABEL[$c]}" "${FIG[${sec}_${c}_WHOLE]}" "$(minmax ${RUNS[${sec}_${c}_WHOLE]})" \
			"${FIG[${sec}_${c}_EXIT]}" "$(minmax ${RUNS[${sec}_${c}_EXIT]})"
		# shellcheck disable=SC2086
		printf ' RSS %.1f MiB (%s); worst stacks-map drops %s\n' "${FIG[${sec}_${c}_RSS]}" \
			"$(minmax ${RUNS[${sec}_${c}_RSS]})" "${FIG[${sec}_${c}_SMF]}"
	done
}

# ---------------------------------------------------------------- sections

# A storm of @2 programs: section @1.
storm_section()
{
	local what="$ROUNDS rounds"

	[[ -n $FL_BASE ]] && what+=" of this build and FL_BASE, alternating"
	echo "== $1: faultline -f -q --json J -- sh -c '...': $2 programs ${INTERVAL} s apart" \
		"(head, cat, true, uname, each then sleep), $what; $(load): the machine may be busy" \
		"with another benchmark"
	storm_rounds "$1" "$2"
}

bench_storm300() { storm_section storm300 300; }
bench_storm3000() { storm_section storm3000 3000; }
bench_storm12000() { storm_section storm12000 12000; }

# ---------------------------------------------------------------- summary

summary()
{
	local sec

	summary_title "$(load); the machine may be busy: medians of $ROUNDS rounds"
	[[ -n $FL_BASE ]] && echo "  the base: $FL_BASE ($("$FL_BASE" --version 2>&1 | head -1))"
	row_vs_head 50
	for sec in "${SECTIONS[@]}"; do
		[[ -z $ONLY || $ONLY == "$sec" ]] || continue
		row_vs "$sec: stacks-map drops (worst round)" "${sec}_fl_SMF" "${sec}_base_SMF" %d "" \
			"<=" 0
		row_vs "... other drops, all kinds (worst round)" "${sec}_fl_OTHER" "${sec}_base_OTHER" \
			%d "" - ""
		row_vs "... growth on whole stacks" "${sec}_fl_WHOLE" "${sec}_base_WHOLE" %.1f "%" \
			">=" 95
		row_vs "... whole + no_unwind_info (stripped _start)" "${sec}_fl_WHOLE_NU" \
			"${sec}_base_WHOLE_NU" %.1f "%" - ""
		row_vs "... distinct stacks" "${sec}_fl_STACKS" "${sec}_base_STACKS" %.0f "" - ""
		row_vs "... processes seen" "${sec}_fl_PROCS" "${sec}_base_PROCS" %.0f "" - ""
		row_vs "... the storm's time under faultline" "${sec}_fl_STORM" "${sec}_base_STORM" \
			%.2f " s" - ""
		row_vs "... over alone, same round (alone: ${FIG[${sec}_none_STORM]:-?} s)" \
			"${sec}_fl_SLOW" "${sec}_base_SLOW" %.2f x - ""
		row_vs "... storm's end to faultline's end" "${sec}_fl_EXIT" "${sec}_base_EXIT" %.3f \
			" s" "<=" 3
		row_vs "... faultline's peak RSS" "${sec}_fl_RSS" "${sec}_base_RSS" %.1f " MiB" "<=" 64
		row_vs "... faultline's CPU (user + sys)" "${sec}_fl_CPU" "${sec}_base_CPU" %.2f " s" \
			- ""
	done
}

main()
{
	bench_start --rounds "BPF needs it" "$@"
	# the long one when asked for alone
	[[ -n $ONLY ]] || SECTIONS=(storm300 storm3000)
	have jq || die "jq missing (apt-get install jq)"
	[[ -x $TIME_BIN ]] || log "$TIME_BIN missing: peak RSS from VmHWM polled every 0.1 s"
	run_sections
	summary
}

main "$@"
