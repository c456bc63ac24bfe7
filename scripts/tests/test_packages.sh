#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install, make uninstall and make deb as an administrator meets them,
# on the host (nothing is installed outside a scratch directory): what
# lands where, that the installed tools find their installed policies, that
# the manual pages render and list every cachectl command, that an edited
# configuration survives a reinstall and an uninstall, and the package's
# name, version, contents, conffile and maintainer scripts.  Needs the
# tools and policies built (make tools bpf).  Prints TAP.

set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tests/tap.sh
. "$TOP/scripts/tests/tap.sh"
tap_workdir
# shellcheck disable=SC2016 # expanded by check()
TAP_SHOW='"$WORK/out"'
root=$WORK/root
version=$("$TOP/scripts/version.sh")

tap_plan 15

make -s -C "$TOP" install DESTDIR="$root" PREFIX=/usr > "$WORK/out" 2>&1
status=$?
check "make install DESTDIR PREFIX=/usr succeeds" eval '[ $status -eq 0 ]'

nr_policies=$(ls "$TOP"/bpf/*.bpf.c | wc -l)
check "the tools, every policy object and every host policy are installed" \
	eval '[ -x "$root/usr/sbin/cachectl" ] && [ -x "$root/usr/bin/lctrain" ] &&
	      [ -x "$root/usr/bin/cachesim" ] &&
	      [ "$(ls "$root"/usr/lib/cache_ext/bpf/*.bpf.o | wc -l)" -eq $nr_policies ] &&
	      [ "$(ls "$root"/usr/lib/cache_ext/cachesim/*.so | wc -l)" -eq $nr_policies ]'

check "the unit runs the installed cachectl apply --watch, and reloads with SIGHUP" \
	eval 'grep -qx "ExecStart=/usr/sbin/cachectl apply --watch" "$root/usr/lib/systemd/system/cache-ext.service" &&
	      grep -qx "Type=notify" "$root/usr/lib/systemd/system/cache-ext.service" &&
	      grep -q "^ExecReload=.*-HUP" "$root/usr/lib/systemd/system/cache-ext.service"'

# The installed cachesim looks for its policies where they were installed;
# the installed cachectl finds the installed objects beside itself.
"$root/usr/bin/cachesim" -h > "$WORK/out" 2>&1
check "the installed cachesim names its installed policy directory" \
	grep -q "/usr/lib/cache_ext/cachesim" "$WORK/out"
CACHECTL_BPF_DIR= "$root/usr/sbin/cachectl" apply -h > "$WORK/out" 2>&1
check "the installed cachectl runs" grep -q "^usage: cachectl apply" "$WORK/out"

# Every command cachectl -h lists has its section in cachectl(8).
ok=1
for c in $("$root/usr/sbin/cachectl" -h | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
	zcat "$root/usr/share/man/man8/cachectl.8.gz" | grep -qx ".SS $c" || ok=0
done
check "cachectl(8) has a section for every command of cachectl -h" eval '[ $ok -eq 1 ]'

ok=1
: > "$WORK/out"
for page in man8/cachectl.8 man1/lctrain.1 man1/cachesim.1 man7/cache_ext.7; do
	if ! MANWIDTH=80 man --warnings -l "$root/usr/share/man/$page.gz" \
		> "$WORK/page" 2>> "$WORK/out" || [ ! -s "$WORK/page" ]; then
		ok=0
	fi
done
check "the four manual pages render without a warning" \
	eval '[ $ok -eq 1 ] && [ ! -s "$WORK/out" ]'
check "the pages carry the version" \
	eval 'zcat "$root/usr/share/man/man1/lctrain.1.gz" | grep -q "cache_ext $version"'

echo "bind db lfu" >> "$root/etc/cache_ext/policies.conf"
make -s -C "$TOP" install DESTDIR="$root" PREFIX=/usr > "$WORK/out" 2>&1
check "a second install keeps the edited configuration" \
	eval 'tail -n 1 "$root/etc/cache_ext/policies.conf" | grep -qx "bind db lfu"'

make -s -C "$TOP" uninstall DESTDIR="$root" PREFIX=/usr > "$WORK/out" 2>&1
check "make uninstall removes everything but the configuration" \
	eval '[ -z "$(find "$root" -type f ! -path "*/etc/cache_ext/*")" ] &&
	      [ -f "$root/etc/cache_ext/policies.conf" ]'

make -s -C "$TOP" deb-tools > "$WORK/out" 2>&1
status=$?
deb=$TOP/build/deb/cache-ext-tools_${version}_$(dpkg --print-architecture).deb
check "make deb-tools builds cache-ext-tools_VERSION_ARCH.deb" \
	eval '[ $status -eq 0 ] && [ -f "$deb" ]'
dpkg-deb -I "$deb" > "$WORK/out" 2>&1
check "its control: name, version from the repository, dependencies" \
	eval 'grep -qx " Package: cache-ext-tools" "$WORK/out" &&
	      grep -qx " Version: $version" "$WORK/out" &&
	      grep -q "^ Depends: .*libmnl0" "$WORK/out"'
dpkg-deb -c "$deb" > "$WORK/out" 2>&1
check "its contents: tools, policies, unit, pages, configuration, owned by root" \
	eval 'grep -q " root/root .* ./usr/sbin/cachectl$" "$WORK/out" &&
	      grep -q "./usr/lib/cache_ext/bpf/lfu.bpf.o$" "$WORK/out" &&
	      grep -q "./usr/lib/systemd/system/cache-ext.service$" "$WORK/out" &&
	      grep -q "./usr/share/man/man7/cache_ext.7.gz$" "$WORK/out" &&
	      grep -q "./etc/cache_ext/policies.conf$" "$WORK/out"'
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles > "$WORK/out" 2>&1
check "the configuration is a conffile" \
	grep -qx "/etc/cache_ext/policies.conf" "$WORK/out"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst > "$WORK/out" 2>&1
check "postinst enables the unit and starts it where systemd runs" \
	eval 'grep -q "deb-systemd-helper enable cache-ext.service" "$WORK/out" &&
	      grep -q "deb-systemd-invoke restart cache-ext.service" "$WORK/out" &&
	      sh -n "$WORK/out"'

tap_done
