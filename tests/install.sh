#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# `make install DESTDIR=... prefix=/usr` puts the binary and the man page where a package
# would, with their modes, and `make uninstall` takes both away. Needs no root: DESTDIR is a
# temporary directory.
# Usage: tests/install.sh [BUILD_DIR]   (default build)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(cd "$(dirname "$0")" && pwd)/check.sh"

mode() { stat -c %a "$1" 2>/dev/null || echo missing; }

make -s -C "$here" OUTPUT="$out" install DESTDIR="$tmp" prefix=/usr >"$tmp.log" 2>&1
check "make install DESTDIR=\$tmp prefix=/usr" $? "$(cat "$tmp.log")"
bin=$tmp/usr/sbin/faultline
page=$tmp/usr/share/man/man8/faultline.8
check "binary at /usr/sbin/faultline, mode 755" "$([ "$(mode "$bin")" = 755 ]; echo $?)" \
	"$(mode "$bin")"
check "man page at /usr/share/man/man8/faultline.8, mode 644" \
	"$([ "$(mode "$page")" = 644 ]; echo $?)" "$(mode "$page")"
check "the installed binary runs" "$("$bin" --version >/dev/null 2>&1; echo $?)"
cmp -s "$page" "$here/docs/faultline.8"
check "the installed page is docs/faultline.8" $?

make -s -C "$here" OUTPUT="$out" uninstall DESTDIR="$tmp" prefix=/usr >"$tmp.log" 2>&1
check "make uninstall" $? "$(cat "$tmp.log")"
check "both files gone" "$([ ! -e "$bin" ] && [ ! -e "$page" ]; echo $?)"
rm -f "$tmp.log"

echo "install: $pass passed, $fail failed"
[ "$fail" = 0 ]
