#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# scripts/bench-stacks.sh [-d SECONDS] [--only redis|mariadb|postgres] [--hide-debug] [--alloc]
#                       FAULTLINE[:OPTION,...]...
#
# How whole and how well named faultline's stacks are on real servers: Debian's redis-server
# (under redis-benchmark), mariadbd (sysbench oltp_read_write) and postgres (pgbench, -f for
# its backends), each private on 127.0.0.1 in a throwaway directory. Each FAULTLINE binary
# given (e.g. an older build, then this one; after a colon, options of its own, comma-separated:
# build/faultline:--unwind-mem=0 walks by frame pointers only) profiles each server, started
# afresh, for SECONDS (default 10) with --json (and --alloc with --alloc). The figures, each
# byte-weighted:
#   whole    the share of resident growth (and with --alloc, of allocated bytes) on stacks that
#            reach the thread's or the process's start (the header's stack_walks figures);
#   reach    the share of resident growth on stacks with _start, main, start_thread or clone3
#            among their frames (how the issue measured "before": a frame-pointer walk never
#            says whole, however far it goes);
#   depth    the mean number of frames of a growth stack;
#   named    the share of the frames of the growth stacks that name a function (pseudo-frames
#            such as [exit] left out; a frame "object+0xOFFSET" is unnamed).
# KEEP_JSON=DIR keeps each server's last --json in DIR. What is installed decides the rest:
# libc6-dbg and libstdc++6-12-dbg (debug files; --hide-debug hides /usr/lib/debug from the
# run), DEBUGINFOD_URLS (passed through).
# Needs root and the servers' packages: redis-server redis-tools mariadb-server sysbench
# postgresql.
set -euo pipefail

DURATION=10
ONLY=""
ALLOC=""
while (($#)); do
	case $1 in
	-d) DURATION=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	--alloc) ALLOC=--alloc; shift ;;
	--hide-debug)
		# Debian as installed, without its -dbg packages, whatever this machine has: the
		# servers and faultline run in a mount namespace where /usr/lib/debug is empty
		shift
		exec unshare -m --propagation private sh -c \
			'mount -t tmpfs tmpfs /usr/lib/debug && exec "$0" "$@"' "$0" \
			-d "$DURATION" ${ONLY:+--only "$ONLY"} $ALLOC "$@"
		;;
	-*) echo "usage: $0 [-d SECONDS] [--only SERVER] FAULTLINE..." >&2; exit 2 ;;
	*) break ;;
	esac
