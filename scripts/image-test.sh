#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make image-test: the packages of make deb installed, as an administrator
# installs them, into a fresh debootstrapped Debian 12 (not the test VM's
# initramfs), booted twice in qemu with the installed kernel and systemd.
# The image has a service (demo.service) that /etc/cache_ext/policies.d/
# gives lfu; scripts/image-guest.sh checks, in the guest: cache-ext.service
# started, the service's cgroup bound at boot, cachectl status agreeing
# with memory.cache_ext, a systemctl restart bound again, the man pages,
# the module's package; and after a reboot, the binding at boot again, then
# the removal and purge.  Prints TAP; exits non-zero on any failure.
#
#   scripts/image-test.sh DEB_DIR KERNEL_RELEASE
#
# Needs root (debootstrap, chroot) and Debian's mirror (IMAGE_MIRROR); the
# base system is downloaded once and kept in build/image/base.tar.

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/build/image
MIRROR=${IMAGE_MIRROR:-http://deb.debian.org/debian}
BOOT_TIMEOUT=${IMAGE_BOOT_TIMEOUT:-900}
# What the image has besides the minimal base: systemd to boot it, man to
# read the pages, kmod for the module, what the tools link.
INCLUDE=systemd,systemd-sysv,dbus,kmod,man-db,init-system-helpers,libelf1,libmnl0,libjson-c5,zlib1g

die() { echo "image-test: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: image-test.sh DEB_DIR KERNEL_RELEASE"
debs=$1 krel=$2
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap and chroot)"
command -v debootstrap > /dev/null || die "debootstrap is missing; run make deps"
for p in cache-ext-tools "linux-image-$krel" "cache-ext-ctl-modules-$krel"; do
	ls "$debs/${p}"_*.deb > /dev/null 2>&1 || die "no $debs/${p}_*.deb; run make deb first"
done

mkdir -p "$OUT"
log=$OUT/image-test.log
: > "$log"
step() { echo "  IMAGE   $*"; }

# The base system, downloaded once for this package list.
base=$OUT/base-$(echo "$INCLUDE" | md5sum | cut -c1-8).tar
if [ ! -f "$base" ]; then
	step "downloading Debian 12 minbase + systemd (once; log: ${log#"$TOP"/})"
	rm -rf "$OUT/dl"
	debootstrap --variant=minbase --include="$INCLUDE" \
		--make-tarball="$base.tmp" bookworm "$OUT/dl" "$MIRROR" >> "$log" 2>&1 ||
		die "debootstrap --make-tarball failed; see $log"
	mv "$base.tmp" "$base"
	rm -rf "$OUT/dl"
fi

root=$OUT/root
rm -rf "$root"
step "debootstrap into ${root#"$TOP"/}"
debootstrap --variant=minbase --include="$INCLUDE" --unpack-tarball="$base" \
	bookworm "$root" "$MIRROR" >> "$log" 2>&1 || die "debootstrap failed; see $log"

# The machine: its root file system, a service configured for lfu, and the
# guest's checks as the last unit of its boot.
echo image > "$root/etc/hostname"
echo "/dev/vda / ext4 defaults 0 1" > "$root/etc/fstab"
cat > "$root/etc/systemd/system/demo.service" <<'EOF'
[Unit]
Description=a service whose page cache cache_ext evicts

[Service]
ExecStart=/bin/sleep infinity
MemoryAccounting=yes

[Install]
WantedBy=multi-user.target
EOF
cat > "$root/etc/systemd/system/image-test.service" <<'EOF'
[Unit]
Description=make image-test's checks
DefaultDependencies=no
After=sysinit.target basic.target cache-ext.service demo.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/image-guest.sh
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
EOF
install -m 755 "$TOP/scripts/image-guest.sh" "$root/usr/local/sbin/image-guest.sh"
mkdir -p "$root/etc/cache_ext/policies.d"
echo "bind unit:demo.service lfu" > "$root/etc/cache_ext/policies.d/demo.conf"
for u in demo image-test; do
	ln -sf "/etc/systemd/system/$u.service" \
		"$root/etc/systemd/system/multi-user.target.wants/$u.service"
done
# No login prompt on the console the checks print on.
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"

step "installing the packages with dpkg in the image"
mkdir -p "$root/tmp/debs"
cp "$debs"/cache-ext-tools_*.deb "$debs/linux-image-${krel}"_*.deb \
	"$debs/cache-ext-ctl-modules-${krel}"_*.deb "$root/tmp/debs/"
chroot "$root" sh -c 'dpkg -i /tmp/debs/*.deb' >> "$log" 2>&1 ||
	die "dpkg -i in the image failed; see $log"
rm -rf "$root/tmp/debs"
[ -L "$root/etc/systemd/system/multi-user.target.wants/cache-ext.service" ] ||
	die "the package did not enable cache-ext.service"
vmlinuz=$root/boot/vmlinuz-$krel
[ -f "$vmlinuz" ] || die "the kernel package installed no /boot/vmlinuz-$krel"
cp "$vmlinuz" "$OUT/vmlinuz"

disk=$OUT/disk.img
rm -f "$disk"
mkfs.ext4 -q -F -L root -d "$root" "$disk" 1536M >> "$log" 2>&1 ||
	die "mkfs.ext4 -d failed; see $log"

boot() {
	local phase=$1 out=$OUT/boot$1.log
	step "booting the image, phase $phase (log: ${out#"$TOP"/})"
	timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -machine q35 -cpu max -smp 2 -m 2048 \
		-nographic -no-reboot -kernel "$OUT/vmlinuz" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 image_test.phase=$phase systemd.show_status=0" \
		-drive "file=$disk,format=raw,if=virtio" > "$out" 2>&1 || true
	tr -d '\r' < "$out" | grep '^IMAGE ' || true
}

{
	boot 1
	boot 2
} > "$OUT/results"

total=$(grep -Ec '^IMAGE (not )?ok ' "$OUT/results" || true)
echo "TAP version 13"
echo "1..$((total + 2))"
sed -n 's/^IMAGE \(\(not \)\{0,1\}ok\) [0-9]* - /\1 - /p; s/^IMAGE #/#/p' "$OUT/results" |
	awk '/^(not )?ok/ { sub(/ - /, " " ++n " - ") } { print }'
failed=$(grep -c '^IMAGE not ok ' "$OUT/results" || true)
n=$total
for phase in 1 2; do
	n=$((n + 1))
	if grep -q "^IMAGE phase $phase done" "$OUT/results"; then
		echo "ok $n - phase $phase ran to its end"
	else
		echo "not ok $n - phase $phase ran to its end (see build/image/boot$phase.log)"
		failed=$((failed + 1))
	fi
done
echo "# $((total + 2 - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
