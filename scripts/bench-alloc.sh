#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# bench-alloc.sh: the cost of tracing malloc/free, faultline --alloc beside the usual tools (a
# benchmark, not a test: it prints figures next to their targets and exits 0 unless the script
# itself failed).
#
#   scripts/bench-alloc.sh [--install] [--quick] [--rounds N] [--build DIR]
#                          [--only throughput|bare|startup]
#
#   1. throughput: build/workloads/allocbench, 2 threads of malloc+free pairs for a fixed time,
#      once per configuration in each round, the order rotating every round. Configurations: no
#      profiler; faultline --alloc -q -p PID; the same with --sample-bytes 524288;
#      faultline --alloc=churn -q -p PID (the allocating calls' entries alone: one trap per
#      malloc, none per free, no live table); bcc's
#      memleak-bpfcc -p PID; libbpf-tools' memleak -p PID; bpftrace -p PID with a uprobe on
#      malloc storing ustack, a uretprobe on malloc and a uprobe on free (libc's). Figures,
#      median over rounds: throughput over the same round's run without a profiler; added
#      microseconds per pair = THREADS x (1/rate_with - 1/rate_without) x 1e6 (rates are the
#      whole process's pairs/s; each thread has a CPU of its own, so THREADS / rate is the
#      thread time one pair takes); the profiler's CPU (utime + stime from /proc/PID/stat over
#      the timed window) and peak RSS (VmHWM just before SIGINT). faultline --alloc
#      --unwind-mem 0 walks by frame pointers only; with BASELINE_FL (an older faultline
#      binary), that one too, exact and sampled: a change beside the build before it.
#   2. bare: nanoseconds one uprobe adds to a call (allocbench probe mode, bpftrace -p PID with
#      an empty action): on probe_target_push (first instruction push %rbp, emulated), the same
#      with a uretprobe, and on probe_target_mov (a mov: single-stepped out of line).
#   3. startup: command start to "probes live" and SIGINT to exit, on an idle allocbench:
#      faultline --alloc (live: its "faultline: tracing" line), and memleak when installed
#      (live: its banner printed and its main thread asleep in its report loop).
#
# --install apt-gets bpftrace and bpfcc-tools when missing, and kernel headers for bcc when the
# running kernel has none (linux-headers-amd64 as a stand-in when no package matches it).
# Without it a configuration whose tool is missing is skipped, and the output says so; so is
# one whose tool fails to start (a faultline without --alloc, say). Run as root, after
# `make all workloads`. Default run: about 3.5 minutes on a 2-CPU machine (an estimate since
# fl-churn came); --quick: about 1.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"	# options, exit trap, helpers, start-up, summary rows

SECTIONS=(throughput bare startup)	# --only's choices, in the order they run
BCC_KSRC=""
MEMLEAK_LIBBPF=""
BCC_PYTHON=""
declare -A SKIP=()	# configuration -> why it is skipped

# Throughput configurations, in the order of the first round.
CONFIGS=(none faultline fl-fp fl-sampled fl-churn memleak memleak-libbpf bpftrace)
[[ -n ${BASELINE_FL:-} ]] && CONFIGS+=(fl-old fl-old-sampled)
declare -A LABEL=(
	[none]="no profiler"
	[faultline]="faultline --alloc"
	[fl-sampled]="faultline --alloc --sample-bytes 524288"
	[fl-fp]="faultline --alloc --unwind-mem 0"
	[fl-churn]="faultline --alloc=churn"
	[fl-old]="BASELINE_FL --alloc"
	[fl-old-sampled]="BASELINE_FL --alloc --sample-bytes 524288"
	[memleak]="memleak-bpfcc (bcc)"
	[memleak-libbpf]="memleak (libbpf-tools)"
	[bpftrace]="bpftrace malloc+ustack/ret/free"
	[bare-push]="uprobe (push %rbp: emulated)"
	[bare-ret]="uprobe + uretprobe (push)"
	[bare-mov]="uprobe (mov: single-stepped)"
)
declare -A SHORT=(	# the same, for the summary's column
	[faultline]="faultline --alloc"
	[fl-sampled]="faultline --alloc, sampled"
	[fl-fp]="faultline --alloc, fp only"
	[fl-churn]="faultline --alloc=churn"
	[fl-old]="the baseline build"
	[fl-old-sampled]="the baseline build, sampled"
	[memleak]="memleak-bpfcc"
	[memleak-libbpf]="libbpf-tools memleak"
	[bpftrace]="bpftrace"
)

