#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# bench-host.sh: faultline in host mode (-a) on a machine busy with three real servers at once
# (a benchmark, not a test: it prints figures next to their targets and exits 0 unless the
# script itself failed).
#
#   scripts/bench-host.sh [--install] [--quick] [--rounds N] [--build DIR]
#
# Starts a private redis-server, mariadbd and PostgreSQL together, each by hand on 127.0.0.1
# in a throwaway directory (commits do not wait for the disk, so the loads are CPU-bound), then
# runs rounds of A and B (AB BA AB...): in each run the three load tools run at the same time for
# LOAD_S seconds, redis-benchmark -t set -P 16 -r 1000000 -d 64 (ended by timeout: the
# "overall" requests/s of its last progress line; redis is flushed before each run, so each
# fills its keys afresh), sysbench oltp_read_write --threads 4 on 4 tables of 20,000 rows
# (transactions/s), pgbench -c 4 -j 2 at scale 5 (tps). A: no profiler. B: `faultline -a -q
# -i 1 --json FILE`, started before the load (the load starts a second after it says
# "faultline: tracing") and stopped by SIGINT once the load is over. Figures:
#   - per server, its throughput in B over the same round's A, median over rounds and spread;
#     and the servers together, the geometric mean of a round's ratios (on 2 CPUs what one
#     server loses to the others in a round another gains: together they swing less);
#   - faultline's CPU over the load window as % of one core (its threads' sum_exec_runtime;
#     the BPF programs run in the traced processes' context and are not in it: their run time,
#     which the kernel counts with kernel.bpf_stats_enabled on during the load, is a figure of
#     its own, as % of one core too; on 2 CPUs the two together over 2 bound the share of the
#     machine faultline takes from the servers, which their throughput cannot show), its peak RSS
#     (VmHWM just before SIGINT), start-up (command to "tracing") and exit (SIGINT to its
#     end), the processes its JSON holds, its drops; and the processes the host started per
#     second during the load (/proc/stat): in host mode each is a target, and whatever else
#     runs on the machine counts;
#   - the per-process reconciliation of the JSON: gap = kernel_change - (growth - released)
#     (its "gap" object), summed as |anon| + |file| + |shmem|, over the process's resident
#     change (|kernel_change| anon + file + shmem), or GAP_FLOOR_KIB (1 MiB) when that is
#     smaller: the "within 1% of /proc" check. For each server's main process (redis-server,
#     mariadbd, the postmaster) and its processes of the same name (postgres: the backends and
#     auxiliaries; exited ones keep their counters at exit), beside the main process's
#     resident change as this script read /proc itself just before and after the load; then
#     over every process of the host with kernel figures in the JSON (from /proc, or for a
#     child gone before it was read, its RSS counters at fork and at exit), how many are
#     beyond 1% and the worst few.
# Environment: LOAD_S (seconds of load per run, default 20), WARM_S (an uncounted A run first,
# default 5; 0: none), ROUNDS (default 3; --rounds wins), GAP_FLOOR_KIB, KEEP=DIR (keeps each B
# run's JSON and faultline's stderr in DIR). --quick: 10 s runs, 2 rounds.
#
# The servers, their load tools and faultline share the machine's CPUs: on 2 CPUs each run is
# CPU-bound and the ratios move by several % between rounds; read the medians. --install
# apt-gets redis-server, redis-tools, mariadb-server, mariadb-client, sysbench and postgresql
# when missing; without it, a server whose packages are missing is left out and the output
# says so. Needs root, jq and a build (make). Default run: about 4 minutes.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"	# options, exit trap, helpers, servers, summary rows

SECTIONS=(host)	# --only's choice (one)
SERVERS=()	# those whose packages are here, of redis mariadb postgres
declare -A COMM=([redis]=redis-server [mariadb]=mariadbd [postgres]=postgres)
declare -A UNIT=([redis]="req/s" [mariadb]="tps" [postgres]="tps")
declare -A MAIN=()	# server -> its main pid
REDIS_PID=""
MY_PID="" MY_SOCK=""
FL_PID=""
LOAD_PIDS=()	# the load tools running (see loads_run)
PG_SCALE=5

