#!/usr/bin/env bash
# Build (once) the test OpenTelemetry Collector and print the binary's path.
#
#   tests/otelcol/build.sh      -> stdout: /var/cache/faultline/otelcol-<hash>/otelcol
#
# Exit 0 with the path on stdout; exit 77 (skip) with one line on stderr when
# no usable Go toolchain is found; any other failure exits non-zero.
# The binary is cached in ${FAULTLINE_CACHE:-/var/cache/faultline}, keyed by
# the sha256 of go.mod, go.sum and main.go, so an unchanged tree returns at
# once without running go. Concurrent runs are safe: the build goes to a temp
# file that is renamed into place, and a lock (when flock(1) exists) lets the
# second run wait for the first instead of building twice.
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

for f in go.mod go.sum main.go; do
	if [[ ! -f $src/$f ]]; then
		echo "otelcol: $src/$f is missing" >&2
		exit 1
	fi
done

hash=$(cat "$src/go.mod" "$src/go.sum" "$src/main.go" | sha256sum)
hash=${hash:0:16}

base=${FAULTLINE_CACHE:-/var/cache/faultline}
dir=$base/otelcol-$hash
bin=$dir/otelcol

if [[ -x $bin ]]; then
	echo "$bin"
	exit 0
fi

# Find a Go toolchain new enough for go.mod's "go" line.
need=$(awk '$1 == "go" { print $2; exit }' "$src/go.mod")
go_bin=
for cand in "$(command -v go || true)" /usr/local/go/bin/go; do
	[[ -n $cand && -x $cand ]] || continue
	have=$(GOTOOLCHAIN=local "$cand" env GOVERSION 2>/dev/null || true)
	have=${have#go}
	[[ -n $have ]] || continue
	if [[ $(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n1) == "$need" ]]; then
		go_bin=$cand
		break
	fi
done
if [[ -z $go_bin ]]; then
	echo "otelcol: no Go toolchain >= $need found (looked in PATH and /usr/local/go/bin/go)" >&2
	exit 77
fi

mkdir -p "$dir"

# Without HOME, go cannot place its module and build caches: keep them here.
if [[ -z ${HOME:-} ]]; then
	export GOPATH=${GOPATH:-$base/go} GOCACHE=${GOCACHE:-$base/go-build}
fi

tmp=
build() {
	# Another run may have finished while we waited for the lock.
	if [[ -x $bin ]]; then
		return 0
	fi
	tmp=$(mktemp "$dir/otelcol.tmp.XXXXXX")
	trap 'rm -f "$tmp"' EXIT
	echo "otelcol: building test collector with $go_bin (first build takes minutes)" >&2
	# go.mod/go.sum are never rewritten (-mod=readonly); all go output to stderr.
	(
		cd "$src"
		GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0 \
			"$go_bin" build -trimpath -ldflags "-s -w" -o "$tmp" .
	) >&2
	chmod 0755 "$tmp"
	mv -f "$tmp" "$bin"
	trap - EXIT
}

if command -v flock >/dev/null 2>&1; then
	exec 9>"$dir/.lock"
	flock 9
	build
	exec 9>&-
else
	build
fi

echo "$bin"
