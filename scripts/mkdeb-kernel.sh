#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb's kernel half, in OUTDIR: linux-image-KREL and linux-headers-KREL
# (the kernel's own bindeb-pkg of the built kernel: cache_ext built in) and
# cache-ext-ctl-modules-KREL (the companion module built for it, installed
# in /lib/modules/KREL/extra, where modprobe and cachectl find it).
#
#   scripts/mkdeb-kernel.sh KSRC KOUT CTL_KO VERSION OUTDIR
#
# The kernel is the one make kernel built, with its configuration
# (tinyconfig + kernel/configs/cache_ext.config: what the tests and make
# image-test boot, virtio disks only).  A kernel for other hardware needs
# that machine's configuration with cache_ext.config merged; not built here.

set -euo pipefail

die() { echo "mkdeb-kernel: $*" >&2; exit 1; }

[ $# -eq 5 ] || die "usage: mkdeb-kernel.sh KSRC KOUT CTL_KO VERSION OUTDIR"
ksrc=$1 kout=$2 ko=$3 version=$4 out=$5
krel=$(cat "$kout/include/config/kernel.release") || die "$kout has no built kernel"
[ -f "$ko" ] || die "no $ko; run make module"
arch=$(dpkg --print-architecture)
mkdir -p "$out"
log=$out/bindeb-pkg.log

echo "  DEB     linux-image-$krel (bindeb-pkg; log: $log)"
# bindeb-pkg writes beside the build directory; only this run's files move,
# and replace any other version in OUTDIR.
rm -f "$kout"/../linux-*_"$version"_*.deb "$out/linux-image-$krel"_*.deb \
	"$out/linux-headers-$krel"_*.deb "$out/cache-ext-ctl-modules-$krel"_*.deb
PATH=/usr/lib/ccache:$PATH make -C "$ksrc" O="$kout" -j"$(($(nproc) + 1))" \
	KDEB_PKGVERSION="$version" bindeb-pkg > "$log" 2>&1 ||
	{ tail -n 30 "$log"; die "bindeb-pkg failed"; }
for p in linux-image linux-headers; do
	mv "$kout/../${p}-${krel}_${version}_${arch}.deb" "$out/" ||
		die "bindeb-pkg made no ${p}-${krel}_${version}_${arch}.deb"
done
# Not for a machine's package set: it would replace Debian's.
rm -f "$kout"/../linux-libc-dev_"$version"_*.deb "$kout"/../linux-upstream_"$version"_*

# bindeb-pkg relinked vmlinux (its version string is the package's), and
# the module's BTF is split BTF on top of vmlinux's: link it again against
# the packaged vmlinux, as make module does (it must not relink vmlinux).
extmod=$(dirname "$(dirname "$ko")")
rm -f "$ko"
make -s -C "$kout" M="$extmod" CONFIG_CACHE_EXT_CTL=m modules >> "$log" 2>&1 ||
	{ tail -n 30 "$log"; die "the module did not build against the packaged kernel"; }

pkg=cache-ext-ctl-modules-$krel
root=$out/$pkg
rm -rf "$root"
install -D -m 644 "$ko" "$root/lib/modules/$krel/extra/cache_ext_ctl.ko"
mkdir -p "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<EOF
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: cache_ext developers <cache-ext@lists.invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: linux-image-$krel
Section: kernel
Priority: optional
Description: cache_ext_ctl, the companion module of cache_ext, for $krel
 The control module of cache_ext: the registered policies and bound
 cgroups in sysfs, decision-latency histograms in debugfs, the model store
 of the learned policies, and the netlink family cachectl uses.
EOF
cat > "$root/DEBIAN/postinst" <<EOF
#!/bin/sh
set -e
depmod -a $krel
EOF
cat > "$root/DEBIAN/postrm" <<EOF
#!/bin/sh
set -e
if [ -d /lib/modules/$krel ]; then
	depmod -a $krel
fi
EOF
chmod 755 "$root/DEBIAN/postinst" "$root/DEBIAN/postrm"
(cd "$root" && find lib -type f -print0 | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out/${pkg}_${version}_${arch}.deb" > /dev/null
rm -rf "$root"
echo "  DEB     $out/${pkg}_${version}_${arch}.deb"
