#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make eval: the papers' experiments on real programs, in one VM boot.
#
#   scripts/eval.sh SCALE [EXPERIMENT...]
#
# SCALE is full (make eval, ~2 h), quick (make eval-quick, ~21 min) or
# toy (make eval-toy, part of make check: seconds per experiment, checks
# that the harness works, says nothing about performance).
#
# 1. The data disk, built on the host at native speed and cached under
#    build/eval-data/ keyed by everything it is made from: a RocksDB and a
#    LevelDB database of the same records (bench/eval/ycsb load), part of
#    the kernel source tree in build/linux (for the search) and the
#    CloudPhysics trace packed by
#    bench/eval/replay ($TRACE_DIR, default ../shared/traces).  The VM
#    gets it read-only; runs that write do so through an overlay on the
#    scratch disk, so every run starts from the same bytes.
# 2. The cost of a cached read on the host, which the guest measures too:
#    the data's disk latency is 100 us times the guest's slowdown
#    (bench/eval/slow_disk.h; EVAL_DISK_US=N sets it, 0 turns it off).
# 3. One VM boot runs bench/eval/eval, which prints a progress line per
#    run and a CSV row per measurement.
# 4. The rows go to build/eval[-SCALE]/EXPERIMENT/results.csv (full scale:
#    build/eval), and bench/eval/report prints the tables and writes
#    summary.md and the PNG figures next to them.
#
# Needs EVAL_BIN (the built bench/eval programs), CACHECTL, LCTRAIN and
# CACHE_EXT_CTL_KO in the environment, as the Makefile sets them.
# EVAL_ARGS adds options of bench/eval/eval: "-w e,f" for a subset of the
# YCSB workloads, or sizes ("--cgroup-mib 10240 --records 100000000
# --threads 8 --max-secs 240": `build/bench/eval/eval -h` lists them).
set -euo pipefail

# The whole script is one block, read before any of it runs: editing the
# file while a long run uses it cannot change what that run does.
{
TOP=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "eval: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: scripts/eval.sh full|quick|toy [EXPERIMENT...]"
SCALE=$1
shift
# The commit whose kernel, policies and programs run (at the start: the
# report is written hours later, when HEAD may have moved on).
COMMIT=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$TOP" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
	COMMIT="$COMMIT + uncommitted changes"
case "$SCALE" in
# The VM's limits guard against a wedged guest: about twice each scale's time
# (full: about 2 h, 3.3 h with -r 2).
full)	OUT=$TOP/build/eval; TIMEOUT=21600 ;;
quick)	OUT=$TOP/build/eval-quick; TIMEOUT=3600 ;;
toy)	OUT=$TOP/build/eval-toy; TIMEOUT=900 ;;
*)	die "unknown scale '$SCALE' (full, quick or toy)" ;;
esac
: "${EVAL_BIN:?set by the Makefile: run make eval}"
# The CloudPhysics trace: $TRACE_DIR, else ../shared/traces beside this
# repository or beside the one it was cloned from.
if [ -z "${TRACE_DIR:-}" ]; then
	origin=$(git -C "$TOP" remote get-url origin 2>/dev/null || true)
	for d in "$TOP/../shared/traces" "$origin/../shared/traces"; do
		if [ -f "$d/cloudphysics-sample.csv" ]; then
			TRACE_DIR=$(cd "$d" && pwd)
			break
		fi
	done
fi
TRACE=${TRACE_DIR:-/nonexistent}/cloudphysics-sample.csv
[ -d "$TOP/build/linux/kernel" ] || die "no kernel tree in build/linux: run make kernel"
mkdir -p "$OUT"
if [ ! -f "$TRACE" ]; then
	[ "$SCALE" = toy ] || die "no CloudPhysics trace (../shared/traces/cloudphysics-sample.csv beside the repository): set TRACE_DIR"
	# The toy run checks the harness, not the numbers: a made-up trace
	# of the same format serves when the real one is not here.
	echo "  EVAL    no CloudPhysics trace here: the toy run replays a synthetic one"
	TRACE=$OUT/synthetic-trace.csv
	TRACE_DIR=$OUT
	awk 'BEGIN { srand(1); print "time_us,op,offset_bytes,size_bytes"
		for (i = 0; i < 4000; i++)
			printf "%d,%s,%d,%d\n", i, rand() < 0.4 ? "R" : "W",
			       int(rand() * rand() * 20000) * 4096,
			       (1 + int(rand() * 8)) * 4096 }' > "$TRACE"
