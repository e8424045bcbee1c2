#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# The layering of user/: each stage folder includes only the stages it may depend on (the
# README's "Source layout" says why). Data flows one way, events -> BPF maps -> trace ->
# symbols -> model -> views and formats (probes loads and attaches the programs that fill the
# maps), and the program at the top of user/ joins them.
# Fails, naming the file, line and rule, on any other include; run by make check and make test.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

# What each stage may include besides itself and the shared BPF contract (bpf/faultline.h and
# the *_math.h headers). The program (user/*.c, user/*.h) may include anything.
declare -A may=(
	[base]=""
	[model]="base"
	[symbols]="base"
	[probes]="base symbols"
	[trace]="base model symbols"
	[views]="base model"
	[formats]="base model"
	[ship]="base model formats"
)
# Libraries that belong to one stage: the BPF programs are loaded in probes and their maps
# read in trace alone (and libbpf's log set up in main.c), ELF files in symbols, probes (the
# allocator's symbols) and trace, instructions decoded in probes, the terminal in views.
declare -A lib_stages=(
	["bpf/"]="probes trace"
	["gelf.h"]="symbols probes trace"
	["libelf.h"]="symbols probes trace"
	["capstone/"]="probes"
	["elfutils/"]="symbols"
	["lzma.h"]="symbols"
	["curses.h"]="views"
	["zlib.h"]="formats"
	["curl/"]="ship"
)

fail=0 files=0
bad() {
	echo "$1: $2"
	fail=$((fail + 1))
}

allowed() { # allowed STAGE TARGET-STAGE
	[ "$1" = "$2" ] && return 0
	case " ${may[$1]} " in *" $2 "*) return 0 ;; esac
	return 1
}

check_file() {
	local f=$1 stage lineno inc dep
	stage=$(dirname "${f#user/}")
	[ "$stage" = . ] && stage=top
	if [ "$stage" != top ] && [ -z "${may[$stage]+set}" ]; then
		bad "$f" "user/$stage/ is not a known stage: add it to tests/layers.sh with its rule"
		return
	fi
	files=$((files + 1))
	while IFS=: read -r lineno inc; do
		inc=${inc#*#include }
		case $inc in
		\"*/*\")
			dep=${inc#\"}
			dep=${dep%%/*}
			if [ -z "${may[$dep]+set}" ]; then
				bad "$f:$lineno" "$inc is not in a stage folder"
			elif [ "$stage" != top ] && ! allowed "$stage" "$dep"; then
				bad "$f:$lineno" "$stage/ must not include $inc (it may use: ${may[$stage]:-nothing but itself})"
			fi
			;;
		\"faultline.skel.h\" | \"exitmaps.skel.h\" | \"legacy.skel.h\")
			[ "$stage" = probes ] ||
				bad "$f:$lineno" "the BPF skeleton belongs to probes/ alone"
			;;
		\"*.bpf.h\")
			bad "$f:$lineno" "$inc is BPF-only code"
			;;
		\"*\")
			dep=${inc#\"}
			dep=${dep%\"}
			if [ -f "bpf/$dep" ]; then
				: # the shared contract: every stage may use it
			elif [ -f "user/$dep" ]; then
				[ "$stage" = top ] || bad "$f:$lineno" "$stage/ must not include the program's $inc"
			else
				bad "$f:$lineno" "$inc: no such header in user/ or bpf/ (write \"stage/name.h\")"
			fi
			;;
		\<*\>)
			dep=${inc#<}
			dep=${dep%>}
			for lib in "${!lib_stages[@]}"; do
				case $dep in "$lib"*) ;; *) continue ;; esac
				case " ${lib_stages[$lib]} top " in
				*" $stage "*) ;;
				*) bad "$f:$lineno" "$stage/ must not include $inc (only ${lib_stages[$lib]})" ;;
				esac
			done
			;;
		esac
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include' "$f")
}

for f in user/*.[ch] user/*/*.[ch]; do
	check_file "$f"
done
if [ "$files" = 0 ]; then
	echo "layers: no source files found"
	exit 1
fi
echo "layers: $files files, $fail bad includes"
[ "$fail" = 0 ]