# Sizes: a round of the throughput part takes about RUN_SECS per configuration run, plus
# memleak's start and exit.
set_sizes()
{
	if ((QUICK)); then
		RUN_SECS=1 CALLS=200000 STARTS=3
		ROUNDS=${COUNT:-3}
	else
		RUN_SECS=2 CALLS=500000 STARTS=5
		ROUNDS=${COUNT:-7}
	fi
	THREADS=2
	FL=$OUT/faultline
	WL_BIN=$OUT/workloads/allocbench
	WL_BIN=$(realpath -e "$WL_BIN" 2>/dev/null || echo "$WL_BIN")	# bpftrace wants a full path
	HZ=$(getconf CLK_TCK)
}

# ---------------------------------------------------------------- small helpers

maxof() { printf '%s\n' "$@" | sort -g | tail -1; }

# Value after the word @1 in line @2 ("pairs 12 rate 3.4": field rate -> 3.4).
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' \
	<<<"$2"; }

# ---------------------------------------------------------------- tools

install_tools()
{
	local missing=()

	have bpftrace || missing+=(bpftrace)
	have memleak-bpfcc || missing+=(bpfcc-tools)
	install_missing figures "${missing[@]}"
	have memleak-bpfcc && bcc_headers
	return 0
}

# bcc compiles memleak's BPF program at start-up, against the running kernel's headers. A
# kernel with neither /lib/modules/RELEASE/build nor CONFIG_IKHEADERS (a cloud or VM kernel)
# gets Debian's linux-headers-amd64 as a stand-in, merged from its two halves (-amd64 holds the
# generated headers, -common the rest) into one tree for BCC_KERNEL_SOURCE: memleak's uprobe
# programs read nothing of the kernel's but struct pt_regs, which a different release shares.
bcc_headers()
{
	local rel dir common

	rel=$(uname -r)
	[[ -d /lib/modules/$rel/build/include || -e /sys/kernel/kheaders.tar.xz ]] && return 0
	if ((INSTALL)) && ! compgen -G '/usr/src/linux-headers-*-amd64/Makefile' >/dev/null; then
		log "installing kernel headers for bcc"
		apt-get update -qq >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "linux-headers-$rel" \
			>/dev/null 2>&1 && return 0
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-headers-amd64 >/dev/null
	fi
	for dir in /usr/src/linux-headers-*-amd64; do
		[[ -f $dir/Makefile ]] || continue
		common=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$dir/Makefile")
		[[ -d $common/include/linux ]] || continue
		BCC_KSRC=$TMP/kheaders
		mkdir -p "$BCC_KSRC"
		cp -rs "$common/." "$BCC_KSRC/"
		cp -rs --remove-destination "$dir/." "$BCC_KSRC/"
		log "bcc: no headers for kernel $rel; ${dir##*/} stands in for them"
		return 0
	done
	SKIP[memleak]="no kernel headers for bcc to compile with (--install installs a stand-in)"
}

# Runs the bcc tool named by its first argument, with the rest as its arguments. Debian 12's
# bcc (0.26.0+ds-1) has Python call bpf_attach_uprobe() with 6 arguments where libbcc takes 7:
# the last, ref_ctr_offset, is stack garbage (6 here, per dmesg). The kernel then refuses the
# uprobe beside any other uprobe on the same function ("ref_ctr_offset mismatch", EINVAL:
# memleak fails to start while anything else probes malloc or free, even a leaked uprobe), and
# when it accepts it, it updates a USDT semaphore at that offset of the target's libc. The shim
# passes 0, as a fixed bcc does; a bcc whose binding already has 7 arguments is left alone.
BCC_SHIM='import ctypes, runpy, sys
from bcc import libbcc
f = libbcc.lib.bpf_attach_uprobe
if len(f.argtypes) == 6:
    f.argtypes = list(f.argtypes) + [ctypes.c_uint32]
    libbcc.lib.bpf_attach_uprobe = lambda *a: f(*a, 0)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")'

