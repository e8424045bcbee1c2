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

unit=$tmp/usr/lib/systemd/system/faultline.service
conf=$tmp/etc/default/faultline
check "unit at /usr/lib/systemd/system/faultline.service, mode 644" \
	"$([ "$(mode "$unit")" = 644 ]; echo $?)" "$(mode "$unit")"
grep -q '^ExecStart=/usr/sbin/faultline -q --plain \$FAULTLINE_TARGET --every \$FAULTLINE_EVERY' "$unit"
check "the unit runs the installed binary with the options of /etc/default/faultline" $? \
	"$(grep -E 'ExecStart|EnvironmentFile' "$unit" 2>&1)"
grep -q '^EnvironmentFile=/etc/default/faultline$' "$unit"
check "the unit reads /etc/default/faultline" $?
# the options file is sourced by systemd: each variable set, and a shell reads it the same way
(set -e; . "$conf"; [ -n "$FAULTLINE_TARGET" ] && [ "$FAULTLINE_EVERY" -ge 1 ] &&
	[ -n "$FAULTLINE_SHIP" ])
check "/etc/default/faultline sets the target, the window and the endpoint" $?
# the options it gives make a command line faultline accepts
(. "$conf"; "$bin" $FAULTLINE_TARGET --every "$FAULTLINE_EVERY" $FAULTLINE_SHIP \
	$FAULTLINE_OPTS --help >/dev/null 2>&1)
check "its default options parse" $?
echo 'FAULTLINE_EVERY=5' >"$conf"
make -s -C "$here" OUTPUT="$out" install DESTDIR="$tmp" prefix=/usr >"$tmp.log" 2>&1
check "make install again keeps the options file as the administrator left it" \
	"$(grep -qx 'FAULTLINE_EVERY=5' "$conf"; echo $?)" "$(cat "$conf")"

make -s -C "$here" OUTPUT="$out" uninstall DESTDIR="$tmp" prefix=/usr >"$tmp.log" 2>&1
check "make uninstall" $? "$(cat "$tmp.log")"
check "binary, page and unit gone" "$([ ! -e "$bin" ] && [ ! -e "$page" ] && [ ! -e "$unit" ]; echo $?)"
check "the options file stays (the administrator's)" "$([ -e "$conf" ]; echo $?)"
rm -f "$tmp.log"

echo "install: $pass passed, $fail failed"
[ "$fail" = 0 ]
