#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every test of the project.  Host unit tests first (each
# tests/ or tools/**/tests/ program prints TAP), then the kselftests in the
# VM, then (with EVAL_BIN set) make eval at toy size, its output checked.  Prints one closing line "N passed, N failed" summing both, and exits
# non-zero if anything failed or did not run.
#
#   [CACHE_EXT_CTL_KO=path] [CACHECTL=path] [LCTRAIN=path] [EVAL_BIN=dir] scripts/check.sh VM_TIMEOUT KSELFTEST_MAKE_VARS...

set -uo pipefail

# The whole script is one block, read before any of it runs: editing the
# file while a long run uses it cannot change what that run does.
{

TOP=$(cd "$(dirname "$0")/.." && pwd)
timeout=$1
shift
HOST_LOG=$TOP/build/check-host.log
VM_LOG=$TOP/build/check-vm.log
mkdir -p "$TOP/build"
: > "$HOST_LOG"
status=0

# Host unit tests: every executable the Makefile built under build/tests.
for t in "$TOP"/build/tests/*; do
	[ -x "$t" ] || continue
	echo "== host: ${t#"$TOP"/}"
	"$t" 2>&1 | tee -a "$HOST_LOG"
	[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
passed=$(grep -Ec '^ok [0-9]+' "$HOST_LOG")
skipped=$(grep -Ec '^ok [0-9]+ .*# SKIP' "$HOST_LOG")
failed=$(grep -Ec '^not ok [0-9]+' "$HOST_LOG")
passed=$((passed - skipped))

echo "== VM: kselftests"
"$TOP/scripts/vm.sh" -t "$timeout" -- \
	env CACHE_EXT_CTL_KO="${CACHE_EXT_CTL_KO:-}" CACHECTL="${CACHECTL:-}" \
	LCTRAIN="${LCTRAIN:-}" KSELFTEST_TIMEOUT="${KSELFTEST_TIMEOUT:-}" \
	"$TOP/scripts/kselftest.sh" "$@" 2>&1 |
	tee "$VM_LOG"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
summary=$(sed -n 's/^kselftest: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1 \2 \3/p' \
	"$VM_LOG" | tail -n 1)
if [ -z "$summary" ]; then
	echo "check: the kselftests did not report a result"
	summary="0 1 0"
fi
read -r k_pass k_fail k_skip <<< "$summary"
passed=$((passed + k_pass))
failed=$((failed + k_fail))
skipped=$((skipped + k_skip))

# make eval at toy size: every experiment once, its output checked for
# form (scripts/eval-check.sh), so that the harness cannot rot.
if [ -n "${EVAL_BIN:-}" ]; then
	echo "== VM: make eval at toy size (the harness, not the numbers)"
	EVAL_LOG=$TOP/build/check-eval.log
	rm -rf "$TOP/build/eval-toy" "$EVAL_LOG.tap"
	"$TOP/scripts/eval.sh" toy > "$EVAL_LOG" 2>&1
	eval_status=$?
	grep -E '^\[|^eval:' "$EVAL_LOG"
	"$TOP/scripts/eval-check.sh" "$TOP/build/eval-toy" | tee -a "$EVAL_LOG.tap"
	[ "$eval_status" -eq 0 ] || echo "not ok - scripts/eval.sh toy exited with $eval_status (see $EVAL_LOG)" | tee -a "$EVAL_LOG.tap"
	passed=$((passed + $(grep -Ec '^ok [0-9]+' "$EVAL_LOG.tap")))
	failed=$((failed + $(grep -Ec '^not ok' "$EVAL_LOG.tap")))
	eval_failures=$(grep -E '^not ok' "$EVAL_LOG.tap")
	rm -f "$EVAL_LOG.tap"
fi
[ "$failed" -eq 0 ] || status=1

# What failed, again at the end: a run's log is long, and often only its
# tail is kept (CI shows an excerpt).
if [ "$failed" -ne 0 ]; then
	echo
	echo "== what failed (the logs: build/check-host.log, build/check-vm.log, build/check-eval.log)"
	grep -E '^not ok' "$HOST_LOG"
	# Each failed kselftest with what it logged (its TH_LOG lines hold
	# the measurements an Expected line only sums up), 30 lines at most.
	awk '/#  RUN /   { n = 0 }
	     { buf[n++ % 30] = $0 }
	     /^kselftest: / { print }
	     /not ok [0-9]+ / {
		if ($0 ~ /not ok [0-9]+ selftests:/) { print; next }
		for (i = (n > 30 ? n - 30 : 0); i < n; i++)
			print buf[i % 30]
		n = 0
	     }' "$VM_LOG" | head -n 200
	[ -z "${eval_failures:-}" ] || echo "$eval_failures"
fi

echo
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
exit
}
