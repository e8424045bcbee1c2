# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# shellcheck shell=bash
# shellcheck disable=SC2034,SC2153 # globals the sourcing script sets or reads (see below)
#
# bench-lib.sh: what scripts/bench-overhead.sh, bench-alloc.sh, bench-refresh.sh, bench-host.sh,
# bench-storm.sh and soak.sh share; each sources it (source "$(dirname "$0")/bench-lib.sh") right after its
# set -euo pipefail. Not run on its own.
#
# A script sourcing it sets SECTIONS (what --only accepts, in the order the sections run: each
# one a function bench_SECTION), FL and WL_BIN (faultline and the workload binary; '' when it
# has none) in its set_sizes, and defines usage's header (lines 4 on, up to the first line that
# is not a comment), set_sizes, install_tools, prof_start and prof_stop (see startup_cycles),
# summary and, when it has more to undo at exit than its background processes and TMP,
# cleanup_more.
export LC_ALL=C	# a decimal point in $EPOCHREALTIME and in awk's numbers, whatever the locale

OUT=build
INSTALL=0
QUICK=0
COUNT=""	# --pairs or --rounds
ONLY=""
TMP=""
TICK_FD=""
BG_PIDS=()
STARTS_S=()	# start-up and exit times of the last startup_cycles
EXITS_S=()
declare -A FIG=()	# figure name -> value, for the summary

usage()
{
	sed -n '4,/^[^#]/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

# The options; @1 is the script's name for the repeat count (--pairs, --rounds), which sets
# COUNT; the rest are the arguments.
parse_args()
{
	local count=$1 sections

	shift
	sections=$(IFS='|'; echo "${SECTIONS[*]}")
	while (($#)); do
		case $1 in
		--install) INSTALL=1 ;;
		--quick) QUICK=1 ;;
		"$count")
			[[ ${2:-} =~ ^[0-9]+$ && $2 -ge 1 && $2 -le 50 ]] || usage
			COUNT=$2
			shift
			;;
		--only)
			[[ ${2:-} =~ ^($sections)$ ]] || usage
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

log() { printf '%s\n' "$*" >&2; }
die() { local me=${0##*/}; log "${me%.sh}: $*"; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

# What every benchmark does first: its arguments (@1, --rounds or --pairs: what its counting
# option is called; the rest are the script's own), its sizes (its set_sizes), root and a
# build (@2: what needs root), then the exit trap and the scratch folder.
bench_start()
{
	local count=$1 why=$2

	shift 2
	parse_args "$count" "$@"
	set_sizes
	need_root_and_build "$why"
	bench_init
}

# ---------------------------------------------------------------- exit trap

# The exit trap, the scratch folder TMP and nap's FIFO.
bench_init()
{
	trap cleanup EXIT
	trap on_signal INT TERM
	TMP=$(mktemp -d /tmp/faultline-bench.XXXXXX)
	mkfifo "$TMP/tick"
	exec {TICK_FD}<>"$TMP/tick"
}

# SIGINT or SIGTERM: exit 130, through cleanup. A signal that ends the script inside nap leaves
# bash 5.2 the timer of an unfinished read -t, and the next command substitution (cleanup has
# some) then crashes it ("longjmp causes uninitialized stack frame", or a segmentation fault)
# before TMP is removed; a read -t that runs to its end clears that timer.
on_signal()
{
	[[ -n $TICK_FD ]] && nap
	exit 130
}

# SIGINT first, SIGKILL only for what is left 10 s later: a tracer killed while it detaches its
# uprobes makes the kernel leak them ("failed to unregister, leaking uprobe"), and a leaked
# uprobe stays on libc's malloc or free until the next boot. Then the script's cleanup_more,
# when it has one.
cleanup()
{
	local pid i

	for pid in "${BG_PIDS[@]}"; do
		kill -INT "$pid" 2>/dev/null || true
	done
	for pid in "${BG_PIDS[@]}"; do
		for ((i = 0; i < 100; i++)); do
			alive "$pid" || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
	done
	if declare -F cleanup_more >/dev/null; then
		cleanup_more || true
	fi
	[[ -n $TICK_FD ]] && exec {TICK_FD}>&-
	[[ -n $TMP ]] && rm -rf "$TMP"
	return 0
}

# ---------------------------------------------------------------- small helpers

now() { printf '%s' "$EPOCHREALTIME"; }

# Microseconds since the epoch, into the variable named @1 (no subshell).
now_us() { printf -v "$1" '%s' "${EPOCHREALTIME/./}"; }

# Sleeps 10 ms without forking: read(1) with a timeout on a FIFO nobody writes to. The poll
# loops below run beside a workload that may keep every CPU busy; forking sleep, grep and awk
# 100 times a second would take a visible share of a CPU from it.
nap() { read -r -t 0.01 -u "$TICK_FD" _ || true; }

# True while @1 runs (a zombie that was not reaped yet counts as gone).
alive()
{
	local st

	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && $st != Z ]]
}

