#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/vm.sh and make vm as a user meets them: a command's quotes and
# $VARIABLES reach the guest as written, the guest's reboot line is not
# printed, a qemu that cannot start is reported as such.  Boots the VM
# twice (a few seconds each, minutes on a loaded machine: vm.sh's default
# 600 s timeout guards against a hang only); needs the kernel built.
# Prints TAP.

set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tests/tap.sh
. "$TOP/scripts/tests/tap.sh"
# shellcheck disable=SC2016 # expanded by check()
TAP_SHOW='"$out"'
out=$(mktemp)
trap 'rm -f "$out"' EXIT

tap_plan 4

# $CACHE_EXT_SCRATCH is the guest's; single quotes and a $$ survive make.
make -s -C "$TOP" vm CMD='echo "scratch=$CACHE_EXT_SCRATCH" '\''two words'\'' $((6 * 7))' \
	> "$out" 2>&1
status=$?
check "make vm: CMD reaches the guest's shell as written" \
	eval '[ $status -eq 0 ] && tr -d "\r" < "$out" | grep -qx "scratch=/run/scratch two words 42"'
check "the guest's reboot line is not printed" \
	eval '! grep -q "reboot: Restarting system" "$out"'

"$TOP/scripts/vm.sh" -- sh -c 'exit 3' > "$out" 2>&1
status=$?
check "vm.sh: the command's exit status" eval '[ $status -eq 3 ]'

VM_QEMU_ARGS="-no-such-qemu-option" "$TOP/scripts/vm.sh" -- true > "$out" 2>&1
status=$?
check "vm.sh: a qemu that cannot start is said to be qemu's failure (125)" \
	eval '[ $status -eq 125 ] && grep -q "^vm.sh: qemu failed (exit 1, accel=tcg)" "$out" &&
	      grep -q "^vm.sh: qemu: .*no-such-qemu-option" "$out"'

tap_done