set_sizes()
{
	if ((QUICK)); then
		LOAD_S=${LOAD_S:-10} ROUNDS=${COUNT:-${ROUNDS:-2}}
	else
		LOAD_S=${LOAD_S:-20} ROUNDS=${COUNT:-${ROUNDS:-3}}
	fi
	WARM_S=${WARM_S:-5}
	GAP_FLOOR_KIB=${GAP_FLOOR_KIB:-1024}
	KEEP=${KEEP:-}
	[[ $LOAD_S =~ ^[0-9]+$ && $LOAD_S -ge 2 ]] || die "LOAD_S: whole seconds, 2 or more"
	[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 1 ]] || die "ROUNDS: 1 or more"
	[[ $WARM_S =~ ^[0-9]+$ && $GAP_FLOOR_KIB =~ ^[0-9]+$ && $GAP_FLOOR_KIB -ge 4 ]] ||
		die "WARM_S, GAP_FLOOR_KIB: whole numbers (GAP_FLOOR_KIB >= 4)"
	FL=$OUT/faultline
	WL_BIN=""
}

# The run time of faultline's BPF programs so far, ns: the kernel counts it while
# kernel.bpf_stats_enabled is 1 (the B runs' load), in the processes the programs run in.
bpf_ns()
{
	bpftool -j prog show 2>/dev/null |
		jq '[.[] | select(.name // "" | startswith("fl_")) | .run_time_ns // 0] | add // 0'
}
BPF_STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)

# The load tools first (they ignore SIGINT, as a script's background commands do), then the
# servers; the BPF statistics as they were.
cleanup_more()
{
	local p

	sysctl -qw kernel.bpf_stats_enabled="$BPF_STATS_WAS" 2>/dev/null || true
	for p in "${LOAD_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in "${LOAD_PIDS[@]}"; do
		reap "$p" 5
	done
	stop_redis
	stop_mariadb
	stop_postgres
}

# ---------------------------------------------------------------- tools

