#!/usr/bin/env bash
# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
#
# scripts/vm-run.sh [--kernel 5.10|6.1|6.12] [-m MB] [-t TIMEOUT_S] [-f FILE]... -- COMMAND [ARG...]
# scripts/vm-run.sh --kernel 5.10|6.1|6.12 --fetch-only
#
# Runs COMMAND as root in a throwaway VM booted with one of Debian's own kernels (6.1, Debian
# 12's, unless --kernel says otherwise), so that tests/portability.sh can check faultline's
# CO-RE programs on kernels other than the host's.
# QEMU emulates the CPU in software (TCG), the same on every machine and with no need for KVM;
# booting and powering off take about 3 s on the project's machines.
#
#   --kernel V    boot Debian's cloud kernel V: 5.10 (Debian 11), 6.1 (Debian 12, the default)
#                 or 6.12 (Debian 13)
#   --fetch-only  fetch the kernel into the cache if it is not there, print its path, boot
#                 nothing (exit 1, having said why, when it cannot be fetched)
#   -m MB         the VM's memory (default 1024)
#   -t TIMEOUT_S  give up after TIMEOUT_S seconds (default 300): exit status 124
#   -f FILE       copy FILE into the VM at the same (absolute) path, with the shared libraries
#                 ldd lists for it; once for each program or data file COMMAND needs
#
# Prints "@@KERNEL <release>", then COMMAND's output (stdout and stderr together), and exits
# with COMMAND's status. The VM has busybox's sh and applets, proc, sys, devtmpfs, tracefs,
# debugfs and bpffs mounted, no disk and no network; its whole file system is in memory.
#
# The 6.1 kernel is the newest linux-image-6.1.0-*-cloud-amd64-unsigned that the host's apt
# knows; 5.10 and 6.12 come from Debian 11's and 13's archives (bullseye, trixie main), read with
# an apt configuration of their own in a scratch folder, so the host's apt state is not touched.
# Each is fetched once with apt-get download into $FAULTLINE_VM_CACHE (default
# /var/cache/faultline-vm, 14-20 MB a kernel, named by its release); empty that folder to fetch
# newer ones. FAULTLINE_VM_KERNEL=FILE boots FILE instead.
# Needs qemu-system-x86, busybox-static and cpio (scripts/deps.sh installs them).
set -euo pipefail

mem=1024
timeout_s=300
files=()
cache=${FAULTLINE_VM_CACHE:-/var/cache/faultline-vm}
# The cloud flavour: small, with BTF, and the 8250 serial port, initramfs, gzip and devtmpfs
# built in (its virtio drivers are modules, so the VM uses none: serial ports and an initramfs).
version=6.1
fetch_only=false
work=""
fetch=""
apt_opts=()

usage()
{
	echo "usage: $0 [--kernel 5.10|6.1|6.12] [-m MB] [-t TIMEOUT_S] [-f FILE]... --" \
		"COMMAND [ARG...]" >&2
	echo "       $0 --kernel 5.10|6.1|6.12 --fetch-only" >&2
	exit 2
}

die()
{
	echo "vm-run: $*" >&2
	exit 1
}

# shellcheck disable=SC2317 # called by the trap
cleanup()
{
	rm -rf "$work" "$fetch"
}
trap cleanup EXIT

while (($#)); do
	case $1 in
	--kernel)
		[[ ${2:-} =~ ^(5\.10|6\.1|6\.12)$ ]] || usage
		version=$2
		shift 2
		;;
	--fetch-only)
		fetch_only=true
		shift
		;;
	-m)
		[[ ${2:-} =~ ^[0-9]+$ ]] || usage
		mem=$2
		shift 2
		;;
	-t)
		[[ ${2:-} =~ ^[0-9]+$ ]] || usage
		timeout_s=$2
		shift 2
		;;
	-f)
		[[ -n ${2:-} ]] || usage
		files+=("$2")
		shift 2
		;;
	--)
		shift
		break
		;;
	*) usage ;;
	esac
done
$fetch_only || (($#)) || usage

# The package's name, the suite it comes from (empty: the host's own lists) and the kernels of
# that version in the cache.
case $version in
5.10)
	pattern='^linux-image-5\.10\.0-[0-9]+-cloud-amd64-unsigned$' suite=bullseye glob='5.10.0-*'
	;;
6.1) pattern='^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$' suite="" glob='6.1.0-*' ;;
6.12)
	pattern='^linux-image-6\.12\.[0-9]+\+deb13-cloud-amd64-unsigned$' suite=trixie
	glob='6.12.*'
	;;