# Marks each throughput configuration whose tool is missing as skipped, with the reason.
find_tools()
{
	local why

	if ! why=$("$FL" --alloc --help 2>&1 >/dev/null); then
		SKIP[faultline]="this faultline has no --alloc ($(head -1 <<<"$why"))"
	fi
	if ! why=$("$FL" --alloc --sample-bytes 524288 --help 2>&1 >/dev/null); then
		SKIP[fl-sampled]="this faultline has no --sample-bytes ($(head -1 <<<"$why"))"
	fi
	if ! why=$("$FL" --alloc=churn --help 2>&1 >/dev/null); then
		SKIP[fl-churn]="this faultline has no --alloc=churn ($(head -1 <<<"$why"))"
	fi
	if have memleak-bpfcc; then
		# Its own interpreter, from its #! line: the python3 first on PATH may have no bcc.
		read -r BCC_PYTHON _ <<<"$(sed -n '1s/^#! *//p' "$(command -v memleak-bpfcc)")"
		BCC_PYTHON=${BCC_PYTHON:-python3}
	else
		SKIP[memleak]="memleak-bpfcc not installed (bpfcc-tools; --install)"
	fi
	# libbpf-tools' memleak is a binary named memleak; Debian 12's libbpf-tools has none.
	MEMLEAK_LIBBPF=$(command -v memleak || true)
	if [[ -z $MEMLEAK_LIBBPF || $(head -c 4 "$MEMLEAK_LIBBPF") != $'\x7fELF' ]]; then
		SKIP[memleak-libbpf]="no libbpf-tools memleak binary on PATH"
		MEMLEAK_LIBBPF=""
	fi
	have bpftrace || SKIP[bpftrace]="bpftrace not installed (--install)"
	return 0
}

# ---------------------------------------------------------------- workload and profilers

# bpftrace's memleak: the size and user stack of each malloc by thread, moved to the returned
# address by the uretprobe, dropped by free. END clears the maps: nothing to print at exit.
bt_malloc_prog()
{
	local libc

	libc=$(awk '$6 ~ /\/libc[.-][^\/]*so/ { print $6; exit }' "/proc/$WL_PID/maps")
	[[ -n $libc ]] || die "no libc in the maps of allocbench"
	cat <<-EOF
	uprobe:$libc:malloc /pid == $WL_PID/ { @size[tid] = arg0; @stack[tid] = ustack; }
	uretprobe:$libc:malloc /pid == $WL_PID/ {
		@live[retval] = @size[tid]; @where[retval] = @stack[tid];
		delete(@size[tid]); delete(@stack[tid]);
	}
	uprobe:$libc:free /pid == $WL_PID/ { delete(@live[arg0]); delete(@where[arg0]); }
	END { clear(@size); clear(@stack); clear(@live); clear(@where); }
	EOF
}

# The bare probes: empty actions, so what is measured is the trap and the BPF entry.
bt_bare_prog()
{
	case $1 in
	push) echo "uprobe:$WL_BIN:probe_target_push {}" ;;
	ret) echo "uprobe:$WL_BIN:probe_target_push {} uretprobe:$WL_BIN:probe_target_push {}" ;;
	mov) echo "uprobe:$WL_BIN:probe_target_mov {}" ;;
	esac
}

# Syscalls (x86_64) a tool's main thread sleeps in once its probes are live and it waits for
# events or for its next report: poll select pause nanosleep rt_sigsuspend clock_nanosleep
# epoll_wait pselect6 ppoll epoll_pwait epoll_pwait2.
IDLE_SYSCALLS=" 7 23 34 35 130 230 232 270 271 281 441 "