install_tools()
{
	local missing=()

	have jq || missing+=(jq)
	have redis-server || missing+=(redis-server)
	have redis-benchmark && have redis-cli || missing+=(redis-tools)
	have mariadbd && have mariadb-install-db || missing+=(mariadb-server)
	have mariadb || missing+=(mariadb-client)
	have sysbench || missing+=(sysbench)
	have pgbench && ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || missing+=(postgresql)
	install_missing servers "${missing[@]}"
	have jq || die "jq missing (--install)"
	have redis-server && have redis-benchmark && have redis-cli && SERVERS+=(redis)
	have mariadbd && have mariadb-install-db && have mariadb && have sysbench &&
		SERVERS+=(mariadb)
	have pgbench && ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 && SERVERS+=(postgres)
	((${#SERVERS[@]})) || die "none of the servers is installed (--install)"
	return 0
}

# ---------------------------------------------------------------- mariadb

# A private mariadbd on 127.0.0.1 with its data and socket in TMP, and sysbench's tables; its
# commits do not wait for the disk (see start_servers): sets MY_PID, MY_SOCK.
start_mariadb()
{
	local port i

	port=$(free_port) || die "no free port for mariadbd"
	MY_SOCK=$TMP/my.sock
	mariadb-install-db --no-defaults --user=root --datadir="$TMP/my" >/dev/null 2>&1 ||
		die "mariadb-install-db failed"
	mariadbd --no-defaults --user=root --datadir="$TMP/my" --socket="$MY_SOCK" --port="$port" \
		--bind-address=127.0.0.1 --skip-grant-tables --log-error="$TMP/my.err" \
		--innodb-flush-log-at-trx-commit=2 >/dev/null 2>&1 &
	MY_PID=$!
	for ((i = 0; i < 300; i++)); do
		mariadb -S "$MY_SOCK" -e 'select 1' >/dev/null 2>&1 && break
		alive "$MY_PID" || die "mariadbd ended: $(tail -n 3 "$TMP/my.err" 2>/dev/null)"
		sleep 0.2
	done
	((i < 300)) || die "mariadbd did not answer on $MY_SOCK"
	mariadb -S "$MY_SOCK" -e 'create database sbtest'
	sysbench oltp_read_write "${SB_OPTS[@]}" prepare >/dev/null || die "sysbench prepare failed"
}

stop_mariadb()
{
	[[ -n $MY_PID ]] || return 0
	kill -TERM "$MY_PID" 2>/dev/null || true
	reap "$MY_PID" 30
	MY_PID=""
}

# ---------------------------------------------------------------- servers and loads

# The three servers. Their commits do not wait for the disk (mariadbd
# --innodb-flush-log-at-trx-commit=2, postgres synchronous_commit=off): the loads are then
# CPU-bound, where faultline's cost shows, and not bound by a shared virtual disk whose latency
# moves by more than that cost.
start_servers()
{
	local s desc=()

	for s in redis mariadb postgres; do
		pgrep -x "${COMM[$s]}" >/dev/null && log "note: ${COMM[$s]} already runs here:" \
			"its processes count in the gap figures"
	done
	SB_OPTS=(--db-driver=mysql --mysql-socket="$TMP/my.sock" --mysql-user=root --tables=4
		--table-size=20000)
	for s in "${SERVERS[@]}"; do
		case $s in
		redis)
			start_redis ""	# never saves
			MAIN[redis]=$REDIS_PID
			desc+=("redis-server $(redis-server --version |
				sed 's/.* v=\([^ ]*\).*/\1/') pid $REDIS_PID port $REDIS_PORT;")
			;;
		mariadb)
			start_mariadb
			MAIN[mariadb]=$MY_PID
			desc+=("mariadbd $(mariadbd --version | awk '{ print $3 }' | cut -d- -f1)"
				"pid $MY_PID;")
			;;
		postgres)
			start_postgres "$PG_SCALE" "-c synchronous_commit=off"
			MAIN[postgres]=$PG_PID
			desc+=("postgres $(basename "$(dirname "$PG_BIN")") postmaster $PG_PID"
				"port $PG_PORT (scale $PG_SCALE)")
			;;
		esac
	done
	echo "  servers: ${desc[*]}"
	for s in redis mariadb postgres; do
		[[ " ${SERVERS[*]} " == *" $s "* ]] || echo "  ${COMM[$s]}: not installed, left out"
	done
}

# The load of a server for @1 seconds, its output to stdout. Run with &, each execs its tool, so
# that $! is the tool (redis-benchmark has no time limit: timeout's SIGTERM ends it, and its
# last progress line has the figure).
load_redis()
{
	exec timeout -k 5 "$1" redis-benchmark -h 127.0.0.1 -p "$REDIS_PORT" -q -t set \
		-n 2000000000 -P 16 -r 1000000 -d 64
}

load_mariadb()
{
	exec sysbench oltp_read_write "${SB_OPTS[@]}" --threads=4 --time="$1" --report-interval=0 \
		run
}

load_postgres()
{
	exec "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -c 4 -j 2 -T "$1" postgres
}

# The throughput in load output @2 of server @1, or nan.
load_figure()
{
	local v=""

	case $1 in
	redis) # "SET: rps=381705.2 (overall: 371446.3) avg_msec=2.001 (overall: 2.028)"
		v=$(tr '\r' '\n' <"$2" | sed -n 's/.*rps=[0-9.]* (overall: \([0-9.]*\)).*/\1/p' |
			tail -n 1) ;;
	mariadb) v=$(awk '/transactions:/ { gsub(/\(/, "", $3); print $3; exit }' "$2") ;;
	postgres) v=$(awk '/^tps = / { print $3; exit }' "$2") ;;
	esac
	printf '%s' "${v:-nan}"
}

# The processes the host started since boot (/proc/stat).
forks() { awk '/^processes / { print $2 }' /proc/stat; }

