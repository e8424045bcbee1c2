#!/bin/sh
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# Installs what faultline's build and tests need on Debian 12 or Ubuntu, and only what is
# missing: on a machine that has everything it installs nothing and prints nothing.
# Installing needs root; when something is missing and we are not root, it says what and
# exits 1. It mounts nothing (faultline mounts tracefs itself when it has to).
set -eu

# libcapstone-dev: probe placement (--alloc); libjemalloc2, libtcmalloc-minimal4: the
# allocators the --alloc tests preload; libncurses-dev: the interactive view; librsvg2-bin:
# rsvg-convert, which the unit tests use to render the --svg flame graph to PNG;
# qemu-system-x86, busybox-static, cpio: scripts/vm-run.sh, which boots Debian 12's 6.1 kernel
# for tests/portability.sh; clang-format: make check; clang-rt: clang's runtime (libFuzzer,
# ASan, UBSan) for make fuzz and make unit-sanitize.
# libdw-dev: DWARF lines and inlined frames; liblzma-dev: MiniDebugInfo; libdebuginfod1 (loaded
# at run time when DEBUGINFOD_URLS is set) and debuginfod (the server the tests start).
# libcurl4-openssl-dev: --otlp and --pyroscope (HTTP and TLS); openssl: the certificate the
# https test makes. Go is not installed here (Debian's is too old for the test collector):
# the OTLP tests run where /usr/local/go or a go on PATH is, and say they are skipped if not.
PACKAGES="libbpf-dev bpftool clang llvm libelf-dev zlib1g-dev libcriterion-dev pkg-config make gcc elfutils
libcapstone-dev libjemalloc2 libtcmalloc-minimal4 libncurses-dev librsvg2-bin
qemu-system-x86 busybox-static cpio clang-format clang-rt
libdw-dev liblzma-dev libdebuginfod1 debuginfod libcurl4-openssl-dev openssl"

dpkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# A package counts as present when what we use from it is there, whoever installed it
# (a hand-built bpftool or clang is fine), or when dpkg says it is installed.
have() {
	case "$1" in
	libbpf-dev) test -f /usr/include/bpf/libbpf.h ;;
	libelf-dev) test -f /usr/include/libelf.h -a -f /usr/include/gelf.h ;;
	zlib1g-dev) test -f /usr/include/zlib.h ;;
	libcriterion-dev) test -f /usr/include/criterion/criterion.h ;;
	libcapstone-dev) test -f /usr/include/capstone/capstone.h ;;
	libdw-dev) test -f /usr/include/elfutils/libdw.h ;;
	liblzma-dev) test -f /usr/include/lzma.h ;;
	libcurl4-openssl-dev) test -f /usr/include/x86_64-linux-gnu/curl/curl.h -o \
		-f /usr/include/curl/curl.h ;;
	libdebuginfod1) test -f /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 ;;
	libncurses-dev) test -f /usr/include/ncursesw/curses.h -o -f /usr/include/curses.h ;;
	libjemalloc2) test -f /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ;;
	libtcmalloc-minimal4) test -f /usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 ;;
	librsvg2-bin) command -v rsvg-convert >/dev/null 2>&1 ;;
	qemu-system-x86) command -v qemu-system-x86_64 >/dev/null 2>&1 ;;
	# vm-run.sh copies /bin/busybox into the VM with its libraries, so any build serves.
	busybox-static) test -x /bin/busybox ;;
	clang-rt) test -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ;;
	# Ubuntu's /usr/sbin/bpftool is a wrapper that fails without the kernel's own tools.
	bpftool) bpftool version >/dev/null 2>&1 ;;
	llvm) command -v llvm-strip >/dev/null 2>&1 ;;
	elfutils) command -v eu-stack >/dev/null 2>&1 ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac && return 0
	# bpftool must run, not merely be installed.
	test "$1" != bpftool && dpkg_installed "$1"
}

has_candidate() {
	apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'
}

# Debian ships bpftool as a package; Ubuntu ships it in linux-tools-<kernel release>.
bpftool_packages() {
	if has_candidate bpftool; then
		echo bpftool
		return
	fi
	echo linux-tools-common linux-tools-generic
	if has_candidate "linux-tools-$(uname -r)"; then
		echo "linux-tools-$(uname -r)"
	fi
}

# clang's runtime for the installed (or about to be) clang: Debian 12 ships it as
# libclang-rt-N-dev, Ubuntu 22.04 inside libclang-common-N-dev.
clang_rt_package() {
	v=$(clang -dumpversion 2>/dev/null ||
		apt-cache depends clang 2>/dev/null | sed -n 's/.*Depends: clang-\([0-9]*\).*/\1/p')
	v=${v%%.*}
	if has_candidate "libclang-rt-$v-dev"; then
		echo "libclang-rt-$v-dev"
	else
		echo "libclang-common-$v-dev"
	fi
}

# When Ubuntu's wrapper still finds no tools for the running kernel (a kernel other than
# linux-generic's), any installed build of bpftool serves: it is not tied to a kernel.
link_bpftool() {
	bin=$(ls -d /usr/lib/linux-tools*/bpftool /usr/lib/linux-tools/*/bpftool 2>/dev/null |
		sort -V | tail -n 1)
	if test -z "$bin"; then
		echo "deps.sh: bpftool does not run and no /usr/lib/linux-tools*/bpftool exists" >&2
		exit 1
	fi
	mkdir -p /usr/local/sbin
	ln -sf "$bin" /usr/local/sbin/bpftool
	echo "deps.sh: linked /usr/local/sbin/bpftool -> $bin"
}

missing=""
for pkg in $PACKAGES; do
	have "$pkg" || missing="$missing $pkg"
done
test -z "$missing" && exit 0

if test "$(id -u)" -ne 0; then
	echo "deps.sh: missing:$missing; run as root to install them (e.g. sudo make deps)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
install=""
for pkg in $missing; do
	if test "$pkg" = bpftool; then
		install="$install $(bpftool_packages | tr '\n' ' ')"
	elif test "$pkg" = clang-rt; then
		install="$install $(clang_rt_package)"
	else
		install="$install $pkg"
	fi
done
echo "deps.sh: installing$install"
# shellcheck disable=SC2086 # the list is meant to split into words
apt-get install -y -qq --no-install-recommends $install

PATH="/usr/local/sbin:$PATH"
hash -r
if ! have bpftool; then
	link_bpftool
fi
for pkg in $missing; do
	if ! have "$pkg"; then
		echo "deps.sh: $pkg is still missing after apt-get install" >&2
		exit 1
	fi
done