# Waits up to @2 seconds for configuration @1's probes to be live: sets LIVE_AT (epoch time).
# faultline says so itself. memleak and bpftrace print their banner before they attach, so for
# them live is the banner and then the main thread asleep in its loop (seen within 10 ms).
wait_live()
{
	local re end t sc

	case $1 in
	faultline | fl-*) re='faultline: tracing' ;;
	memleak) re='Attaching to pid' ;;
	memleak-libbpf) re='Tracing outstanding' ;;
	*) re='Attaching [0-9]+ probe' ;;
	esac
	now_us t
	end=$((t + $2 * 1000000))
	while alive "$PROF_PID"; do
		if wait_line "$PROF_LOG" "$re" 0 >/dev/null; then
			if [[ $1 == faultline || $1 == fl-sampled || $1 == fl-churn ]]; then
				LIVE_AT=$(stamp_of "$PROF_LOG" "$re")
				return 0
			fi
			read -r sc _ 2>/dev/null <"/proc/$PROF_PID/syscall" || sc=""
			[[ $IDLE_SYSCALLS == *" $sc "* ]] && { LIVE_AT=$(now); return 0; }
		fi
		now_us t
		((t > end)) && return 1
		nap
	done
	return 1
}

# Starts configuration @1 on WL_PID and returns once its probes are live: sets PROF_PID (empty
# for none), PROF_LOG (its stdout and stderr, stamped), START_AT, LIVE_AT. A tool that does not
# start gets a second try (a start right after another tool's exit has failed once in a while
# here, and was not caught in the act); after two, returns 1 with PROF_WHY set to its last
# message.
prof_start()
{
	PROF_PID="" PROF_LOG=$TMP/prof.$1.log PROF_WHY=""
	[[ $1 == none ]] && return 0
	prof_try "$1" && return 0
	log "  (${LABEL[$1]} did not start: $PROF_WHY; one more try)"
	sleep 1
	prof_try "$1"
}

