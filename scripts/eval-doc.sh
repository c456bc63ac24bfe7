#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make eval-doc: put the latest summary of make eval (build/eval/summary.md,
# as written by bench/eval/report, with its date and commit) into
# bench/README.rst, between the "eval-summary"
# markers, as a literal block: the numbers there are never typed by hand.
#
#   scripts/eval-doc.sh [SUMMARY.md]
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
summary=${1:-$TOP/build/eval/summary.md}
doc=$TOP/bench/README.rst
[ -f "$summary" ] || { echo "eval-doc: no $summary: run make eval first" >&2; exit 1; }
grep -q '^\.\. BEGIN eval-summary' "$doc" && grep -q '^\.\. END eval-summary' "$doc" ||
	{ echo "eval-doc: the markers are missing from $doc" >&2; exit 1; }
awk -v summary="$summary" '
	/^\.\. BEGIN eval-summary/ {
		print; print ""; print "::"; print ""
		while ((getline line < summary) > 0)
			print (line == "" ? "" : "  " line)
		print ""; skip = 1; next
	}
	/^\.\. END eval-summary/ { skip = 0 }
	!skip' "$doc" > "$doc.tmp"
mv "$doc.tmp" "$doc"
echo "eval-doc: $doc updated from $summary"