done
(($#)) || { echo "usage: $0 [-d SECONDS] [--only SERVER] FAULTLINE..." >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "bench-stacks: needs root" >&2; exit 1; }

TMP=$(mktemp -d /tmp/bench-stacks-XXXXXX)
chmod 755 "$TMP"
SERVER_PID=""
cleanup()
{
	[[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
	[[ -d $TMP/pg ]] && runuser -u postgres -- /usr/lib/postgresql/*/bin/pg_ctl -D "$TMP/pg" \
		-m immediate stop >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# share JSON: the byte-weighted shares of whole stacks, their mean depth and the share of named
# frames, of a --json file.
share()
{
	python3 - "$1" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
named = frames = total = reach = 0
starts = {"_start", "main", "start_thread", "clone3", "clone", "__clone"}
for s in doc["stacks"]:
    g = s["counts"]["growth"]
    w = g["anon"] + g["file"] + g["shmem"]
    fr = [f for f in s["frames"][1:] if not f.startswith("[")]
    total += w
    reach += w if starts.intersection(fr) else 0
    frames += w * len(fr)
    named += w * sum(1 for f in fr if not re.search(r"\+0x[0-9a-f]+$", f))
def whole(d):
    t = sum(d.values())
    return "%5.1f%%" % (100.0 * d["whole"] / t) if t else "    - "
def cuts(d):
    t = sum(d.values())
    return ", ".join("%s %.1f%%" % (k, 100.0 * v / t) for k, v in d.items()
                     if v and k != "whole") if t else ""
sw = doc["stack_walks"]
print("whole %s of growth, %s of allocated bytes; reaching a start by name %5.1f%%; "
      "depth %4.1f; %5.1f%% named; %.1f MiB of growth; tables %.1f MiB, %.0f ms%s" %
      (whole(sw["growth_bytes"]), whole(sw["alloc_bytes"]),
       100.0 * reach / total if total else 0, frames / total if total else 0,
       100.0 * named / frames if frames else 0, total / 1048576,
       sw["unwind_tables"]["bytes"] / 1048576, sw["unwind_tables"]["build_ms"],
       "; growth cut: " + cuts(sw["growth_bytes"]) if cuts(sw["growth_bytes"]) else ""))
PY
}

# profile NAME PID LOAD-COMMAND...: faultline $FL on PID while the load runs.
profile()
{
	local name=$1 pid=$2 json=$TMP/$1.json flpid bin=${FL%%:*} opts=()
	shift 2
	[[ $FL == *:* ]] && IFS=, read -r -a opts <<<"${FL#*:}"
	# a cold debuginfod client cache for every session, as on a host that never asked
	rm -rf "$TMP/debuginfod-cache"
	DEBUGINFOD_CACHE_PATH=$TMP/debuginfod-cache \
		"$bin" -q -f -d "$DURATION" --json "$json" $ALLOC "${opts[@]}" -p "$pid" \
		>/dev/null 2>"$TMP/fl.err" &
	flpid=$!
	# the load starts once faultline traces, its unwind tables loaded
	for _ in $(seq 200); do
		grep -q '^faultline: tracing' "$TMP/fl.err" && break
		sleep 0.1
	done
	timeout "$DURATION" "$@" >/dev/null 2>&1 || true
	wait "$flpid" || { cat "$TMP/fl.err" >&2; return 1; }
	printf '%-9s %-36s %s\n' "$name" "$FL" "$(share "$json")"
	[[ -z ${KEEP_JSON:-} ]] || cp "$json" "$KEEP_JSON/$name.json"
}

run_redis()
{
	local port
	port=$(free_port)
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$TMP" \
		>/dev/null 2>&1 &
	SERVER_PID=$!
	until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
	profile redis "$SERVER_PID" redis-benchmark -p "$port" -t set,get,lpush,sadd -n 100000000 \
		-r 1000000 -d 256 -q
	kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=""
}

run_mariadb()
{
	local sock=$TMP/my.sock port
	port=$(free_port)
	rm -rf "$TMP/my"
	mariadb-install-db --no-defaults --user=root --datadir="$TMP/my" >/dev/null 2>&1
	mariadbd --no-defaults --user=root --datadir="$TMP/my" --socket="$sock" --port="$port" \
		--bind-address=127.0.0.1 --skip-grant-tables >/dev/null 2>&1 &
	SERVER_PID=$!
	until mariadb -S "$sock" -e 'select 1' >/dev/null 2>&1; do sleep 0.2; done
	mariadb -S "$sock" -e 'create database sbtest'
	sysbench oltp_read_write --db-driver=mysql --mysql-socket="$sock" --mysql-user=root \
		--tables=4 --table-size=20000 prepare >/dev/null
	profile mariadb "$SERVER_PID" sysbench oltp_read_write --db-driver=mysql \
		--mysql-socket="$sock" --mysql-user=root --tables=4 --table-size=20000 --threads=4 \
		--time="$DURATION" run
	kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=""
}

run_postgres()
{
	local bin port pid
	bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
	port=$(free_port)
	install -d -o postgres "$TMP/pg"
	runuser -u postgres -- "$bin/initdb" -D "$TMP/pg" >/dev/null
	runuser -u postgres -- "$bin/pg_ctl" -D "$TMP/pg" -w -l "$TMP/pg/log" \
		-o "-p $port -k $TMP/pg -c listen_addresses=127.0.0.1" start >/dev/null
	pid=$(head -n 1 "$TMP/pg/postmaster.pid")
	runuser -u postgres -- "$bin/pgbench" -h 127.0.0.1 -p "$port" -i -s 5 postgres \
		>/dev/null 2>&1
	profile postgres "$pid" runuser -u postgres -- "$bin/pgbench" -h 127.0.0.1 -p "$port" \
		-c 4 -T "$DURATION" postgres
	runuser -u postgres -- "$bin/pg_ctl" -D "$TMP/pg" -m fast stop >/dev/null
	rm -rf "$TMP/pg"
}

echo "bench-stacks: ${DURATION}s each; /usr/lib/debug files: $(find /usr/lib/debug -name '*.debug' | wc -l); libc6-dbg: $(dpkg-query -W -f='${Status}' libc6-dbg 2>/dev/null | grep -q 'ok installed' && echo yes || echo no)," \
	"libstdc++6-12-dbg: $(dpkg-query -W -f='${Status}' libstdc++6-12-dbg 2>/dev/null | grep -q 'ok installed' && echo yes || echo no)," \
	"DEBUGINFOD_URLS=${DEBUGINFOD_URLS:-}"
# each binary on a server started afresh, so that each sees the same growth
for s in redis mariadb postgres; do
	[[ -n $ONLY && $ONLY != "$s" ]] && continue
	for FL in "$@"; do
		"run_$s"
	done
done
