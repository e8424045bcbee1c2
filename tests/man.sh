#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# The man page (docs/faultline.8) against the binary, so the two cannot drift:
#  - it renders without a single groff warning (skipped without groff);
#  - every long option `faultline --help` lists is documented in it;
#  - its title line names the version `faultline --version` prints;
#  - every column header of every table (the capitalized string literals of user/views and
#    user/diff.c, comments left out) is in it: a new column must be defined there.
# Usage: tests/man.sh [BUILD_DIR]   (default build)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
fl=$here/${1:-build}/faultline
man=$here/docs/faultline.8
. "$(cd "$(dirname "$0")" && pwd)/check.sh"

if command -v groff >/dev/null 2>&1; then
	warnings=$(groff -man -ww -z "$man" 2>&1)
	check "groff renders docs/faultline.8 without warnings" "$([ -z "$warnings" ]; echo $?)" \
		"$warnings"
else
	echo "  skip groff not installed: the page's rendering is not checked"
fi

# Long options as --help lists them ("  -p, --pid=PID", "      --vm"), and the page's text with
# roff's escaped hyphens made plain.
opts=$("$fl" --help | grep -oE '^ +(-[[:alnum:]], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*')
text=$(sed 's/\\-/-/g' "$man")
check "--help lists long options" "$([ -n "$opts" ]; echo $?)"
for o in $opts; do
	grep -qE -- "(^|[^a-z-])$o([^a-z-]|\$)" <<<"$text"
	check "man page documents $o" $?
done

# Column headers: "LIVE-B", "CALLERS > ALLOCATOR", "LAST INT" ...; the tree's first column
# is the metric's name, whose METRICS entry defines it.
headers=$(cat "$here"/user/views/*.c "$here"/user/diff.c | grep -vE '^\s*/?\*' |
	sed 's|/\*.*\*/||' | grep -oE '"[A-Z][A-Z0-9~/+-]+( [A-Z>][A-Z0-9~/+-]*)*"' |
	tr -d '"' | sort -u)
check "the sources have table column headers" "$([ -n "$headers" ]; echo $?)"
while IFS= read -r h; do
	re=$(sed 's/[+]/\\+/g' <<<"$h")
	grep -qE -- "(^|[^A-Za-z0-9-])$re([^A-Za-z0-9-]|\$)" <<<"$text"
	check "man page defines column $h" $?
done <<<"$headers"

version=$("$fl" --version | awk '{ print $2 }')
grep -qE "^\.TH FAULTLINE 8 [^ ]+ \"faultline $version\"" "$man"
check "man page title names version $version" $?

echo "man: $pass passed, $fail failed"
[ "$fail" = 0 ]