prof_try()
{
	local cmd=()

	rm -f "$PROF_LOG"
	case $1 in
	faultline) cmd=("$FL" --alloc -q -p "$WL_PID") ;;
	fl-sampled) cmd=("$FL" --alloc --sample-bytes 524288 -q -p "$WL_PID") ;;
	fl-fp) cmd=("$FL" --alloc --unwind-mem 0 -q -p "$WL_PID") ;;
	fl-churn) cmd=("$FL" --alloc=churn -q -p "$WL_PID") ;;
	fl-old) cmd=("$BASELINE_FL" --alloc -q -p "$WL_PID") ;;
	fl-old-sampled) cmd=("$BASELINE_FL" --alloc --sample-bytes 524288 -q -p "$WL_PID") ;;
	memleak)
		# Unbuffered, or its banner waits for the first report; the headers' stand-in.
		cmd=(env PYTHONUNBUFFERED=1 ${BCC_KSRC:+BCC_KERNEL_SOURCE="$BCC_KSRC"}
			"$BCC_PYTHON" -c "$BCC_SHIM" "$(command -v memleak-bpfcc)" -p "$WL_PID")
		;;
	memleak-libbpf) cmd=("$MEMLEAK_LIBBPF" -p "$WL_PID") ;;
	bpftrace) cmd=(bpftrace -p "$WL_PID" -e "$(bt_malloc_prog)") ;;
	bare-*) cmd=(bpftrace -p "$WL_PID" -e "$(bt_bare_prog "${1#bare-}")") ;;
	esac
	# A background command of a script starts with SIGINT ignored, and Python then never
	# installs its KeyboardInterrupt handler: memleak-bpfcc would not stop on SIGINT.
	START_AT=$(now)
	env --default-signal=INT "${cmd[@]}" > >(stamp >"$PROF_LOG") 2>&1 &
	PROF_PID=$!
	BG_PIDS+=("$PROF_PID")
	wait_live "$1" 60 && return 0
	wait_line "$PROF_LOG" '\[eof\]' 2 >/dev/null || true
	# Its last line: the error itself, after a banner or a Python traceback.
	PROF_WHY=$(grep -v -e '\[eof\]$' -e RLIMIT_MEMLOCK -e modprobe "$PROF_LOG" | tail -1 |
		cut -d' ' -f2- | cut -c1-160) || true
	PROF_WHY=${PROF_WHY:-no output}
	prof_stop
	return 1
}

# SIGINT, then waits for the exit: sets EXIT_S (SIGINT to the end of its output).
prof_stop()
{
	EXIT_S=""
	[[ -n $PROF_PID ]] || return 0
	stop_timed "$PROF_PID" "$PROF_LOG" || true
	PROF_PID=""
}

# ---------------------------------------------------------------- 1. throughput

# One timed allocbench run under configuration @1: sets RUN_RATE (pairs/s), RUN_CPU (% of a
# core, empty for none), RUN_HWM (KiB) and EXIT_S (the profiler's exit after the run). Returns
# 1, PROF_WHY set, when the profiler did not start.
alloc_run()
{
	local line c0 c1 t0 t1

	wl_start "$THREADS" "$RUN_SECS"
	if ! prof_start "$1"; then
		wl_stop TERM
		return 1
	fi
	[[ -n $PROF_PID ]] && c0=$(cpu_ticks "$PROF_PID")
	t0=$(now)
	kill -USR1 "$WL_PID"
	sleep "$RUN_SECS"	# the poll below would otherwise run beside the workload all along
	line=$(wait_line "$WL_OUT" '^pairs ' 60) || die "allocbench gave no result under $1"
	t1=$(now)
	RUN_CPU="" RUN_HWM=""
	if [[ -n $PROF_PID ]]; then
		c1=$(cpu_ticks "$PROF_PID")
		RUN_CPU=$(calc %.2f "($c1 - $c0) / $HZ / ($t1 - $t0) * 100")
		RUN_HWM=$(hwm_kib "$PROF_PID")
	fi
	prof_stop
	wl_stop
	RUN_RATE=$(field rate "$line")
}

bench_throughput()
{
	local r i n=${#CONFIGS[@]} c order
	declare -A RATE=() CPU=() HWM=() EXITS=()

	echo "== 1. throughput: allocbench, $THREADS threads of malloc+free pairs for" \
		"$RUN_SECS s, $ROUNDS rounds, the order rotating each round"
	for c in "${CONFIGS[@]}"; do
		[[ -n ${SKIP[$c]:-} ]] && echo "  ${LABEL[$c]}: skipped: ${SKIP[$c]}"
	done
	for ((r = 0; r < ROUNDS; r++)); do
		order=()
		for ((i = 0; i < n; i++)); do
			c=${CONFIGS[(i + r) % n]}
			[[ -z ${SKIP[$c]:-} ]] && order+=("$c")
		done
		for c in "${order[@]}"; do
			if ! alloc_run "$c"; then
				SKIP[$c]="it did not start: $PROF_WHY"
				echo "  ${LABEL[$c]}: skipped from now on: ${SKIP[$c]}"
				continue
			fi
			RATE[$c]+="$RUN_RATE " CPU[$c]+="${RUN_CPU:+$RUN_CPU }"
			HWM[$c]+="${RUN_HWM:+$RUN_HWM }" EXITS[$c]+="${EXIT_S:+$EXIT_S }"
			printf '  round %2d %-40s %14.1f pairs/s%s\n' $((r + 1)) "${LABEL[$c]}" \
				"$RUN_RATE" "${RUN_CPU:+, profiler CPU $RUN_CPU% of a core}"
		done
	done
	throughput_figures
}

# Per configuration, over rounds: ratio and added time against the same round's bare run.
throughput_figures()
{
	local c r base=() with=() ratios=() adds=()

	read -ra base <<<"${RATE[none]}"
	FIG[base_rate]=$(median "${base[@]}")
	printf '  %s: median %.0f pairs/s (rounds %s)\n' "${LABEL[none]}" "${FIG[base_rate]}" \
		"$(minmax "${base[@]}")"
	echo "  added per pair = $THREADS x (1/rate_with - 1/rate_without) x 1e6 us, both rates" \
		"from the same round"
	for c in "${CONFIGS[@]:1}"; do
		[[ -n ${RATE[$c]:-} ]] || continue
		read -ra with <<<"${RATE[$c]}"
		ratios=() adds=()
		for r in "${!with[@]}"; do
			ratios+=("$(calc %.6f "${with[$r]} / ${base[$r]}")")
			adds+=("$(calc %.4f \
				"$THREADS * (1 / ${with[$r]} - 1 / ${base[$r]}) * 1e6")")
		done
		FIG[ratio_$c]=$(median "${ratios[@]}")
		FIG[add_$c]=$(median "${adds[@]}")
		# shellcheck disable=SC2086 # word lists
		FIG[cpu_$c]=$(median ${CPU[$c]})
		# shellcheck disable=SC2086
		FIG[hwm_$c]=$(calc %.1f "$(maxof ${HWM[$c]}) / 1024")
		# shellcheck disable=SC2086
		FIG[exitbusy_$c]=$(median ${EXITS[$c]})
		printf '  %s: %.4fx the throughput (middle half %s);' "${LABEL[$c]}" \
			"${FIG[ratio_$c]}" "$(quartiles %.4f "${ratios[@]}")"
		printf ' %+.3f us per pair (rounds %s)\n' "${FIG[add_$c]}" "$(minmax "${adds[@]}")"
		printf '    profiler: CPU %.1f%% of a core in the window, VmHWM %.1f MiB,' \
			"${FIG[cpu_$c]}" "${FIG[hwm_$c]}"
		printf ' exit %.3f s after SIGINT (medians; VmHWM the largest)\n' \
			"${FIG[exitbusy_$c]}"
	done
}

# ---------------------------------------------------------------- 2. bare uprobe

# One allocbench probe run on target @2 (push|mov) under configuration @1: sets RUN_NS.
bare_run()
{
	local line

	wl_start probe "$2" "$CALLS"
	if ! prof_start "$1"; then
		wl_stop TERM
		return 1
	fi
	kill -USR1 "$WL_PID"
	line=$(wait_line "$WL_OUT" '^probe ' 120) || die "allocbench gave no result under $1"
	prof_stop
	wl_stop
	RUN_NS=$(field per_call "$line")
}

# The first instruction of libc's malloc and free: a uprobe on each costs what the bare figure
# of its kind says (an emulated push, or a single-stepped test or mov).
libc_entries()
{
	local libc f addr insn

	have objdump && have nm || return 0
	# No awk exit before the end of a pipe: the writer's SIGPIPE would fail it (pipefail).
	libc=$(ldd "$WL_BIN" | awk '/libc\.so/ && !n++ { print $3 }')
	[[ -r $libc ]] || return 0
	for f in malloc free; do
		addr=$(nm -D --defined-only "$libc" |
			awk -v f="$f" '($3 == f || index($3, f "@@") == 1) && !n++ { print $1 }')
		[[ -n $addr ]] || continue
		insn=$(objdump -d --no-show-raw-insn --start-address="0x$addr" \
			--stop-address=$((0x$addr + 16)) "$libc" |
			awk -F'\t' '/^ *[0-9a-f]+:/ && !n++ { gsub(/ +/, " ", $2); print $2 }')
		echo "  $libc: $f starts with $insn"
	done
}

bench_bare()
{
	local cfgs=(bare-push bare-ret bare-mov) r i c t
	declare -A ADD=()

	echo "== 2. bare uprobe: allocbench probe mode, $CALLS calls, bpftrace -p PID with an" \
		"empty action, $ROUNDS rounds"
	if ! have bpftrace; then
		echo "  bpftrace not installed: skipped (--install)"
		return 0
	fi
	for ((r = 0; r < ROUNDS; r++)); do
		declare -A NS=()
		for t in push mov; do
			bare_run none "$t"
			NS[none-$t]=$RUN_NS
		done
		for ((i = 0; i < ${#cfgs[@]}; i++)); do
			c=${cfgs[(i + r) % ${#cfgs[@]}]}
			[[ $c == bare-mov ]] && t=mov || t=push
			bare_run "$c" "$t" || die "bpftrace did not start: $PROF_WHY"
			ADD[$c]+="$(calc %.1f "$RUN_NS - ${NS[none-$t]}") "
			printf '  round %2d %-32s %8.1f ns per call, %6.1f without\n' $((r + 1)) \
				"${LABEL[$c]}" "$RUN_NS" "${NS[none-$t]}"
		done
	done
	libc_entries
	for c in "${cfgs[@]}"; do
		# shellcheck disable=SC2086
		FIG[$c]=$(median ${ADD[$c]})
		# shellcheck disable=SC2086
		printf '  %-32s adds %.0f ns per call (median; rounds %s)\n' "${LABEL[$c]}" \
			"${FIG[$c]}" "$(minmax ${ADD[$c]})"
	done
}

# ---------------------------------------------------------------- 3. start-up and exit

# STARTS start/stop cycles of configuration @1 on an idle allocbench: FIG[start_@1], FIG[exit_@1].
startup_of()
{
	local c=$1

	if [[ -n ${SKIP[$c]:-} ]]; then
		echo "  ${LABEL[$c]}: skipped: ${SKIP[$c]}"
		return 0
	fi
	wl_start 1 1
	if ! startup_cycles "$c"; then
		SKIP[$c]="it did not start: $PROF_WHY"
		echo "  ${LABEL[$c]}: skipped: ${SKIP[$c]}"
	fi
	wl_stop TERM	# still waiting for its go signal: exits at once
	startup_figures "$c" "${LABEL[$c]}"
}

bench_startup()
{
	echo "== 3. start-up (command start to probes live) and exit (SIGINT to exit)," \
		"$STARTS runs each on an idle target"
	startup_of faultline
	startup_of memleak
	[[ -z ${SKIP[memleak-libbpf]:-} ]] && startup_of memleak-libbpf
	return 0
}

# ---------------------------------------------------------------- summary

summary()
{
	local c

	summary_head 50 "$(ldd --version 2>&1 | awk 'NR == 1 { print "glibc", $NF }')"
	row "allocbench pairs/s, no profiler ($THREADS threads)" base_rate %.0f "" - ""
	row "added per malloc+free, ${SHORT[faultline]}" add_faultline %.3f " us" "<=" 2.5
	row "added per malloc+free, ${SHORT[fl-sampled]}" add_fl-sampled %.3f " us" "<=" 2.5
	for c in fl-fp fl-churn fl-old fl-old-sampled memleak memleak-libbpf bpftrace; do
		row "added per malloc+free, ${SHORT[$c]}" "add_$c" %.3f " us" - ""
	done
	for c in faultline fl-sampled fl-churn memleak memleak-libbpf bpftrace; do
		row "throughput kept, ${SHORT[$c]}" "ratio_$c" %.4f x - ""
	done
	for c in faultline fl-sampled fl-churn memleak memleak-libbpf bpftrace; do
		row "CPU during the run, ${SHORT[$c]}" "cpu_$c" %.1f "%" - ""
		row "VmHWM, ${SHORT[$c]}" "hwm_$c" %.1f " MiB" - ""
	done
	for c in bare-push bare-ret bare-mov; do
		row "${LABEL[$c]}" "$c" %.0f " ns" - ""
	done
	row "start-up to probes live, ${SHORT[faultline]}" start_faultline %.3f " s" "<=" 0.1
	row "exit after SIGINT (idle), ${SHORT[faultline]}" exit_faultline %.3f " s" "<=" 0.5
	row "exit after SIGINT (after a run), ${SHORT[faultline]}" exitbusy_faultline %.3f " s" \
		"<=" 0.5
	for c in memleak memleak-libbpf; do
		row "start-up to probes live, ${SHORT[$c]}" "start_$c" %.3f " s" - ""
		row "exit after SIGINT (idle), ${SHORT[$c]}" "exit_$c" %.3f " s" - ""
	done
}

main()
{
	bench_start --rounds "BPF and uprobes need it" "$@"
	install_tools
	find_tools
	run_sections
	summary
}

main "$@"
