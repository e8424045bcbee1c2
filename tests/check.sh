# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# Sourced by the tests/*.sh scripts: the tally of their checks, each printed as it is made.
pass=0 fail=0

check() { # check NAME STATUS [DETAIL]
	if [ "$2" = 0 ]; then pass=$((pass + 1)); echo "  ok   $1"
	else fail=$((fail + 1)); echo "  FAIL $1${3:+: $3}"; fi
}
