#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The cache-ext-tools Debian package from a tree `make install
# DESTDIR=ROOT PREFIX=/usr` filled: its control files (dependencies,
# conffile, the maintainer scripts that enable and start cache-ext.service)
# and the .deb, named as Debian names it, in OUTDIR.
#
#   scripts/mkdeb.sh ROOT VERSION OUTDIR

set -euo pipefail

die() { echo "mkdeb: $*" >&2; exit 1; }

[ $# -eq 3 ] || die "usage: mkdeb.sh ROOT VERSION OUTDIR"
root=$1 version=$2 out=$3
[ -x "$root/usr/sbin/cachectl" ] || die "$root has no usr/sbin/cachectl; run make install DESTDIR=$root PREFIX=/usr first"
command -v dpkg-deb > /dev/null || die "dpkg-deb is missing (apt-get install dpkg)"

arch=$(dpkg --print-architecture)
pkg=cache-ext-tools
mkdir -p "$root/DEBIAN" "$out"

# What the binaries link, as Debian 12 names the libraries.
cat > "$root/DEBIAN/control" <<EOF
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: cache_ext developers <cache-ext@lists.invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: libc6 (>= 2.34), libelf1 (>= 0.144), zlib1g (>= 1:1.1.4), libmnl0 (>= 1.0.3), libjson-c5 (>= 0.15)
Section: admin
Priority: optional
Description: cache_ext eviction policies for memory cgroups, and their tools
 cachectl attaches BPF page cache eviction policies (lfu, mru, s3fifo,
 lhd, an MGLRU port, get_scan, admit_filter and the learned ml_protect and
 ml_rank, all included) to cgroups, binds them, and shows what they do;
 cache-ext.service binds the cgroups and systemd units of
 /etc/cache_ext/policies.conf from boot on and whenever they are created
 again.  lctrain trains the learned policies' model; cachesim runs the
 policies on traces.  Needs a kernel with CONFIG_CACHE_EXT=y.
EOF

echo /etc/cache_ext/policies.conf > "$root/DEBIAN/conffiles"

cat > "$root/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ] || [ "$1" = abort-upgrade ]; then
	deb-systemd-helper unmask cache-ext.service > /dev/null || true
	if deb-systemd-helper --quiet was-enabled cache-ext.service; then
		deb-systemd-helper enable cache-ext.service > /dev/null || true
	else
		deb-systemd-helper update-state cache-ext.service > /dev/null || true
	fi
	if [ -d /run/systemd/system ]; then
		systemctl --system daemon-reload > /dev/null || true
		deb-systemd-invoke restart cache-ext.service > /dev/null || true
	fi
fi
EOF

cat > "$root/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && [ "$1" = remove ]; then
	deb-systemd-invoke stop cache-ext.service > /dev/null || true
fi
EOF

cat > "$root/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload > /dev/null || true
fi
if [ "$1" = remove ] && [ -x /usr/bin/deb-systemd-helper ]; then
	deb-systemd-helper mask cache-ext.service > /dev/null || true
fi
if [ "$1" = purge ] && [ -x /usr/bin/deb-systemd-helper ]; then
	deb-systemd-helper purge cache-ext.service > /dev/null || true
	deb-systemd-helper unmask cache-ext.service > /dev/null || true
	rmdir --ignore-fail-on-non-empty /etc/cache_ext/policies.d /etc/cache_ext 2> /dev/null || true
fi
EOF
chmod 755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"

(cd "$root" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -print0 |
	sort -z | xargs -0 md5sum | sed 's|  \./|  |') > "$root/DEBIAN/md5sums"

deb="$out/${pkg}_${version}_${arch}.deb"
rm -f "$out/${pkg}"_*.deb	# one version in OUTDIR: the one just built
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" > /dev/null
echo "  DEB     $deb"
