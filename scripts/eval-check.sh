#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Is the output of a make eval run well formed?  For every experiment: a
# results.csv of rows experiment,workload,setup,rep,metric,value with
# numbers where numbers belong, a section in summary.md, and a PNG figure;
# the data disk's latency and the runs' steady-state evidence.
# Prints TAP; make check runs it on the toy-size run, so that the harness
# cannot rot.  It checks the form, never the numbers.
#
#   scripts/eval-check.sh OUTDIR
set -uo pipefail
dir=${1:?usage: scripts/eval-check.sh OUTDIR}
n=0
failed=0

tap() {	# tap OK DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

is_png() {
	[ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '211PNG' ]
}

for e in ycsb leveldb trace search search-mmap get-scan admit isolation overhead learned; do
	csv=$dir/$e/results.csv
	bad=$(awk -F, -v e="$e" '
		NR == 1 { if ($0 != "experiment,workload,setup,rep,metric,value") print "header"; next }
		NF != 6 || $1 != e || $2 == "" || $3 == "" || $4 !~ /^[0-9]+$/ ||
		$5 == "" || $6 !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ { print "line " NR; exit }
		END { if (NR < 2) print "no rows" }' "$csv" 2>&1)
	[ -f "$csv" ] || bad="missing"
	tap "$([ -z "$bad" ]; echo $?)" "eval $e: results.csv well formed${bad:+ ($bad)}"
	grep -q "^## $e\$" "$dir/summary.md" 2>/dev/null
	tap $? "eval $e: a section in summary.md"
	png=1
	for f in "$dir/$e"-*.png "$dir/$e"-latency.png; do
		is_png "$f" && png=0
	done
	tap $png "eval $e: a PNG figure"
done
# The paths every full run depends on, exercised even at toy size: the
# data disk with a latency, and the steady-state evidence of each run.
us=$(awk -F, '$5 == "disk_us" { print $6 }' "$dir/machine/results.csv" 2>/dev/null)
tap "$(awk -v u="${us:-0}" 'BEGIN { exit !(u > 0) }'; echo $?)" \
	"eval: the data disk had a latency (${us:-no} us per request)"
missing=""
for m in turnovers half_diff steady capacity file_pages_start file_pages_end pt1_ops pt1_misses; do
	grep -q ",$m," "$dir/ycsb/results.csv" 2>/dev/null || missing="$missing $m"
done
tap "$([ -z "$missing" ]; echo $?)" \
	"eval ycsb: every run carries its steady-state evidence${missing:+ (no$missing)}"
grep -q "^\*\*ycsb: steady state\*\*" "$dir/summary.md" 2>/dev/null
tap $? "eval ycsb: the summary has the steady-state table"

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
