#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# Runs each libFuzzer target built in OUT (make fuzz) for SECONDS: first on its committed seeds
# and regressions (tests/fuzz/corpus/NAME) and the seeds built here (OUT/seeds/NAME: ELF objects
# from elf_seed.c, rather than binaries kept in git), then mutating them; what it finds new goes to
# OUT/corpus/NAME, a crash to OUT/crashes/NAME-*. Prints the inputs each target ran and fails
# when one crashed, leaked, hit undefined behaviour, timed out or ran out of memory.
# Usage: tests/fuzz/run.sh OUT [SECONDS]   (default 20)
set -uo pipefail
if [ $# -lt 1 ]; then
	echo "usage: $0 OUT [SECONDS]" >&2
	exit 2
fi
out=$(cd "$1" && pwd)
secs=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0

# fuzz_elf's built seeds: both ELF classes, a library with a build-id, the same stripped with a
# debuglink, a truncated copy and a static executable
elf_seeds() {
	local dir=$1 src=$here/elf_seed.c
	mkdir -p "$dir"
	cc -O1 -c "$src" -o "$dir/rel64.o" &&
		clang -target i386-linux-gnu -O1 -c "$src" -o "$dir/rel32.o" &&
		cc -O1 -shared -fPIC -nostdlib -Wl,--build-id "$src" -o "$dir/shared.so" &&
		cc -O1 -static -nostdlib -Wl,-e,helper -Wl,--build-id "$src" -o "$dir/static-exec" &&
		objcopy --only-keep-debug "$dir/shared.so" "$dir/shared.debug" &&
		strip --strip-all "$dir/shared.so" -o "$dir/stripped-debuglink.so" &&
		objcopy --add-gnu-debuglink="$dir/shared.debug" "$dir/stripped-debuglink.so" &&
		rm "$dir/shared.debug" &&
		head -c 300 "$dir/shared.so" >"$dir/truncated.so"
}
if ! elf_seeds "$out/seeds/elf"; then
	echo "fuzz: building fuzz_elf's seeds from $here/elf_seed.c failed"
	exit 1
fi

for src in "$here"/fuzz_*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	bin=$out/fuzz_$name
	log=$out/$name.log
	mkdir -p "$out/corpus/$name" "$out/seeds/$name" "$out/crashes"
	dict=()
	if [ -f "$here/$name.dict" ]; then
		dict=(-dict="$here/$name.dict")
	fi
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/crashes/$name-" "${dict[@]}" \
		"$out/corpus/$name" "$here/corpus/$name" "$out/seeds/$name" >"$log" 2>&1
	status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	corpus=$(find "$out/corpus/$name" "$here/corpus/$name" "$out/seeds/$name" -type f | wc -l)
	printf '  fuzz_%-9s %10s inputs in %ss, %s, corpus %s\n' "$name" "${runs:-?}" "$secs" \
		"${cov:-cov: ?}" "$corpus"
	if [ "$status" -ne 0 ]; then
		failed=$((failed + 1))
		echo "  FAIL fuzz_$name exited with status $status; the end of $log:"
		tail -n 40 "$log" | sed 's/^/    /'
		echo "  the input: $(ls "$out/crashes/$name-"* 2>/dev/null | head -n 1);" \
			"fix, then add it to tests/fuzz/corpus/$name as a regression"
	else
		passed=$((passed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
