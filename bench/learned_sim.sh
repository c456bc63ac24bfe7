#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-learned-sim`: the learned policies against the heuristics
# and the references (Belady, the frequency oracle, the ideal online LFU),
# in cachesim, on Zipfian reads (no VM).
# The model is traced and trained on one sequence and tested on another
# of the same distribution (the same hot pages), as in the kernel.
#
#   bench/learned_sim.sh CACHESIM LCTRAIN [PAGES READS THETA CACHED%]

set -euo pipefail

sim=${1:?usage: $0 CACHESIM LCTRAIN [PAGES READS THETA CACHED%]}
lctrain=${2:?usage: $0 CACHESIM LCTRAIN [PAGES READS THETA CACHED%]}
pages=${3:-32768}
reads=${4:-300000}
theta=${5:-0.99}
cached=${6:-30}
size=$((pages * cached / 100))
train="zipf:$pages:$reads:$theta:1:1"
test="zipf:$pages:$reads:$theta:2:1"
dir=$(mktemp -d /tmp/learned-sim.XXXXXX)
trap 'rm -rf "$dir"' EXIT

echo "Zipf($theta) reads of $pages pages, $reads reads, cache $size pages ($cached% of the file)"
echo "model: the tracer on $train, lctrain; tested on $test"
"$sim" -p tracer -s "$size" -r "$dir/train.lclog" "$train" > /dev/null
for rows in eviction access; do
	"$lctrain" --rows "$rows" -o "$dir/$rows.json" "$dir/train.lclog" |
		sed -n "s/^train AUC/  $rows rows: train AUC/p"
done

{
	"$sim" -o tsv -p belady,oracle,lfu_ideal,lru,fifo,lfu,s3fifo,lhd,mglru -s "$size" "$test" | tail -n +2
	for rows in eviction access; do
		"$sim" -o tsv -m "learned=$dir/$rows.json" -s "$size" \
			-p ml_protect,ml_rank:oversample=10,ml_rank:oversample=20,ml_rank:oversample=30,ml_rank:oversample=40 \
			"$test" | tail -n +2 | sed "s/^\([^\t]*\)/\1 ($rows rows)/"
	done
} > "$dir/all.tsv"
oracle=$(awk -F'\t' '$1 == "oracle" { print $4 }' "$dir/all.tsv")
ideal=$(awk -F'\t' '$1 == "lfu_ideal" { print $4 }' "$dir/all.tsv")
printf '\n%-36s %10s %10s %10s %10s %8s\n' setup misses "miss ratio" "vs oracle" "vs ideal" Macc/s
awk -F'\t' -v o="$oracle" -v i="$ideal" '{
	printf "%-36s %10d %10.4f %9.3fx %9.3fx %8.2f\n", $1, $4, $5, $4 / o, $4 / i,
	       ($6 > 0 ? $3 / $6 / 1e6 : 0)
}' "$dir/all.tsv"
echo "(misses: pages inserted; oracle: keeps the pages the whole trace uses most; belady: MIN;"
echo " lfu_ideal (ideal): evicts the fewest references so far, evicted pages' included, unbounded memory)"
