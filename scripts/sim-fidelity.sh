#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make sim-fidelity`: cachesim's miss ratios on the CloudPhysics trace
# beside libCacheSim's page-level reference rows, read from the trace's
# own README (../shared/traces/README.md), for every algorithm that a
# policy of bpf/ implements.
#
#   scripts/sim-fidelity.sh CACHESIM TRACE_DIR

set -euo pipefail

sim=${1:?usage: $0 CACHESIM TRACE_DIR}
dir=${2:-}
if [ -z "$dir" ] || [ ! -f "$dir/cloudphysics-sample.csv" ] || [ ! -f "$dir/README.md" ]; then
	echo "sim-fidelity: no CloudPhysics trace and README.md (../shared/traces beside the repository); set TRACE_DIR" >&2
	exit 1
fi

# "| FIFO | 0.8977 | 0.8873 | ..." -> "FIFO 0.8977 0.8873 ..."
refs=$(sed -n 's/^| *\([A-Za-z0-9-]*\) *|\( *0\.[0-9]* *|\)\{4\} *$/&/p' "$dir/README.md" |
	tr -d ' ' | awk -F'|' '{ print $2, $3, $4, $5, $6 }')
# The sizes: the header row "| algorithm | 2,692 pages | 13,461 | ..."
sizes=$(sed -n 's/^| *algorithm *|\(.*\)|$/\1/p' "$dir/README.md" |
	tr -d ', a-z' | tr '|' ',' | sed 's/^,//; s/,$//')
[ -n "$refs" ] && [ -n "$sizes" ] || { echo "sim-fidelity: no reference table in $dir/README.md" >&2; exit 1; }

policy_of() {
	case $1 in
	FIFO) echo fifo ;; LRU) echo lru ;; LFU) echo lfu ;;
	S3-FIFO) echo s3fifo ;; LHD) echo lhd ;; *) echo - ;;
	esac
}

policies=$(while read -r alg _; do p=$(policy_of "$alg"); [ "$p" = - ] || echo "$p"; done <<< "$refs" | paste -sd,)
tsv=$("$sim" -o tsv -p "$policies" -s "$sizes" "$dir/cloudphysics-sample.csv")

echo "CloudPhysics sample, 4 KiB pages, cachesim (batch 32) vs libCacheSim ($dir/README.md)"
printf '%-10s %-8s' algorithm policy
for s in ${sizes//,/ }; do printf ' %19s' "$s pages"; done
echo
while read -r alg r1 r2 r3 r4; do
	p=$(policy_of "$alg")
	printf '%-10s %-8s' "$alg" "$p"
	i=0
	for r in $r1 $r2 $r3 $r4; do
		i=$((i + 1))
		size=$(cut -d, -f$i <<< "$sizes")
		m=$(awk -v p="$p" -v s="$size" -F'\t' '$1 == p && $2 == s { print $5 }' <<< "$tsv")
		if [ -n "$m" ]; then
			printf ' %6.4f/%6.4f %+5.1f%%' "$m" "$r" "$(awk -v m="$m" -v r="$r" 'BEGIN { print (m - r) / r * 100 }')"
		else
			printf ' %6s/%6.4f %6s' - "$r" ''
		fi
	done
	echo
done <<< "$refs"
echo "(sim/reference and the difference relative to the reference; - : no policy of that algorithm)"
