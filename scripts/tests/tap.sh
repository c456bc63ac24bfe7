# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# TAP for the shell tests of scripts/tests, sourced by each:
#
#   tap_plan N                  the header
#   check NAME COMMAND...       "ok" if COMMAND succeeds, else "not ok" and
#                               the files the test names in $TAP_SHOW
#                               (expanded at that moment), as comments
#   tap_done                    the summary line; status 1 if any failed
#   tap_workdir                 sets WORK to a scratch directory, removed
#                               when the test exits

n=0
failed=0

tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

check() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		# shellcheck disable=SC2086 # a list of files
		eval "sed 's/^/# /' $TAP_SHOW"
		failed=$((failed + 1))
	fi
}

tap_done() {
	echo "# $((n - failed)) passed, $failed failed"
	[ $failed -eq 0 ]
}

tap_workdir() {
	WORK=$(mktemp -d)
	# shellcheck disable=SC2064 # the directory is known now
	trap "rm -rf '$WORK'" EXIT
}