esac

command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 not found: install qemu-system-x86 (make deps)"
command -v cpio >/dev/null || die "cpio not found: install cpio (make deps)"
[[ -x /bin/busybox ]] || die "/bin/busybox not found: install busybox-static (make deps)"

newest_package()
{
	apt-cache "${apt_opts[@]}" search --names-only "$pattern" 2>/dev/null | cut -d' ' -f1 |
		sort -V | tail -n 1
}

# Another suite's package lists, in $fetch/apt alone: the host's sources, lists and caches
# stay as they are. Only the Packages index (8-10 MB); one try, 20 s without an answer.
private_apt()
{
	local dir=$fetch/apt
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	if [[ $(id -u) = 0 ]] && id _apt >/dev/null 2>&1; then
		chown _apt "$dir/lists/partial" "$dir/cache/archives/partial"
	fi
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		"http://deb.debian.org/debian $suite main" >"$dir/sources.list"
	apt_opts=(-o "Dir::Etc::sourcelist=$dir/sources.list" -o Dir::Etc::sourceparts=/nonexistent
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
		-o APT::Architectures=amd64 -o Acquire::Languages=none -o Acquire::Retries=0
		-o Acquire::http::Timeout=20)
	local t
	for t in DEP-11 DEP-11-icons DEP-11-icons-hidpi; do
		apt_opts+=(-o "Acquire::IndexTargets::deb::$t::DefaultEnabled=false")
	done
	echo "vm-run: reading Debian $suite's package list (a private apt configuration)" >&2
	# apt-get update exits 0 when a fetch fails: its lists say whether it worked
	apt-get -q "${apt_opts[@]}" update >"$fetch.log" 2>&1
	if ! compgen -G "$dir/lists/*_Packages*" >/dev/null; then
		grep '^[EW]:' "$fetch.log" | head -n 2 >&2
		rm -f "$fetch.log"
		die "cannot read Debian $suite's package list from deb.debian.org (no network?)"
	fi
	rm -f "$fetch.log"
}

# Fetches the package into a folder of its own, so that a run that fails half way or a
# concurrent one never leaves a partial kernel in the cache, then keeps only the kernel and
# its config (the modules are 90 MB the VM does not use).
fetch_kernel()
{
	local pkg deb config option release
	mkdir -p "$cache" 2>/dev/null || true
	[[ -w $cache ]] ||
		die "cannot write $cache: run as root or set FAULTLINE_VM_CACHE to a writable folder"
	fetch=$(mktemp -d "$cache/fetch.XXXXXX")
	# As root, apt downloads as the user _apt, which must be able to write there.
	if [[ $(id -u) = 0 ]] && id _apt >/dev/null 2>&1; then
		chown _apt "$fetch"
	fi
	[[ -z $suite ]] || private_apt
	pkg=$(newest_package)
	# A fresh install or container may have no package lists yet.
	if [[ -z $pkg && -z $suite && $(id -u) = 0 ]]; then
		apt-get update -qq >/dev/null 2>&1 || true
		pkg=$(newest_package)
	fi
	[[ -n $pkg ]] || die "apt knows no package like $pattern (Debian's $version kernel;" \
		"run apt-get update on Debian 12, or set FAULTLINE_VM_KERNEL to a vmlinuz)"
	echo "vm-run: fetching $pkg into $cache" >&2
	if ! (cd "$fetch" && apt-get "${apt_opts[@]}" download -q "$pkg") >"$fetch.log" 2>&1; then
		tail -n 5 "$fetch.log" >&2
		rm -f "$fetch.log"
		die "apt-get download $pkg failed"
	fi
	rm -f "$fetch.log"
	deb=("$fetch"/*.deb)
	dpkg -x "${deb[0]}" "$fetch/root"
	config=$(find "$fetch/root/boot" -name 'config-*' | head -n 1)
	[[ -n $config ]] || die "$pkg holds no /boot/config-*"
	release=${config##*/config-}
	# What this script relies on being built in rather than a module.
	for option in BLK_DEV_INITRD RD_GZIP DEVTMPFS SERIAL_8250_CONSOLE BINFMT_SCRIPT \
		BPF_SYSCALL DEBUG_INFO_BTF; do
		grep -qx "CONFIG_$option=y" "$config" ||
			die "$pkg: CONFIG_$option is not built in; the VM cannot use this kernel"
	done
	mv "$config" "$cache/config-$release"
	mv "$fetch/root/boot/vmlinuz-$release" "$cache/vmlinuz-$release"
}