# RssAnon + RssFile + RssShmem of process @1 in bytes, or nan.
rss_bytes()
{
	awk '/^Rss(Anon|File|Shmem):/ { s += $2; n++ } END { if (n == 3) print s * 1024;
		else print "nan" }' "/proc/$1/status" 2>/dev/null || echo nan
}

# The three loads at once for @1 seconds: sets TP (server -> throughput) and, for each main
# process, RSS0 and RSS1 (its resident bytes just before and just after), LOAD_T0, LOAD_T1 and
# FORKS (the processes the host started in between, the load tools included: in host mode
# each is one more target). The script forks nothing between the two.
loads_run()
{
	local s p

	for s in "${SERVERS[@]}"; do
		RSS0[$s]=$(rss_bytes "${MAIN[$s]}")
	done
	FORKS=$(forks)
	LOAD_T0=$(now)
	LOAD_PIDS=()
	for s in "${SERVERS[@]}"; do
		"load_$s" "$1" >"$TMP/load.$s" 2>&1 &
		LOAD_PIDS+=("$!")
	done
	for p in "${LOAD_PIDS[@]}"; do
		wait "$p" || true
	done
	LOAD_PIDS=()
	LOAD_T1=$(now)
	FORKS=$(($(forks) - FORKS))
	for s in "${SERVERS[@]}"; do
		RSS1[$s]=$(rss_bytes "${MAIN[$s]}")
		TP[$s]=$(load_figure "$s" "$TMP/load.$s")
		[[ ${TP[$s]} != nan ]] || log "  ${COMM[$s]}: its load gave no figure:" \
			"$(tail -n 3 "$TMP/load.$s" | tr '\r\n' '  ' | cut -c1-300)"
	done
}

# ---------------------------------------------------------------- faultline's JSON

