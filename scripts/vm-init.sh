#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the cache_ext test VM (see scripts/vm.sh): mount what the tests
# need, run the command the host asked for, report its exit status on the
# console and reboot, which makes qemu (-no-reboot) exit.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux} CACHE_EXT_SCRATCH=/run/scratch

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# What udev would add; the kselftest runner writes to /dev/stdout.
ln -sfn /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do
	ln -sfn "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"
done
for d in /tmp /run /root /var/tmp; do
	mount -t tmpfs -o mode=1777 tmpfs "$d"
done
# The repository again, at its path: a tmpfs above may have hidden it.
top=$(sed -n 's/.*cache_ext_vm\.top=\([^ ]*\).*/\1/p' /proc/cmdline)
mkdir -p "$top" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=loose,ro \
	cache_ext_top "$top"
# The project's tools, as a user would have them installed.
export PATH=$top/build/cachectl:$top/build/lctrain:$PATH
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
mkdir -p "$CACHE_EXT_SCRATCH"
mount -t ext4 /dev/vda "$CACHE_EXT_SCRATCH"
# vm.sh -d: a read-only data disk (make eval's prepared data).
if [ -b /dev/vdb ]; then
	export CACHE_EXT_DATA=/run/data
	mkdir -p "$CACHE_EXT_DATA"
	mount -t ext4 -o ro,noload /dev/vdb "$CACHE_EXT_DATA"
fi
# vm.sh -o: a host directory the guest may write (make eval's traces).
if grep -qx cache_ext_out /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag 2>/dev/null; then
	export CACHE_EXT_OUT=/run/out
	mkdir -p "$CACHE_EXT_OUT"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 \
		cache_ext_out "$CACHE_EXT_OUT"
fi
ulimit -l unlimited

cmd=$(sed -n 's/.*cache_ext_vm\.cmd=\([^ ]*\).*/\1/p' /proc/cmdline)
echo "cache_ext-vm: guest kernel $(uname -r), $(nproc) CPUs"
bash "$cmd"
status=$?
sync
echo "cache_ext-vm: exit status $status"
exec busybox reboot -f
