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
	librocksdb-dev ripgrep fio gnuplot-nox
"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run 'sudo make deps' (or install them with apt-get) and retry" >&2
	exit 1
fi

echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has empty package lists; refresh them once per run.
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
