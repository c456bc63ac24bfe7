#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages cache_ext needs to build its kernel, tools,
# BPF policies and to boot the test VM.  Idempotent and non-interactive:
# packages already present are not touched, so a warm machine pays one
# dpkg-query call.

set -eu

PKGS="
	build-essential bc bison flex cpio kmod rsync xz-utils git
	libelf-dev libssl-dev zlib1g-dev libzstd-dev libcap-dev pkg-config
	dwarves ccache
	clang-19 llvm-19 lld-19
	linux-source-6.12
	qemu-system-x86 e2fsprogs busybox-static
	libmnl-dev libjson-c-dev
	python3-ply python3-git
	librocksdb-dev libleveldb-dev ripgrep fio gnuplot-nox
	man-db debootstrap debhelper
"

TOP=$(cd "$(dirname "$0")/.." && pwd)
# linux-source-6.12 at the version kernel/BASE records, the tree the series
# was tested on; "linux-source-6.12 6.12.117-1~deb12u1" -> name, version.
BASE_PKG=$(sed -n 's/^package //p' "$TOP/kernel/BASE")
SRC_PKG=${BASE_PKG% *}
SRC_VER=${BASE_PKG#* }
LOG=$TOP/build/deps.log

installed_version() {
	dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null |
		sed -n 's/^install ok installed //p'
}

missing=""
for p in $PKGS; do
	if [ "$p" = "$SRC_PKG" ]; then
		continue
	fi
	if [ -z "$(installed_version "$p")" ]; then
		missing="$missing $p"
	fi
done
src_have=$(installed_version "$SRC_PKG")

if [ -z "$missing" ] && [ "$src_have" = "$SRC_VER" ]; then
	exit 0
fi
# A different linux-source-6.12 is fine only if the tested one is gone
# from the archive; that is decided below, after the package lists are
# fresh, and never for a non-root user who cannot change it.
if [ -z "$missing" ] && [ -n "$src_have" ] && [ "$(id -u)" -ne 0 ]; then
	echo "deps: $SRC_PKG $src_have is installed; the series was tested on $SRC_VER" >&2
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	[ -n "$src_have" ] || missing="$missing $SRC_PKG"
	echo "deps: missing packages:$missing" >&2
	echo "deps: run 'sudo make deps' (or install them with apt-get) and retry" >&2
	exit 1
fi

mkdir -p "$TOP/build"
: > "$LOG"
export DEBIAN_FRONTEND=noninteractive
echo "deps: refreshing the package lists (apt-get update; log: ${LOG#"$TOP"/})"
apt-get update >> "$LOG" 2>&1 || {
	echo "deps: apt-get update failed; see $LOG" >&2
	exit 1
}

# The tested kernel source if the archive still has it, else the newest
# 6.12.y, said out loud: scripts/kernel.sh then tries the series on it.
if apt-cache madison "$SRC_PKG" | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
		grep -qxF "$SRC_VER"; then
	want_src="$SRC_PKG=$SRC_VER"
	[ "$src_have" = "$SRC_VER" ] && want_src=
else
	echo "deps: WARNING: $SRC_PKG $SRC_VER (the tested kernel tree, kernel/BASE) is no longer in the archive;" >&2
	echo "deps: WARNING: using the newest $SRC_PKG instead; make kernel says whether the series applies to it" >&2
	want_src=$SRC_PKG
	[ -n "$src_have" ] && want_src=
fi

# shellcheck disable=SC2086
set -- $missing $want_src
if [ $# -eq 0 ]; then
	exit 0
fi
echo "deps: installing $# packages, a few minutes on a fresh machine:$missing${want_src:+ $want_src}"
# One line per 30 s while apt works, so that a long install is not silent.
(
	while sleep 30; do
		echo "deps: ... $(grep -c '^Unpacking ' "$LOG") packages unpacked," \
		     "$(grep -c '^Setting up ' "$LOG") set up"
	done
) &
ticker=$!
status=0
apt-get install -y --no-install-recommends --allow-downgrades "$@" >> "$LOG" 2>&1 || status=$?
kill "$ticker" 2>/dev/null
wait "$ticker" 2>/dev/null || true
if [ $status -ne 0 ]; then
	tail -n 20 "$LOG" >&2
	echo "deps: apt-get install failed (exit $status); full log: $LOG" >&2
	exit 1
fi
echo "deps: done ($(grep -c '^Setting up ' "$LOG") packages set up)"