# The figures of faultline's --json @1, as tab-separated lines (see the jq program):
#   host NPROC ALIVE NO_STATUS DROPS DROP_NAMES BEYOND CHECKED
#   srv SERVER MAIN_PID K NET GAP SHARE N WORST_SHARE WORST_PID
#   worst PID ALIVE K NET GAPS SHARE NAME           (the 5 largest shares above 0)
# K: kernel_change anon + file + shmem; NET: faultline's growth - released, the same kinds;
# GAP: |gap.anon| + |gap.file| + |gap.shmem| (GAPS: each, signed, in bytes); SHARE: GAP /
# max(|K|, GAP_FLOOR_KIB).
json_figures()
{
	local mains="{}" s

	for s in "${SERVERS[@]}"; do
		mains=$(jq -c --arg s "$s" --arg n "${COMM[$s]}" --argjson p "${MAIN[$s]}" \
			'. + {($s): {name: $n, pid: $p}}' <<<"$mains")
	done
	jq -r --argjson floor $((GAP_FLOOR_KIB * 1024)) --argjson mains "$mains" '
	def abs: if . < 0 then -. else . end;
	def tot(o): o.anon + o.file + o.shmem;
	def gapsum(o): (o.anon | abs) + (o.file | abs) + (o.shmem | abs);
	[.processes[] | select(.kernel_change != null and .gap != null)
	 | {pid, name, alive, k: tot(.kernel_change),
	    net: (tot(.attributed.growth) - tot(.attributed.released)), gap: gapsum(.gap),
	    kinds: "anon \(.gap.anon), file \(.gap.file), shmem \(.gap.shmem)"}
	 | .share = (.gap / ([(.k | abs), $floor] | max))] as $p
	| (["host", (.processes | length), ([.processes[] | select(.alive)] | length),
	    ((.processes | length) - ($p | length)), ([.drops[]] | add),
	    ([.drops | to_entries[] | select(.value > 0) | "\(.key) \(.value)"] | join(", ")
	     | if . == "" then "none" else . end),
	    ([$p[] | select(.share > 0.01)] | length), ($p | length)] | @tsv),
	  ($mains | to_entries[] | .key as $s | .value.name as $n | .value.pid as $pid
	   | [$p[] | select(.name == $n)] as $g
	   | ([$g[] | select(.pid == $pid)] | first) as $m
	   | ($g | max_by(.share)) as $w
	   | ["srv", $s, $pid, ($m.k // "nan"), ($m.net // "nan"), ($m.gap // "nan"),
	      ($m.share // "nan"), ($g | length), ($w.share // "nan"), ($w.pid // 0)] | @tsv),
	  ($p | sort_by(-.share) | .[:5][] | select(.share > 0)
	   | ["worst", .pid, .alive, .k, .net, .kinds, .share, .name] | @tsv)' "$1" || true
}

mib() { calc %+.1f "$1 / 1048576"; }

# What faultline said on stderr (@1, stamped) besides its usual lines, the first @2 lines.
fl_said()
{
	sed 's/^[0-9.]* //' "$1" | grep -v -e '^faultline: tracing' -e '^faultline: lines cut' \
		-e '^\[eof\]$' | head -n "$2" || true
}

# ---------------------------------------------------------------- runs

declare -A TP=() RSS0=() RSS1=()
declare -A RUNS=()	# "A_server", "B_server", "ratio_server", ... -> space-separated figures

# One run of configuration @1 (A or B) in round @2 (0: the warm-up, for WARM_S seconds).
host_run()
{
	local cfg=$1 r=$2 secs=$LOAD_S s json=$TMP/fl.json log=$TMP/fl.log line="" c0 c1 t_start
	local hwm start_s cpu sess b0 bpf

	((r)) || secs=$WARM_S
	# each run's redis fills its keys afresh (flushed before faultline starts)
	[[ -n $REDIS_PID ]] && redis-cli -p "$REDIS_PORT" flushall >/dev/null
	if [[ $cfg == B ]]; then
		rm -f "$json" "$log"
		t_start=$(now)
		"$FL" -a -q -i 1 --json "$json" >"$TMP/fl.out" 2> >(stamp >"$log") &
		FL_PID=$!
		BG_PIDS+=("$FL_PID")
		if ! wait_line "$log" '^[0-9.]+ faultline: tracing' 120 >/dev/null; then
			log "faultline did not start in 120 s; it said:"
			fl_said "$log" 20 >&2
			die "faultline -a did not start"
		fi
		start_s=$(calc %.2f "$(stamp_of "$log" 'faultline: tracing') - $t_start")
		sleep 1	# its first refresh, outside the window
		c0=$(cpu_of "$FL_PID")
		sysctl -qw kernel.bpf_stats_enabled=1
		b0=$(bpf_ns)
	fi
	loads_run "$secs"
	for s in "${SERVERS[@]}"; do
		line+=$(printf '  %s %s %s' "${COMM[$s]}" "${TP[$s]}" "${UNIT[$s]}")
	done
	line+=$(printf '; host forks %.1f/s' "$(calc %.2f "$FORKS / ($LOAD_T1 - $LOAD_T0)")")
	[[ $cfg == A ]] || RUNS[forks]+="$(calc %.2f "$FORKS / ($LOAD_T1 - $LOAD_T0)") "
	if [[ $cfg == A ]]; then
		if ((r)); then printf '  round %d A:%s\n' "$r" "$line"
		else printf '  warm-up:%s\n' "$line"; fi
		for s in "${SERVERS[@]}"; do
			THIS_A[$s]=${TP[$s]}
		done
		((r)) || return 0
		for s in "${SERVERS[@]}"; do
			[[ ${TP[$s]} == nan ]] || RUNS[A_$s]+="${TP[$s]} "
		done
		return 0
	fi
	c1=$(cpu_of "$FL_PID")
	bpf=$(calc %.2f "($(bpf_ns) - $b0) / 1e9 / ($LOAD_T1 - $LOAD_T0) * 100")
	sysctl -qw kernel.bpf_stats_enabled="$BPF_STATS_WAS"
	hwm=$(hwm_kib "$FL_PID")
	cpu=$(calc %.2f "($c1 - $c0) / ($LOAD_T1 - $LOAD_T0) * 100")
	sess=$(calc %.1f "$(now) - $t_start")
	sess=$(printf '%.2f s of CPU over its %s s so far' "$c1" "$sess")
	if ! stop_timed "$FL_PID" "$log"; then
		EXIT_S=nan
		log "  faultline did not end within 60 s of SIGINT"
	fi
	printf '  round %d B:%s\n' "$r" "$line"
	for s in "${SERVERS[@]}"; do
		THIS_B[$s]=${TP[$s]}
		[[ ${TP[$s]} == nan ]] || RUNS[B_$s]+="${TP[$s]} "
	done
	RUNS[cpu]+="$cpu " RUNS[hwm]+="$hwm " RUNS[start]+="$start_s " RUNS[exit]+="$EXIT_S "
	RUNS[bpf]+="$bpf "
	printf '    faultline: start-up %s s, CPU %s%% of a core over %.1f s of load' "$start_s" \
		"$cpu" "$(calc %.2f "$LOAD_T1 - $LOAD_T0")"
	printf ' and its BPF programs %s%% more in the processes they trace,' "$bpf"
	printf ' VmHWM %.1f MiB,' "$(calc %.1f "$hwm / 1024")"
	printf ' exit %s s after SIGINT, status %s (session: %s)\n' "$EXIT_S" "$REAP_RC" "$sess"
	((REAP_RC == 0)) || RUNS[bad_rc]+="$REAP_RC "
	if [[ -n $(fl_said "$log" 1) ]]; then
		echo "    faultline said on stderr:"
		fl_said "$log" 10 | sed 's/^/      /'
	fi
	if [[ -n $KEEP ]]; then
		mkdir -p "$KEEP"
		cp "$log" "$KEEP/fl.round$r.log"
		[[ -f $json ]] && cp "$json" "$KEEP/fl.round$r.json"
	fi
	if ! jq -e '.final == true' "$json" >/dev/null 2>&1; then
		echo "    no final JSON written ($json)"
		RUNS[nojson]+="$r "
		return 0
	fi
	json_report "$json"
}

# The figures of a B run's JSON @1 (see json_figures), printed and kept in RUNS; beside the
# main processes' /proc change, as faultline saw it, the one the script read (loads_run).
json_report()
{
	local tag a b c d e f g h i s sh mine

	while IFS=$'\t' read -r tag a b c d e f g h i; do
		case $tag in
		host)
			printf '    JSON: %s processes (%s alive at the end, %s without kernel' \
				"$a" "$b" "$c"
			printf ' figures); drops %s (%s); gap beyond 1%%: %s of %s processes\n' \
				"$d" "$e" "$f" "$g"
			RUNS[procs]+="$a " RUNS[drops]+="$d " RUNS[beyond]+="$f "
			;;
		srv)
			s=$a
			if [[ $f == nan || $h == nan ]]; then
				echo "    ${COMM[$s]}: pid $b not in the JSON with kernel figures"
				continue
			fi
			sh=$(calc %.6f "$f * 100")
			RUNS[share_$s]+="$sh " RUNS[worst_$s]+="$(calc %.6f "$h * 100") "
			RUNS[n_$s]+="$g "
			# the script's own /proc reads of the main process around the load
			mine=$(calc %.0f "${RSS1[$s]} - ${RSS0[$s]}")
			RUNS[proc_$s]+="$mine " RUNS[k_$s]+="$c " RUNS[net_$s]+="$d "
			printf '    %-12s %-7s /proc %s MiB (the script: %s MiB), faultline net' \
				"${COMM[$s]}" "$b" "$(mib "$c")" "$(mib "$mine")"
			printf ' %s MiB,' "$(mib "$d")"
			printf ' gap %s KiB = %.3f%%; %s processes so named, worst %.3f%% (%s)\n' \
				"$(calc %.0f "$e / 1024")" "$sh" "$g" "$(calc %.3f "$h * 100")" "$i"
			;;
		worst)
			[[ $b == true ]] && b="" || b=", exited"
			printf '    worst: %s %s%s: /proc %s MiB, faultline net %s MiB,' "$a" \
				"$g" "$b" "$(mib "$c")" "$(mib "$d")"
			printf ' gap %.2f%% (bytes: %s)\n' "$(calc %.4f "$f * 100")" "$e"
			;;
		esac
	done < <(json_figures "$1")
}

declare -A THIS_A=() THIS_B=()

# Each server's B over A of the round just run, and the servers' together.
round_ratios()
{
	local s ratio line="" logsum=0 n=0

	for s in "${SERVERS[@]}"; do
		if [[ ${THIS_B[$s]} == nan || ${THIS_A[$s]} == nan ]]; then
			line+="  ${COMM[$s]} -"
			continue
		fi
		ratio=$(calc %.4f "${THIS_B[$s]} / ${THIS_A[$s]}")
		RUNS[ratio_$s]+="$ratio "
		line+=$(printf '  %s %.3f' "${COMM[$s]}" "$ratio")
		logsum=$(calc %.6f "$logsum + log($ratio)") n=$((n + 1))
	done
	# the servers share the CPUs differently from run to run: together they swing less
	if ((n)); then
		ratio=$(calc %.4f "exp($logsum / $n)")
		RUNS[ratio_all]+="$ratio "
		line+=$(printf '  together %.3f' "$ratio")
	fi
	echo "    B/A:$line"
}

bench_host()
{
	local r s

	echo "== host mode: ${SERVERS[*]} under their load tools at once, $ROUNDS rounds of A (no" \
		"profiler) and B (faultline -a -q -i 1 --json), AB then BA, $LOAD_S s of load each"
	echo "  note: $(nproc) CPUs for the servers, their load tools and faultline: every run is" \
		"CPU-bound and noisy (several % between rounds); medians of the rounds count"
	start_servers
	((WARM_S == 0)) || host_run A 0
	# A then B in odd rounds, B then A in even ones: a drift over the whole run (tables that
	# grow, caches that warm) weighs on both alike
	for ((r = 1; r <= ROUNDS; r++)); do
		if ((r % 2)); then
			host_run A "$r"
			host_run B "$r"
		else
			host_run B "$r"
			host_run A "$r"
		fi
		round_ratios
	done
	host_table
}

# ---------------------------------------------------------------- figures

# The median of the figures in RUNS[@1] (nan when none).
med() { local v; read -ra v <<<"${RUNS[$1]:-}"; median "${v[@]}"; }
spread() { local v; read -ra v <<<"${RUNS[$1]:-}"; ((${#v[@]})) && minmax "${v[@]}" || echo -; }
most() { local v; read -ra v <<<"${RUNS[$1]:-}"; ((${#v[@]})) && printf '%s\n' "${v[@]}" |
	sort -g | tail -n 1 || echo nan; }

host_table()
{
	local s w=0 v

	echo "== side by side (medians over $ROUNDS rounds; B/A is each round's B over its own A)"
	printf '  %-13s %14s %14s %8s  %-15s %12s %13s %10s %10s\n' server "A median" "B median" \
		"B/A" "B/A rounds" "/proc change" "faultline net" "gap, main" "same name"
	for s in "${SERVERS[@]}"; do
		FIG[tp_$s]=$(med "ratio_$s")
		FIG[gapmain_$s]=$(most "share_$s")
		printf '  %-13s %10.0f %-3s %10.0f %-3s %7.3fx  %-15s' "${COMM[$s]}" \
			"$(med "A_$s")" "${UNIT[$s]%%/*}" "$(med "B_$s")" "${UNIT[$s]%%/*}" \
			"${FIG[tp_$s]}" "$(spread "ratio_$s")"
		printf ' %8s MiB %9s MiB %9.3f%% %9.3f%%\n' "$(mib "$(med "k_$s")")" \
			"$(mib "$(med "net_$s")")" "$(med "share_$s")" "$(most "worst_$s")"
		v=$(most "share_$s")
		[[ $v != nan ]] && w=$(awk -v a="$w" -v b="$v" 'BEGIN { print (b > a) ? b : a }')
		v=$(most "worst_$s")
		[[ $v != nan ]] && w=$(awk -v a="$w" -v b="$v" 'BEGIN { print (b > a) ? b : a }')
	done
	FIG[tp_all]=$(med ratio_all)
	printf '  %-13s %14s %14s %7.3fx  %-15s (geometric mean of a round'"'"'s B/A)\n' together "" "" \
		"${FIG[tp_all]}" "$(spread ratio_all)"
	printf '  (/proc change and faultline net: the main process, medians; gap: |kernel_change'
	printf ' - net| over max(|kernel_change|, %s KiB), the main process, median of the B' \
		"$GAP_FLOOR_KIB"
	printf ' rounds; same name: the largest gap of any process so named, any round)\n'
	printf '  /proc change of the main processes, as the script read it around the load:'
	for s in "${SERVERS[@]}"; do
		printf ' %s %s MiB' "${COMM[$s]}" "$(mib "$(med "proc_$s")")"
	done
	echo
	FIG[cpu]=$(med cpu)
	FIG[bpf]=$(med bpf)
	FIG[rss]=$(calc %.1f "$(med hwm) / 1024")
	FIG[start]=$(med start)
	FIG[exit]=$(med exit)
	FIG[exit_max]=$(most exit)
	FIG[procs]=$(med procs)
	FIG[drops]=$(most drops)
	FIG[beyond]=$(most beyond)
	FIG[gapworst]=$w
	FIG[forks]=$(med forks)
	printf '  faultline: CPU %s%% of a core (rounds %s), VmHWM %s MiB (rounds %s KiB),' \
		"${FIG[cpu]}" "$(spread cpu)" "${FIG[rss]}" "$(spread hwm)"
	printf ' start-up %s s, exit %s s (rounds %s), processes in its JSON %s (rounds %s),' \
		"${FIG[start]}" "${FIG[exit]}" "$(spread exit)" "${FIG[procs]}" "$(spread procs)"
	printf ' drops at most %s, processes beyond 1%% at most %s; the host started %s processes' \
		"${FIG[drops]}" "${FIG[beyond]}" "${FIG[forks]}"
	printf ' a second during the B loads (rounds %s)\n' "$(spread forks)"
	[[ -z ${RUNS[bad_rc]:-} ]] || echo "  faultline exited non-zero: ${RUNS[bad_rc]}"
	[[ -z ${RUNS[nojson]:-} ]] || echo "  rounds without a final JSON: ${RUNS[nojson]}"
}

summary()
{
	local s

	summary_head 46 "$(uptime | sed 's/.*load average: /load /')"
	for s in "${SERVERS[@]}"; do
		row "${COMM[$s]} throughput kept (median B/A)" "tp_$s" %.3f x ">=" 0.97
	done
	row "the servers together (geometric mean, median)" tp_all %.3f x ">=" 0.97
	row "faultline CPU over the load, % of a core" cpu %.2f "%" "<=" 3
	row "its BPF programs in the traced processes, % of a core" bpf %.2f "%" - ""
	row "faultline peak RSS (VmHWM)" rss %.1f " MiB" "<=" 128
	for s in "${SERVERS[@]}"; do
		row "gap of ${COMM[$s]} (main), worst round" "gapmain_$s" %.3f "%" "<=" 1
	done
	row "worst gap, the servers' processes" gapworst %.3f "%" "<=" 1
	row "processes beyond 1% (worst round)" beyond %.0f "" "<=" 0
	row "drops (worst round)" drops %.0f "" "<=" 0
	row "processes in the JSON (median)" procs %.0f "" - ""
	row "processes the host started per s, B" forks %.1f "" - ""
	row "start-up to tracing (median)" start %.2f " s" - ""
	row "exit after SIGINT (median)" exit %.2f " s" - ""
	row "exit after SIGINT (slowest)" exit_max %.2f " s" "<=" 5
}

main()
{
	bench_start --rounds "BPF needs it" "$@"
	install_tools
	run_sections
	summary
}

main "$@"
