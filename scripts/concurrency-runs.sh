#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the many-readers kselftests N times (default 10) in one VM boot and
# count the runs with an ejection or a failure.  Start other VMs first to
# test on a loaded host, e.g. twice:
#   scripts/vm.sh -t 6000 -- sh -c 'sh -c "while :; do :; done" & sh -c "while :; do :; done"' &
# then:
#   scripts/vm.sh -t 5800 -- sh scripts/concurrency-runs.sh [N]
cd "$(dirname "$0")/.." || exit 2
export CACHE_EXT_CTL_KO="$PWD/build/extmod/module/cache_ext_ctl.ko" \
	CACHECTL="$PWD/build/cachectl/cachectl" \
	LCTRAIN="$PWD/build/lctrain/lctrain" BPF_OBJ_DIR="$PWD/build/bpf"
runs=${1:-10}
pass=0
fail=0
i=1
while [ "$i" -le "$runs" ]; do
	start=$(date +%s)
	log=/run/concurrency-run.$i
	# The tests fail on any ejection of a shipped policy.
	if build/selftests/cache_ext/test_concurrency \
		-t eight_readers_every_policy -t four_busy_cgroups >"$log" 2>&1; then
		pass=$((pass + 1))
		result=ok
	else
		fail=$((fail + 1))
		result=FAIL
	fi
	echo "run $i: $result in $(($(date +%s) - start)) s"
	grep -E "ejection|Expected|FAIL" "$log" | grep -v " 0 ejections" | sed 's/^/    /'
	i=$((i + 1))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
