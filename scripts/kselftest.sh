#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run inside the VM by `make kselftest`: the cache_ext kselftests through
# the kselftest runner (TAP), then a check of the kernel log.  Exits
# non-zero if any test failed, none ran, or the kernel logged a warning,
# BUG, oops, RCU stall, hung task or lockup; the last line is "N passed,
# N failed".
#
#   scripts/kselftest.sh MAKE_VARS...   (the variables selftests/ needs)
#   scripts/kselftest.sh --installed DIR
#       `make patches-kselftest`: the tests as the kernel tree's kselftest
#       install put them in DIR, run with DIR/run_kselftest.sh

set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
log=/tmp/kselftest.log

dmesg -c > /dev/null

# Run from outside the kernel tree, the runner does not find our settings
# file; hand it the timeout directly.  KSELFTEST_TIMEOUT overrides it
# (make check-debug: the KASAN kernel runs the same tests ~3x slower).
timeout=${KSELFTEST_TIMEOUT:-$(sed -n 's/^timeout=//p' "$TOP/selftests/cache_ext/settings")}
export kselftest_override_timeout=${timeout:-45}
# The tests register policies under the standard names themselves: the
# module, when cachectl loads it, preloads none (ctl.policies_by_name
# checks the preload).
export CACHECTL_MODULE_PARAMS=preload=

if [ "${1:-}" = --installed ]; then
	"$2/run_kselftest.sh" 2>&1 | tee "$log"
else
	make -s -C "$TOP/selftests/cache_ext" "$@" run_tests 2>&1 | tee "$log"
fi
runner=${PIPESTATUS[0]}

passed=$(grep -Ec '^# ok [0-9]+ ' "$log")
failed=$(grep -Ec '^# not ok [0-9]+ ' "$log")
skipped=$(grep -Ec '^# ok [0-9]+ .*# SKIP' "$log")
programs_failed=$(grep -Ec '^not ok [0-9]+ ' "$log")
status=0

if [ "$runner" -ne 0 ]; then
	echo "kselftest: the runner failed (exit $runner)"
	status=1
fi
if [ "$programs_failed" -ne 0 ]; then
	echo "kselftest: $programs_failed test program(s) failed"
	status=1
fi
if [ "$passed" -eq 0 ]; then
	echo "kselftest: no test ran"
	status=1
fi
# What the kernel prints for each: lockdep and WARN_ON "WARNING:", KASAN,
# soft lockups and workqueue lockups "BUG:", every RCU stall warning
# "rcu: INFO:", the hung-task detector "INFO: task ... blocked for more
# than".
problems='WARNING:|BUG:|Oops|general protection|rcu: INFO:|INFO: task .* blocked for more than|hard LOCKUP|sleeping function called|list_del corruption'
if dmesg | grep -E "$problems" > /tmp/kselftest.dmesg; then
	echo "kselftest: the kernel logged problems during the tests:"
	sed 's/^/  /' /tmp/kselftest.dmesg
	failed=$((failed + 1))
	status=1
fi

echo "kselftest: $((passed - skipped)) passed, $failed failed, $skipped skipped"
exit $status
