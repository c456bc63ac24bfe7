#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the Debian image of scripts/image-test.sh, as the last unit of
# its boot (image-test.service): checks what an administrator would after
# installing the packages, prints one "IMAGE ok|not ok N - what" line each
# on the console, then reboots (phase 1) or powers off (phase 2, after
# removing every package it installed, the running kernel's last).  The
# phase is image_test.phase= on the kernel command line.

n=0
phase=$(sed -n 's/.*image_test\.phase=\([0-9]\).*/\1/p' /proc/cmdline)
sel=/sys/fs/cgroup/system.slice/demo.service/memory.cache_ext

say() { echo "IMAGE $*" > /dev/console; }

check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@" > /tmp/check.out 2>&1; then
		say "ok $n - phase $phase: $name"
	else
		say "not ok $n - phase $phase: $name"
		sed 's/^/IMAGE #   /' /tmp/check.out | head -n 20 > /dev/console
	fi
}

# Up to 5 s for FILE to read TEXT (a cgroup is bound a little after it is
# created).
reads() {
	i=0
	while [ $i -lt 50 ]; do
		[ "$(cat "$1" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "$1 reads '$(cat "$1" 2>&1)', not '$2'"
	return 1
}

restart_rebinds() {
	systemctl restart demo.service && reads "$sel" lfu
}

status_ok() {
	cachectl status > /tmp/status 2>&1 || { cat /tmp/status; return 1; }
	cat /tmp/status
	grep -q "^unit:demo.service .* lfu .* lfu .* ok$" /tmp/status
}

say "phase $phase: $(uname -r), systemd $(systemctl --version | sed -n 1p)"
check "cache-ext.service is active" systemctl is-active --quiet cache-ext.service
check "the configured unit's cgroup is bound at boot" reads "$sel" lfu
check "cachectl status agrees with memory.cache_ext" status_ok

if [ "$phase" = 1 ]; then
	check "systemctl restart of the unit: its new cgroup is bound again" \
		restart_rebinds
	check "man cachectl renders, with apply" \
		sh -c 'MANWIDTH=80 man cachectl 2>&1 | grep -q "cachectl apply"'
	check "man cache_ext renders" \
		sh -c 'MANWIDTH=80 man 7 cache_ext 2>&1 | grep -q "Inheritance"'
	check "the companion module loads from its package" \
		sh -c 'modprobe cache_ext_ctl && test -d /sys/kernel/cache_ext'
	say "phase 1 done: $n checks; rebooting"
	systemctl reboot
	exit 0
fi

check "after a reboot, a restart of the unit is bound again too" \
	restart_rebinds
check "apt-get remove cache-ext-tools" \
	sh -c 'DEBIAN_FRONTEND=noninteractive apt-get remove -y cache-ext-tools'
check "removed: the tools and the unit (masked while its configuration stays), the service stopped" \
	sh -c '! [ -e /usr/sbin/cachectl ] && ! [ -e /lib/systemd/system/cache-ext.service ] &&
	       ! systemctl is-active --quiet cache-ext.service'
check "the configuration stays until the purge" \
	test -f /etc/cache_ext/policies.conf
check "dpkg --purge removes its configuration and the unit's mask" \
	sh -c 'dpkg --purge cache-ext-tools && ! [ -e /etc/cache_ext/policies.conf ] &&
	       ! [ -e /etc/systemd/system/cache-ext.service ]'
krel=$(uname -r)
check "the module's and the kernel's packages remove cleanly too" \
	sh -c "dpkg --purge cache-ext-ctl-modules-$krel linux-image-$krel &&
	       ! [ -e /lib/modules/$krel/extra/cache_ext_ctl.ko ] && ! [ -e /boot/vmlinuz-$krel ]"
# dpkg -l's second letter is the state: n, not installed (c: its files left).
check "nothing of the packages is left for dpkg" \
	sh -c "! dpkg -l cache-ext-tools cache-ext-ctl-modules-$krel linux-image-$krel 2>/dev/null | grep -q '^[a-z][^n] '"
say "phase 2 done: $n checks; powering off"
systemctl poweroff
