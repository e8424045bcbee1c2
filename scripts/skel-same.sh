#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# scripts/skel-same.sh MAIN_SKEL LEGACY_SKEL: whether the legacy object's skeleton declares what
# the main one does (maps, programs, links and global variables, in the same order and layout),
# so that the loader may open the legacy object through the main skeleton (user/probes/objects.c).
# Maps of its own are allowed: the skeleton does not name them, and libbpf makes them at load.
# Prints the difference and exits 1 otherwise.
set -euo pipefail
decl() { # the skeleton's struct, its name made neutral
	sed -n '/^struct faultline\(_legacy\)\? {$/,/^};$/p' "$1" | sed 's/faultline_legacy/faultline/g'
}
d=$(diff <(decl "$1") <(decl "$2") | grep '^[<>]' || true)
if printf '%s\n' "$d" | grep -v '^>[[:space:]]*struct bpf_map \*[a-z_0-9]*;$' | grep -q .; then
	printf '%s\n' "$d"
	echo "skel-same: $2 differs from $1: the legacy object must define the same maps," \
		"programs and globals" >&2
	exit 1
fi