# Waits up to @3 whole seconds for a line of file @1 matching the ERE @2; prints it. Builtins
# only (see nap).
wait_line()
{
	local file=$1 re=$2 end t l

	now_us t
	end=$((t + $3 * 1000000))
	while :; do
		if [[ -f $file ]]; then
			while IFS= read -r l; do
				[[ $l =~ $re ]] && { printf '%s\n' "$l"; return 0; }
			done <"$file"
		fi
		now_us t
		((t > end)) && return 1
		nap
	done
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

# Waits up to @2 seconds for child @1 to end, then kills it; reaps it either way: sets REAP_RC,
# its exit status (128 + N: killed by signal N).
reap()
{
	local pid=$1 i

	for ((i = 0; i < $2 * 100; i++)); do
		alive "$pid" || break
		nap
	done
	alive "$pid" && { log "  (pid $pid did not end in $2 s: killed)"; kill -KILL "$pid"; }
	REAP_RC=0
	wait "$pid" 2>/dev/null || REAP_RC=$?
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

# First stamp of a line matching @2 in stamped log @1. The ERE goes through the environment:
# awk -v would take its backslashes as escapes (gawk makes '\[eof\]' the class [eof]).
stamp_of() { RE=$2 awk '$0 ~ ENVIRON["RE"] { print $1; exit }' "$1"; }

# ---------------------------------------------------------------- figures

median()
{
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 }
		END { if (!NR) print "nan"; else if (NR % 2) print a[(NR + 1) / 2];
		      else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# "p25..p75" of @2 on (nearest rank), each in printf format @1.
quartiles()
{
	local fmt=$1

	shift
	printf '%s\n' "$@" | sort -g | awk -v f="$fmt..$fmt" '{ a[NR] = $1 } END {
		printf f, a[int((NR + 3) / 4)], a[int((3 * NR + 3) / 4)] }'
}

minmax() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

# utime + stime of process @1 in clock ticks (all its threads); the fields after the last ')'.
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# CPU seconds of process @1: the scheduler's exact sum over its threads when /proc/PID/sched
# has it, else cpu_ticks (whole clock ticks: 10 ms steps).
cpu_of()
{
	local f=("/proc/$1/task/"*/sched)

	if grep -qs se.sum_exec_runtime "${f[0]}"; then
		awk '/^se.sum_exec_runtime/ { ms += $3 } END { printf "%.6f", ms / 1000 }' "${f[@]}"
	else
		calc %.3f "$(cpu_ticks "$1") / $(getconf CLK_TCK)"
	fi
}

# Peak RSS of process @1 so far, in KiB.
hwm_kib() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }

# ---------------------------------------------------------------- tools and workload

# @1: what needs root.
need_root_and_build()
{
	((EUID == 0)) || die "run as root ($1)"
	[[ -x $FL ]] || die "$FL missing: run 'make' first"
	[[ -z $WL_BIN || -x $WL_BIN ]] || die "$WL_BIN missing: run 'make workloads' first"
}

# apt-gets the packages @2 on with --install; without it, says they are missing and that what
# needs them (@1: "comparisons", "figures") is skipped.
install_missing()
{
	local what=$1

	shift
	(($#)) || return 0
	if ((!INSTALL)); then
		log "missing: $* (--install installs them); their $what are skipped"
		return 0
	fi
	log "installing: $*"
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Starts the workload with arguments @@, waiting for its go signal: sets WL_PID, WL_OUT.
wl_start()
{
	WL_OUT=$TMP/wl.$RANDOM.out
	"$WL_BIN" "$@" >"$WL_OUT" &
	WL_PID=$!
	BG_PIDS+=("$WL_PID")
	wait_line "$WL_OUT" '^ready' 10 >/dev/null || die "${WL_BIN##*/} did not get ready"
}

# Ends the workload with signal @1: USR2 (the default) after its "done", TERM before its go
# signal (it exits at once); reaps it (@2 seconds at most, 10 by default).
wl_stop()
{
	kill -"${1:-USR2}" "$WL_PID" 2>/dev/null || true
	reap "$WL_PID" "${2:-10}"
	rm -f "$WL_OUT"
}

# ---------------------------------------------------------------- redis

# A free TCP port on 127.0.0.1 for a private server.
free_port()
{
	local p

	for ((p = 26379; p < 26479; p++)); do
		(: </dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo "$p"; return 0; }
	done
	return 1
}

# A private redis-server on 127.0.0.1 (no AOF) in TMP, saving by the rule @1 (redis's --save;
# default '': never): sets REDIS_PORT, REDIS_PID.
start_redis()
{
	local i

	REDIS_PORT=$(free_port) || die "no free port for redis"
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "${1:-}" --appendonly no \
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

# ---------------------------------------------------------------- postgres

# A private PostgreSQL (Debian's newest installed) on 127.0.0.1 in a directory of its own (the
# postgres user cannot enter TMP), with pgbench's tables at scale @1 (default 2); @2, when given,
# adds server settings ("-c name=value ..."): sets PG_BIN, PG_DIR, PG_PORT, PG_PID.
start_postgres()
{
	PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
	PG_PORT=$(free_port) || die "no free port for postgres"
	PG_DIR=$(mktemp -d /tmp/faultline-bench-pg.XXXXXX)
	chown postgres "$PG_DIR"
	runuser -u postgres -- "$PG_BIN/initdb" -D "$PG_DIR/data" >/dev/null 2>&1 || die "initdb failed"
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -w -l "$PG_DIR/log" \
		-o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 ${2:-}" start >/dev/null ||
		die "postgres did not start: $(tail -n 3 "$PG_DIR/log" 2>/dev/null)"
	PG_PID=$(head -n 1 "$PG_DIR/data/postmaster.pid")
	runuser -u postgres -- "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -i -s "${1:-2}" postgres \
		>/dev/null 2>&1 || die "pgbench -i failed"
}

stop_postgres()
{
	[[ -n ${PG_DIR:-} ]] || return 0
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 ||
		true
	rm -rf "$PG_DIR"
	PG_PID="" PG_DIR=""
}

# ---------------------------------------------------------------- start-up and exit

# SIGINT to @1, whose output goes stamped to @2 (see stamp); waits up to 60 s for its end, then
# reaps @1: sets EXIT_S, the seconds from SIGINT to that end. Returns 1, EXIT_S empty, when the
# end did not come.
stop_timed()
{
	local t rc=0

	EXIT_S=""
	t=$(now)
	kill -INT "$1" 2>/dev/null || true
	if wait_line "$2" '\[eof\]' 60 >/dev/null; then
		EXIT_S=$(calc %.4f "$(stamp_of "$2" '\[eof\]') - $t")
	else
		rc=1
	fi
	reap "$1" 10
	return $rc
}

# STARTS start/stop cycles of configuration @1 on the idle workload WL_PID, through the
# script's prof_start (sets START_AT and LIVE_AT; returns 1 when the profiler did not start)
# and prof_stop (sets EXIT_S): sets STARTS_S and EXITS_S. Returns 1 at the first start that
# failed (PROF_WHY says why; the cycles before it count).
startup_cycles()
{
	local i

	STARTS_S=() EXITS_S=()
	for ((i = 0; i < STARTS; i++)); do
		prof_start "$1" || return 1
		STARTS_S+=("$(calc %.4f "$LIVE_AT - $START_AT")")
		sleep 0.3
		prof_stop
		EXITS_S+=("${EXIT_S:-nan}")
	done
}

# Medians of the last startup_cycles into FIG[start_@1] and FIG[exit_@1], and a line of them,
# after label @2 in a column of its own when there is one; nothing when no start succeeded.
startup_figures()
{
	local c=$1 label=""

	((${#STARTS_S[@]})) || return 0
	[[ -n ${2:-} ]] && label=$(printf '%-34s ' "$2")
	FIG[start_$c]=$(median "${STARTS_S[@]}")
	FIG[exit_$c]=$(median "${EXITS_S[@]}")
	printf '  %sstart-up: median %.3f s (%s); exit: median %.3f s (%s)\n' "$label" \
		"${FIG[start_$c]}" "$(minmax "${STARTS_S[@]}")" "${FIG[exit_$c]}" \
		"$(minmax "${EXITS_S[@]}")"
}

# ---------------------------------------------------------------- sections and summary

# bench_SECTION for each of SECTIONS, or for --only's alone.
run_sections()
{
	local section

	for section in "${SECTIONS[@]}"; do
		[[ -z $ONLY || $ONLY == "$section" ]] && "bench_$section"
	done
	return 0
}

# The summary's title line, @1 more about the system when given.
summary_title()
{
	echo "== summary ($(uname -r), $(nproc) CPUs, $("$FL" --version 2>&1 | head -1)${1:+, $1})"
}

# The summary's first lines: @1 is the width of the figure column (row keeps to it), @2 more
# about the system when given.
summary_head()
{
	ROW_W=$1
	summary_title "${2:-}"
	printf "  %-${ROW_W}s %12s   %-10s %s\n" figure measured target verdict
}

# PASS or MISS: value @1 against target @3 by comparison @2 (<= or >=); - for the comparison -.
verdict()
{
	[[ $2 == - ]] && { echo -; return 0; }
	awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN {
		ok = (op == "<=") ? v <= t : v >= t; print ok ? "PASS" : "MISS" }'
}

# One row: name, figure key, printf format, unit, comparison (<=, >= or -), target.
row()
{
	local v=${FIG[$2]:-}

	if [[ -z $v ]]; then
		printf "  %-${ROW_W}s %12s   %-10s %s\n" "$1" skipped "$5 $6" -
		return 0
	fi
	printf "  %-${ROW_W}s %12s   %-10s %s\n" "$1" "$(printf "$3" "$v")$4" "$5 $6" \
		"$(verdict "$v" "$5" "$6")"
}

# Rows of two builds side by side (a change beside the build before it): row_vs_head prints the
# column names (after summary_title; @1 is the width of the figure column). row_vs: name, this
# build's figure key, the base's figure key, then row's format, unit, comparison and target;
# prints both figures (- for one absent), the first over the second, and each one's verdict.
row_vs_head()
{
	ROW_W=$1
	printf "  %-${ROW_W}s %11s %11s %7s   %-10s %-7s %s\n" figure "this build" "the base" \
		ratio target verdict "the base's"
}

# shellcheck disable=SC2059 # the caller's printf format, as in row
row_vs()
{
	local name=$1 v=${FIG[$2]:-} b=${FIG[$3]:-} fmt=$4 unit=$5 op=$6 t=$7 vs=- bv=- ratio=-

	[[ -n $v ]] && vs=$(printf "$fmt" "$v")$unit
	[[ -n $b ]] && bv=$(printf "$fmt" "$b")$unit
	[[ -n $v && -n $b ]] && ratio=$(awk -v v="$v" -v b="$b" 'BEGIN {
		if (b != 0) printf "%.2fx", v / b; else print "-" }')
	printf "  %-${ROW_W}s %11s %11s %7s   %-10s %-7s %s\n" "$name" "$vs" "$bv" "$ratio" "$op $t" \
		"$([[ -n $v ]] && verdict "$v" "$op" "$t" || echo -)" \
		"$([[ -n $b ]] && verdict "$b" "$op" "$t" || echo -)"
}
