#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make sim-fidelity`, second part, run inside the VM: every policy of the
# suite in the kernel, attached by cachectl with the loader gone, against
# cachesim on the same reads (test_fidelity's two workloads), as a table.
# Exits with test_fidelity's status.
#
#   scripts/sim-fidelity-kernel.sh SELFTEST_DIR   (CACHECTL, CACHESIM and
#                                                  CACHE_EXT_CTL_KO set)

set -uo pipefail

dir=${1:?usage: $0 SELFTEST_DIR}
export CACHECTL_MODULE_PARAMS=preload=

log=$("$dir/test_fidelity" 2>&1)
status=$?

echo
echo "The kernel against cachesim: 4 KiB reads without readahead in a 16 MiB cgroup,"
echo "each policy attached by cachectl (lhd also by preload and memory.cache_ext),"
echo "cachectl gone; cachesim at the cgroup's page cache at the end of the run"
echo "(selftests/cache_ext/test_fidelity.c; fallback: pages the kernel's LRU"
echo "evicted for the policy, and cachesim's fallback LRU)"
awk '
/^#  RUN .*fidelity\./ {
	split($3, part, "."); workload = part[2]
	if (!header++)
		printf "%-8s %-10s %-8s %8s %9s %6s %7s %5s %17s\n", "workload", "policy",
		       "attached", "kernel", "cachesim", "pages", "diff", "tol", "fallback k/sim"
}
/ kernel [0-9]+ disk reads, cachesim / {
	line = $0
	sub(/.*match_the_simulator:/, "", line)
	n = split(line, w, /[ (),;%]+/)
	# policy how kernel N disk reads cachesim M at P pages NS ns a read D tolerance T fallback evictions K S
	printf "%-8s %-10s %-8s %8s %9s %6s %6s%% %4s%% %8s/%-8s\n", workload, w[1], w[2],
	       w[4], w[8], w[10], w[16], w[18], w[21], w[22]
}' <<< "$log"
if [ "$status" -ne 0 ]; then
	echo "sim-fidelity: test_fidelity failed (exit $status); its output:"
	sed 's/^/  /' <<< "$log"
fi
exit $status