cached_kernel()
{
	{ find "$cache" -maxdepth 1 -name "vmlinuz-$glob" 2>/dev/null || true; } | sort -V | tail -n 1
}

kernel=${FAULTLINE_VM_KERNEL:-}
if [[ -z $kernel ]]; then
	kernel=$(cached_kernel)
	if [[ -z $kernel ]]; then
		fetch_kernel
		kernel=$(cached_kernel)
	fi
fi
[[ -r $kernel ]] || die "cannot read the kernel $kernel"
if $fetch_only; then
	echo "$kernel"
	exit 0
fi

work=$(mktemp -d)
root=$work/root
mkdir -p "$root"/{bin,dev,etc,proc,root,run,sys,tmp}

# copy FILE: FILE at the same path in the VM and, when it is a dynamic ELF file, the libraries
# and loader ldd resolves for it (at the paths ldd names, which ld.so searches there too).
copy()
{
	local f=$1 libs lib
	mkdir -p "$root${f%/*}"
	cp -L "$f" "$root$f"
	[[ $(od -An -tx1 -N4 "$f" | tr -d ' ') = 7f454c46 ]] || return 0
	# A static program has none (ldd fails).
	libs=$(ldd "$f" 2>/dev/null | grep -o '/[^ ]*') || return 0
	while read -r lib; do
		[[ -e $root$lib ]] && continue
		mkdir -p "$root${lib%/*}"
		cp -L "$lib" "$root$lib"
	done <<<"$libs"
}

copy /bin/busybox
ln -s busybox "$root/bin/sh"
for f in "${files[@]}"; do
	[[ -f $f ]] || die "-f $f: no such file"
	# The path the command uses: absolute, symbolic links kept.
	[[ $f = /* ]] || f=$PWD/$f
	copy "$f"
done

# The command, quoted for sh.
for arg; do
	printf "'%s' " "${arg//\'/\'\\\'\'}"
done >"$root/cmd"

# ttyS0 is the kernel's console; the command writes to ttyS1 alone, so that no kernel message
# lands in its output. The last close of ttyS1 waits until all of it is sent.
cat >"$root/init" <<'EOF'
#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing || echo "vm-run: no tracefs"
mount -t debugfs debugfs /sys/kernel/debug || echo "vm-run: no debugfs"
mount -t bpf bpf /sys/fs/bpf || echo "vm-run: no bpffs"
stty -F /dev/ttyS1 -opost
{
	echo "@@KERNEL $(uname -r)"
	cd / && sh /cmd </dev/null 2>&1
	echo "@@EXIT $?" >/dev/console
} >/dev/ttyS1
poweroff -f
EOF
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$work/initrd.gz"

# panic=-1 and -no-reboot: if init dies, the kernel panics, reboots, and QEMU exits.
rc=0
timeout "$timeout_s" qemu-system-x86_64 -accel tcg -cpu max -smp 1 -m "$mem" \
	-kernel "$kernel" -initrd "$work/initrd.gz" -append "console=ttyS0 quiet panic=-1" \
	-nographic -monitor none -serial "file:$work/console" -serial "file:$work/out" \
	-vga none -nic none -no-reboot </dev/null >"$work/qemu" 2>&1 || rc=$?
cat "$work/out" 2>/dev/null || true
# The last lines the kernel and init printed, without the firmware's terminal escapes.
console_tail()
{
	tr -d '\r' <"$work/console" | sed 's/\x1bc//g; s/\x1b\[[0-9;?]*[a-zA-Z]//g' | tail -n 20 >&2
	cat "$work/qemu" >&2
}
if ((rc == 124)); then
	console_tail
	echo "vm-run: timed out after $timeout_s s" >&2
	exit 124
fi
# The console may put terminal escapes before it on the line.
code=$(tr -d '\r' <"$work/console" | sed -n 's/^.*@@EXIT \([0-9]*\)$/\1/p' | tail -n 1)
if [[ -z $code ]]; then
	echo "vm-run: the VM stopped before the command ended (qemu exited with $rc); console tail:" >&2
	console_tail
	exit 1
fi
exit "$code"
