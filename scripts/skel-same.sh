#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# scripts/skel-same.sh MAIN_SKEL LEGACY_SKEL: whether the loader may open the legacy object
# through the main skeleton (user/probes/objects.c): every map and program the main one names
# is in the legacy one (by name: the skeleton finds them so), and each global data section has
# the same layout (the skeleton reads the globals at their offsets). Maps of its own are
# allowed: libbpf makes them at load. Prints what differs and exits 1 otherwise.
set -euo pipefail
struct() { # the skeleton's struct, its name made neutral
	sed -n '/^struct faultline\(_legacy\)\? {$/,/^};$/p' "$1" | sed 's/faultline_legacy/faultline/g'
}
names() { # the names of its members of type @2 (bpf_map, bpf_program)
	struct "$1" | sed -n "s/^\t\tstruct $2 \*\([a-z_0-9]*\);$/\1/p" | sort
}
data() { # its global data sections' layouts
	struct "$1" | sed -n '/^\tstruct faultline__\(bss\|data\|rodata\|kconfig\)[a-z_.]* {$/,/^\t} \*[a-z_]*;$/p'
}
bad=0
for what in bpf_map bpf_program; do
	missing=$(comm -23 <(names "$1" $what) <(names "$2" $what))
	if [ -n "$missing" ]; then
		echo "skel-same: $2 lacks the ${what#bpf_}s" $missing >&2
		bad=1
	fi
done
if ! diff -u <(data "$1") <(data "$2") >&2; then
	echo "skel-same: $2 lays its globals out otherwise than $1" >&2
	bad=1
fi
exit $bad