fi

# --- 1. the data disk --------------------------------------------------------

# records=, src_dirs=, trace_requests= of this scale (and EVAL_ARGS's
# sizes: --records makes another data disk).
# shellcheck disable=SC2086 # options, split as given
eval "$("$EVAL_BIN/eval" -s "$SCALE" ${EVAL_ARGS:-} -P)"
key=$( { echo "$records $src_dirs $trace_requests"
	 cat "$TOP/bench/eval/ycsb.c" "$TOP/bench/eval/ycsb_gen.c" \
	     "$TOP"/bench/eval/kv*.c "$TOP/bench/eval/replay.c" "$TRACE"
	 dpkg-query -W -f='${Version}' librocksdb-dev libleveldb-dev
	 cat "$TOP/kernel/BASE"; } | sha1sum | cut -c1-12)
DATADIR=$TOP/build/eval-data
IMG=$DATADIR/$key.img
mkdir -p "$DATADIR"
# Scales with the same parameters (quick and full) share an image; one no
# scale points to any more is removed.
echo "$key" > "$DATADIR/$SCALE.key"
for f in "$DATADIR"/*.img; do
	[ -e "$f" ] || continue
	k=$(basename "$f" .img)
	grep -qx "$k" "$DATADIR"/*.key || rm -f "$f"
done
if [ ! -f "$IMG" ]; then
	echo "  EVAL    preparing the data disk of the $SCALE scale ($records records, src: $src_dirs)"
	stage=$(mktemp -d "$DATADIR/stage.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	"$EVAL_BIN/ycsb" load -d "$stage/rocksdb" -n "$records" > /dev/null
	"$EVAL_BIN/ycsb" load -E leveldb -d "$stage/leveldb" -n "$records" > /dev/null
	mkdir -p "$stage/src" "$stage/trace"
	# shellcheck disable=SC2086 # a list of directories
	(cd "$TOP/build/linux" && cp -r --parents $src_dirs "$stage/src/")
	if [ "$trace_requests" -gt 0 ]; then
		head -n "$((trace_requests + 1))" "$TRACE" > "$stage/trace.csv"
	else
		cp "$TRACE" "$stage/trace.csv"
	fi
	"$EVAL_BIN/replay" prepare "$stage/trace.csv" "$stage/trace" > /dev/null
	rm "$stage/trace.csv"
	mib=$(du -sm "$stage" | cut -f1)
	mkfs.ext4 -q -F -d "$stage" -E lazy_itable_init=0,lazy_journal_init=0 \
		"$IMG.tmp" "$((mib * 5 / 4 + 64))M"
	mv "$IMG.tmp" "$IMG"
	rm -rf "$stage"
	trap - EXIT
fi

# --- 2. the host's cost of a cached read ------------------------------------

# What eval scales the data disk's latency by (bench/eval/slow_disk.h):
# the same cached YCSB reads as the guest times, here at native speed,
# best of three.  EVAL_DISK_US set: not needed.
host_us=0
if [ -z "${EVAL_DISK_US:-}" ]; then
	calib=$(mktemp -d "$OUT/.calibration.XXXXXX")
	"$EVAL_BIN/ycsb" load -d "$calib/db" -n 20000 > /dev/null
	for _ in 1 2 3; do
		ops=$("$EVAL_BIN/ycsb" run -d "$calib/db" -w c -n 20000 -o 20000 \
			-W 20000 -t 1 -c 0 | sed -n 's/.* ops_per_s=\([0-9.]*\).*/\1/p')
		host_us=$(awk -v o="$ops" -v b="$host_us" \
			'BEGIN { u = 1e6 / o; print (b == 0 || u < b) ? u : b }')
	done
	rm -rf "$calib"
fi

# --- 3. the runs --------------------------------------------------------------

