#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# scripts/demo.sh (make demo) exits 0 however long the folded file it shows: run against a
# stand-in faultline (no root, no BPF) that writes 20,000 folded lines, more than a pipe
# holds, where `sort | head` under pipefail failed the demo with status 141 (issue 25).
# Usage: tests/script_demo.sh
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(cd "$(dirname "$0")" && pwd)/check.sh"

# the stand-in: writes --folded FILE as faultline would, header line included
mkdir -p "$tmp/out/workloads"
cat >"$tmp/out/faultline" <<'STUB'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do
	case $1 in --folded) folded=$2; shift ;; --svg) : >"$2"; shift ;; esac
	shift
done
{
	echo '# faultline folded metric=resident by=stack'
	for i in $(seq 1 20000); do echo "demo;worker;main;fn_$i $i"; done
} >"$folded"
STUB
chmod +x "$tmp/out/faultline"

"$here/scripts/demo.sh" "$tmp/out" >"$tmp/log" 2>&1
status=$?
check "demo.sh exits 0 on 20,000 folded lines" "$([ $status = 0 ]; echo $?)" \
	"status $status: $(tail -5 "$tmp/log")"
grep -qx 'demo;worker;main;fn_20000 20000' "$tmp/log"
check "... and shows the heaviest stack first" $? "$(tail -12 "$tmp/log")"
grep -q '^# faultline folded' "$tmp/log"
check "... not the folded file's header line" "$([ $? = 1 ]; echo $?)" "$(tail -12 "$tmp/log")"

echo "script_demo: $pass passed, $fail failed"
[ "$fail" = 0 ]
