#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the cache_ext kernel in qemu and run one command inside it.
#
#   scripts/vm.sh [-t SECONDS] [-d IMAGE] [-o DIR] [-i] [--kvm] [--] COMMAND...
#
# The guest sees the host's / read-only over virtio-9p (so the command and
# everything it uses are the host's files at the same paths), tmpfs on
# /tmp, /run, /root and /var/tmp, this repository at its host path even if
# that is under one of those, and a fresh ext4 scratch disk (virtio-blk)
# mounted at $CACHE_EXT_SCRATCH (/run/scratch); -d attaches an ext4 image
# as a read-only second disk, mounted at $CACHE_EXT_DATA (/run/data); -o
# shares a host directory writable, at $CACHE_EXT_OUT (/run/out).  The
# command runs as root in the guest's root cgroup, in the directory it was
# started from on the host.
#
# Exit status: the command's, or 124 if the VM hit its timeout (default
# 600 s) and was killed, or 125 if qemu failed or the guest died before
# reporting a status (each said apart on stderr).
# Use -i for an interactive shell (serial console on this terminal).
# VM_QEMU_ARGS adds qemu options (split on blanks), e.g. "-icount shift=0"
# for a guest clock that counts instructions (bench-core uses it).
# VM_APPEND adds guest kernel parameters, e.g. "tsc=unstable".

set -euo pipefail

# The whole script is one block, read before any of it runs: editing the
# file while a long run uses it cannot change what that run does.
{

TOP=$(cd "$(dirname "$0")/.." && pwd)
VMDIR=$TOP/build/vm
KERNEL=${KERNEL:-$TOP/build/kbuild/arch/x86/boot/bzImage}
TIMEOUT=600
INTERACTIVE=0
DATA=
OUTDIR=
ACCEL=tcg
MEM=${VM_MEM:-2G}
SMP=${VM_SMP:-2}

usage() {
	sed -n '4,23p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	-t) TIMEOUT=$2; shift 2 ;;
	-d) DATA=$2; shift 2 ;;
	-o) OUTDIR=$2; shift 2 ;;
	-i) INTERACTIVE=1; shift ;;
	--kvm) ACCEL=kvm; shift ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	-*) echo "vm.sh: unknown option $1" >&2; usage 2 >&2 ;;
	*) break ;;
	esac
done

[ $# -gt 0 ] || [ $INTERACTIVE -eq 1 ] || usage 2 >&2
[ -z "$DATA" ] || [ -f "$DATA" ] || { echo "vm.sh: no data image at $DATA" >&2; exit 2; }
[ -z "$OUTDIR" ] || [ -d "$OUTDIR" ] || { echo "vm.sh: no directory $OUTDIR for -o" >&2; exit 2; }
[ -f "$KERNEL" ] || { echo "vm.sh: no kernel at $KERNEL; run 'make kernel'" >&2; exit 2; }
if [ "$ACCEL" = kvm ] && [ ! -w /dev/kvm ]; then
	echo "vm.sh: --kvm asked for but /dev/kvm is not usable" >&2
	exit 2
fi

mkdir -p "$VMDIR"
RUN=$(mktemp -d "$VMDIR/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT

# The command, quoted for the guest's shell, and where to run it.
{
	printf 'cd %q 2>/dev/null || cd /\n' "$PWD"
	if [ $INTERACTIVE -eq 1 ] && [ $# -eq 0 ]; then
		# The serial console has no size of its own: the host's, so
		# that long lines wrap where the terminal does.
		if size=$(stty size 2>/dev/null) && [ "$size" != "0 0" ]; then
			printf 'stty -F /dev/ttyS0 rows %d cols %d\n' $size
		fi
		# A controlling terminal, so that job control and ^C work.
		echo 'exec setsid -c bash -i </dev/ttyS0 >/dev/ttyS0 2>&1'
	else
		printf '%q ' "$@"
		echo
	fi
} > "$RUN/cmd"

truncate -s 1G "$RUN/scratch.img"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$RUN/scratch.img"

# ZONE_MOVABLE (movablecore=), where page cache goes first and kernel
# allocations cannot: evict.zone_constrained_reclaim_spares_other_zones
# needs reclaim that may free only the zones below it.  512M: KASAN's
# shadow (1/8 of memory) is allocated from the top, inside it.
QEMU=(qemu-system-x86_64
	-machine pc,accel="$ACCEL" -cpu ${VM_CPU:-max} -smp "$SMP" -m "$MEM"
	-kernel "$KERNEL"
	-append "console=ttyS0 loglevel=4 root=/dev/root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=524288,cache=loose ro init=$TOP/scripts/vm-init.sh panic=-1 movablecore=512M cache_ext_vm.top=$TOP cache_ext_vm.cmd=$RUN/cmd${VM_APPEND:+ $VM_APPEND}"
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root
	-fsdev local,id=top,path="$TOP",security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=top,mount_tag=cache_ext_top
	-drive file="$RUN/scratch.img",if=virtio,format=raw,cache=unsafe
	-net none -no-reboot)
[ -z "$DATA" ] || QEMU+=(-drive file="$DATA",if=virtio,format=raw,readonly=on)
[ -z "$OUTDIR" ] || QEMU+=(-fsdev "local,id=out,path=$OUTDIR,security_model=none"
	-device virtio-9p-pci,fsdev=out,mount_tag=cache_ext_out)
# shellcheck disable=SC2206 # split on blanks on purpose
QEMU+=(${VM_QEMU_ARGS:-})

if [ $INTERACTIVE -eq 1 ]; then
	exec "${QEMU[@]}" -nographic
fi

# The guest's own lines about the way out are the runner's business.
set +e
timeout -k 5 "$TIMEOUT" "${QEMU[@]}" -display none -monitor none \
	-serial stdio < /dev/null 2> "$RUN/qemu.err" | tee "$RUN/console" | \
	grep --line-buffered -av -e '^cache_ext-vm: exit status' \
		-e '^\[ *[0-9.]*\] reboot: Restarting system'
qemu_rc=${PIPESTATUS[0]}
set -e

if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
	echo "vm.sh: VM killed after the ${TIMEOUT}s timeout" >&2
	exit 124
fi
status=$(sed -n 's/^cache_ext-vm: exit status \([0-9]*\).*/\1/p' "$RUN/console" | tail -n 1)
if [ -n "$status" ]; then
	exit "$status"
fi
# A guest that panics or powers off makes qemu exit 0 (-no-reboot); an
# error status is qemu's own failure, and its message says why.
if [ "$qemu_rc" -ne 0 ]; then
	sed 's/^/vm.sh: qemu: /' "$RUN/qemu.err" >&2
	echo "vm.sh: qemu failed (exit $qemu_rc, accel=$ACCEL)" >&2
	[ "$ACCEL" != kvm ] ||
		echo "vm.sh: KVM does not work here: run without --kvm (make: without KVM=1)" >&2
	exit 125
fi
cat "$RUN/qemu.err" >&2
echo "vm.sh: the guest stopped without reporting an exit status (kernel panic or crash? see the console above)" >&2
exit 125
exit
}
