#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# insn-profile.sh SETUP [OTHER]: where a bench/core_overhead setup spends
# its instructions, per kernel function.
#
# Boots the VM with the insn_profile QEMU plugin (bench/insn_profile/),
# runs core_overhead -p SETUP in it (the setup alone, under -icount), and
# prints the 40 kernel functions that executed the most guest
# instructions.  With OTHER, it profiles that setup in a second boot and
# prints the 40 largest differences, OTHER minus SETUP: e.g.
# "unbound fifo" shows what fifo's binding costs.  The whole VM is
# counted (boot and setup too), so compare functions, not totals, and
# repeat a run before trusting a difference of a few percent.
#
# Environment: PROFILE_ARGS (default "-r 3 -n 40000") for core_overhead;
# the Makefile passes PLUGIN, BENCH and VMLINUX.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
PLUGIN=${PLUGIN:-$TOP/build/bench/libinsn_profile.so}
BENCH=${BENCH:-$TOP/build/bench/core_overhead}
VMLINUX=${VMLINUX:-$TOP/build/kbuild/vmlinux}
OUT=$TOP/build/bench
PROFILE_ARGS=${PROFILE_ARGS:--r 3 -n 40000}

usage() {
	echo "usage: $0 SETUP [OTHER]   (setups: off unbound noop hooks fifo; make profile-core)"
	exit "$1"
}
[ "${1:-}" = -h ] && usage 0
[ $# -ge 1 ] && [ $# -le 2 ] || usage 2
for f in "$PLUGIN" "$BENCH" "$VMLINUX"; do
	[ -e "$f" ] || { echo "insn-profile.sh: $f is missing; run make profile-core" >&2; exit 1; }
done

# Kernel text symbols, "ADDRESS 0 NAME".
SYMS=$(mktemp)
trap 'rm -f "$SYMS"' EXIT
nm -n --defined-only "$VMLINUX" | awk '$2 ~ /^[tTwW]$/ { print $1, 0, $3 }' > "$SYMS"

# Profile SETUP into $OUT/profile-SETUP.txt: "COUNT FUNCTION", largest first.
profile() {
	local setup=$1 raw=$OUT/profile-$1.raw
	# shellcheck disable=SC2086 # PROFILE_ARGS is a list of arguments
	VM_QEMU_ARGS="-icount shift=0 -plugin $PLUGIN,out=$raw" \
		"$TOP/scripts/vm.sh" -t 1800 -- "$BENCH" -p "$setup" $PROFILE_ARGS >&2
	[ -s "$raw" ] || { echo "insn-profile.sh: the plugin wrote no counts ($raw)" >&2; exit 1; }
	# Addresses are 16 hex digits: sorted as text, each block ("1")
	# follows the symbol ("0") it starts in.
	awk '{ print $1, 1, $2 }' "$raw" | cat "$SYMS" - | LC_ALL=C sort -k1,1 -k2,2 |
		awk '$2 == 0 { fn = $3; next }
		     { n[fn == "" ? "?" : fn] += $3 }
		     END { for (f in n) print n[f], f }' |
		sort -k1,1nr > "$OUT/profile-$setup.txt"
}

profile "$1"
if [ $# -eq 1 ]; then
	echo "instructions per kernel function, $1 (core_overhead -p $1 $PROFILE_ARGS):"
	head -40 "$OUT/profile-$1.txt"
	exit 0
fi
profile "$2"
echo "instructions per kernel function, $2 minus $1 (core_overhead -p SETUP $PROFILE_ARGS):"
printf '%14s %14s %14s  %s\n' "$2-$1" "$1" "$2" function
awk 'NR == FNR { a[$2] = $1; next } { b[$2] = $1 }
     END { for (f in a) if (!(f in b)) b[f] = 0
	   for (f in b) printf "%14d %14d %14d  %s\n", b[f] - a[f], a[f], b[f], f }' \
	"$OUT/profile-$1.txt" "$OUT/profile-$2.txt" |
	awk '{ d = $1 < 0 ? -$1 : $1; print d, $0 }' | sort -k1,1nr | cut -d' ' -f2- |
	sed -n '1,40p'	# reads it all: head would end cut with SIGPIPE (exit 141)