mkdir -p "$OUT"
exps=$(IFS=,; echo "$*")
console=$OUT/console.log
# A copy of everything the run uses, so that rebuilding the tree during a
# long run changes nothing in it.
snap=$OUT/.snapshot
rm -rf "$snap"
mkdir -p "$snap/bin"
cp -a "$TOP/build/bpf" "$snap/bpf"
cp "$EVAL_BIN"/* "$CACHECTL" "$LCTRAIN" "$CACHE_EXT_CTL_KO" "$snap/bin/"
cp "${KERNEL:-$TOP/build/kbuild/arch/x86/boot/bzImage}" "$snap/bzImage"
echo "  EVAL    $SCALE scale${exps:+: $exps}; progress below, console in $console"
# The guest writes each workload's reference string here (vm.sh -o).
rm -rf "$OUT/refs" "$OUT/.out"
mkdir -p "$OUT/.out"
set +e
KERNEL=$snap/bzImage "$TOP/scripts/vm.sh" -t "$TIMEOUT" -d "$IMG" -o "$OUT/.out" -- env \
	EVAL_BIN="$snap/bin" CACHECTL="$snap/bin/cachectl" \
	LCTRAIN="$snap/bin/lctrain" \
	CACHE_EXT_CTL_KO="$snap/bin/cache_ext_ctl.ko" \
	CACHECTL_MODULE="$snap/bin/cache_ext_ctl.ko" BPF_OBJ_DIR="$snap/bpf" \
	EVAL_HOST_HIT_US="$host_us" EVAL_DISK_US="${EVAL_DISK_US:-}" \
	"$snap/bin/eval" -s "$SCALE" ${exps:+-x "$exps"} ${EVAL_ARGS:-} 2>&1 |
	sed -u 's/\r$//' | tee "$console" |
	grep --line-buffered -v -e '^@csv ' -e '^@time '
status=${PIPESTATUS[0]}
set -e

# --- 4. tables and figures --------------------------------------------------

# The policies cachesim runs on each reference string: every heuristic
# one (the learned ones need a model of the same workload), and the bounds.
SIM_POLICIES=lru,fifo,lfu,mru,s3fifo,lhd,mglru,belady,oracle,lfu_ideal

csvs=()
for e in $(sed -n 's/^@csv \([^,]*\),.*/\1/p' "$console" | sort -u); do
	mkdir -p "$OUT/$e"
	{ echo "experiment,workload,setup,rep,metric,value"
	  sed -n "s/^@csv \($e,.*\)/\1/p" "$console"; } > "$OUT/$e/results.csv"
	csvs+=("$OUT/$e/results.csv")
done
[ ${#csvs[@]} -gt 0 ] || die "the VM produced no results (status $status); see $console"

# The room each workload leaves: cachesim on its reference string at the
# cgroup's file-page capacity (the median of kernel-lru's runs: memory.max
# less the anonymous memory at the window's start), rows "sim_miss_ratio"
# of setups sim:POLICY.
[ -d "$OUT/.out/refs" ] && mv "$OUT/.out/refs" "$OUT/refs"
for log in "$OUT"/refs/*.lclog; do
	[ -f "$log" ] && [ -n "${CACHESIM:-}" ] || break
	name=$(basename "$log" .lclog)
	e=${name%%,*}
	wl=${name#*,}
	csv=$OUT/$e/results.csv
	cap=$(awk -F, -v w="$wl" '$2 == w && $3 == "kernel-lru" &&
		$5 == "capacity" { print $6 }' "$csv" 2>/dev/null | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print int(v[int((NR + 1) / 2)]) }')
	if [ -z "$cap" ] || [ "$cap" -le 0 ]; then
		echo "  EVAL    $e $wl: no kernel-lru capacity to simulate at" >&2
		continue
	fi
	"$CACHESIM" -s "$cap" -p "$SIM_POLICIES" -o tsv "$log" > "$log.tsv" 2> "$log.err" ||
		{ echo "  EVAL    cachesim failed on $log: $(tail -1 "$log.err")" >&2; continue; }
	awk -F'\t' -v e="$e" -v w="$wl" 'NR > 1 && NF >= 5 {
		printf "%s,%s,sim:%s,0,sim_miss_ratio,%s\n", e, w, $1, $5 }' \
		"$log.tsv" >> "$csv"
	echo "  EVAL    $e $wl: simulated at $cap pages: $(awk -F'\t' 'NR > 1 { printf "%s %.4f  ", $1, $5 }' "$log.tsv")"
done
# Every experiment's results, not only this run's, go into the summary.
for f in "$OUT"/*/results.csv; do
	case " ${csvs[*]} " in *" $f "*) ;; *) csvs+=("$f") ;; esac
done
"$EVAL_BIN/report" -o "$OUT" -t "$TRACE_DIR/README.md" \
	-T "cache_ext evaluation, $SCALE scale, $(date -u +%F), commit $COMMIT" \
	"${csvs[@]}"
[ "$status" -eq 0 ] || die "some runs failed (VM exit status $status); see $console"
exit
}
