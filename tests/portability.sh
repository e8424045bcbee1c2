#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# Portability: the same faultline binary loads, attaches and reports on Debian 12's own 6.1
# kernel (in a throwaway VM). 6.1 batches RSS counter updates per thread, so faultline must say
# so, and the page-fault counts it falls back on must be exact: touch_a/b/c touch 4/8/12 MiB,
# that is 1024/2048/3072 faults of 4 KiB pages. --alloc must work there too, through perf
# uprobes (uprobe_multi links came in 6.6): the allocs workload's leak_path and direct_caller
# allocate 100000 and 777 bytes. -f must load its fork program there (a raw tracepoint read
# with CO-RE) and follow the forker workload's child: child_grow touches 4 MiB (1024 faults) in
# the child, parent_grow 2 MiB (512) in the parent.
set -uo pipefail
out=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
vm=${QEMU_KERNEL_RUN:-$here/../shared/tools/qemu-kernel-run}
fl=$here/$out/faultline
wl=$here/$out/workloads/threads
al=$here/$out/workloads/allocs
fk=$here/$out/workloads/forker
pass=0 fail=0

check() { # check NAME CONDITION-RESULT
	if [ "$2" = 0 ]; then pass=$((pass + 1)); echo "  ok   $1"; else fail=$((fail + 1)); echo "  FAIL $1"; fi
}

if [ ! -x "$vm" ]; then
	echo "portability: $vm not found: cannot boot the 6.1 kernel"
	echo "portability: 0 passed, 1 failed"
	exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$vm" -m 1024 -t 400 -f "$fl" -f "$wl" -f "$al" -f "$fk" -- sh -c \
	"$fl -q --folded /tmp/f -- $wl --now --exit 4 8 12 2>&1; echo \"@@RC \$?\";
	 $fl -q --alloc --metric alloc-bytes --folded /tmp/a -- $al --now --exit 2>&1;
	 echo \"@@ALLOC_RC \$?\";
	 $fl -q -f --folded /tmp/c -- $fk --now --exit 4 2 0 2>&1; echo \"@@FORK_RC \$?\";
	 echo @@FORK; cat /tmp/c; echo @@ALLOC; cat /tmp/a; echo @@FOLDED; cat /tmp/f" \
	>"$log" 2>&1
echo "portability: on $(sed -n 's/^@@KERNEL //p' "$log" | head -1)"
grep -q '^@@RC 0$' "$log"; check "faultline exits 0 on the 6.1 kernel" $?
grep -q 'batches RSS counter updates' "$log"; check "it says that this kernel batches RSS counters" $?
faults() { sed -n '/^@@FOLDED/,$p' "$log" | awk -v f="$1" '$0 ~ ";"f" " {s += $NF} END {print s + 0}'; }
within() { awk -v g="$1" -v w="$2" 'BEGIN {d = g - w; if (d < 0) d = -d; exit !(d <= w * 0.02)}'; }
for fn in touch_a:1024 touch_b:2048 touch_c:3072; do
	got=$(faults "${fn%:*}")
	within "$got" "${fn#*:}"; check "${fn%:*}: $got faults, expected ${fn#*:} (2%)" $?
done
grep -q '^@@ALLOC_RC 0$' "$log"; check "faultline --alloc exits 0 on the 6.1 kernel" $?
alloc() { sed -n '/^@@ALLOC/,/^@@FOLDED/p' "$log" | awk -v e="$1" 'index($0, e" ") {s += $NF} END {print s + 0}'; }
for e in "leak_path;malloc:100000" "direct_caller;malloc:777"; do
	got=$(alloc "${e%:*}")
	[ "$got" = "${e#*:}" ]; check "--alloc ${e%:*}: $got bytes, expected ${e#*:}" $?
done
grep -q '^@@FORK_RC 0$' "$log"; check "faultline -f exits 0 on the 6.1 kernel" $?
grep -q 'processes by faults: 2,' "$log"; check "-f: the report lists both processes" $?
forked() { sed -n '/^@@FORK/,/^@@ALLOC/p' "$log" | awk -v f="$1" '$0 ~ ";"f" " {s += $NF} END {print s + 0}'; }
for fn in child_grow:1024 parent_grow:512; do
	got=$(forked "${fn%:*}")
	within "$got" "${fn#*:}"; check "-f ${fn%:*}: $got faults, expected ${fn#*:} (2%)" $?
done
[ $fail = 0 ] || { echo "--- VM output:"; tail -40 "$log"; }
echo "portability: $pass passed, $fail failed"
[ $fail = 0 ]
