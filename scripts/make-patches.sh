#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Generate the upstream series from kernel/series (kernel/patches plus the
# kernel/cache_ext overlay) into build/series, prove that it applies with
# git am onto the pristine base, and run checkpatch.pl --strict on it.
# Any problem fails the script.

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
KSRC=$TOP/build/linux
OUT=$TOP/build/series
WORK=$TOP/build/series-work
OVERLAY=$TOP/kernel/cache_ext
SERIES=$TOP/kernel/series

die() { echo "make-patches: $*" >&2; exit 1; }

# checkpatch.pl runs scripts/spdxcheck.py with the python3 in PATH; use the
# one that has python3-ply and python3-git from make deps.
export PATH=/usr/bin:$PATH

"$TOP/scripts/kernel.sh" prepare >/dev/null
# Author and committer of the series: the identity of the patches.
export GIT_COMMITTER_NAME="cache_ext developers"
export GIT_COMMITTER_EMAIL="cache-ext@lists.invalid"

entries=$(grep -Ev '^\s*(#|$)' "$SERIES")

# Every patch and overlay file exactly once.
used_patches=$(echo "$entries" | awk '$1 == "patch" { print $2 }' | sort)
have_patches=$(cd "$TOP/kernel/patches" && ls -1 *.patch | sort)
[ "$used_patches" = "$have_patches" ] ||
	die "kernel/series and kernel/patches disagree:
$(diff <(echo "$used_patches") <(echo "$have_patches") || true)"
used_files=$(echo "$entries" | awk '{ for (i = 3; i <= NF; i++) print $i }' |
	while read -r p; do
		[ -e "$OVERLAY/$p" ] || die "kernel/series names $p, not in kernel/cache_ext"
		(cd "$OVERLAY" && find "$p" -type f)
	done | sort)
have_files=$(cd "$OVERLAY" && find . -type f | sed 's|^\./||' | sort)
[ "$(echo "$used_files" | uniq -d)" = "" ] ||
	die "overlay files listed twice in kernel/series: $(echo "$used_files" | uniq -d)"
[ "$used_files" = "$have_files" ] ||
	die "overlay files missing from kernel/series:
$(comm -13 <(echo "$used_files") <(echo "$have_files"))"

# Build the series on a scratch worktree at the base.
git -C "$KSRC" worktree remove --force "$WORK" >/dev/null 2>&1 || rm -rf "$WORK"
git -C "$KSRC" worktree prune
git -C "$KSRC" worktree add -q --detach "$WORK" cache-ext-base
cleanup() { git -C "$KSRC" worktree remove --force "$WORK" >/dev/null 2>&1 || true; }
trap cleanup EXIT

echo "$entries" | while read -r kind name paths; do
	[ "$kind" = patch ] || die "unknown kernel/series entry '$kind'"
	git -C "$WORK" am -q "$TOP/kernel/patches/$name" ||
		die "$name does not apply in series order"
	for p in $paths; do
		mkdir -p "$WORK/$(dirname "$p")"
		cp -r "$OVERLAY/$p" "$WORK/$(dirname "$p")/"
		git -C "$WORK" add -f "$p"
	done
	[ -z "$paths" ] || git -C "$WORK" commit -q --amend --no-edit
done

rm -rf "$OUT"
git -C "$WORK" format-patch -q --cover-letter --base=cache-ext-base \
	--zero-commit --no-signature -o "$OUT" cache-ext-base..HEAD

# Fill in the cover letter.
cover=$(ls "$OUT"/0000-cover-letter.patch)
subject=$(head -n 1 "$TOP/kernel/cover-letter.txt")
python3 - "$cover" "$TOP/kernel/cover-letter.txt" <<'PY'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read().split('\n', 1)
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', text[0].strip())
s = s.replace('*** BLURB HERE ***', text[1].strip())
open(cover, 'w').write(s)
PY

# The generated series must apply to the pristine tree by itself.
git -C "$WORK" checkout -q --detach cache-ext-base
git -C "$WORK" am -q $(ls "$OUT"/*.patch | grep -v cover-letter) ||
	die "the generated series does not apply to the base"

# ... and give the same new files as the overlay the kernel is built from.
for f in $have_files; do
	cmp -s "$OVERLAY/$f" "$WORK/$f" || die "series result differs from kernel/cache_ext/$f"
done

n=$(ls "$OUT"/*.patch | grep -vc cover-letter)
echo "  SERIES  $n patches + cover letter in ${OUT#"$TOP"/}"
if ! (cd "$WORK" && ./scripts/checkpatch.pl --strict --quiet --no-summary \
		$(ls "$OUT"/*.patch | grep -v cover-letter)); then
	die "checkpatch.pl --strict is not clean"
fi
echo "  CHECK   checkpatch.pl --strict: clean"

# Every new kernel file's kernel-doc must be complete and well formed.
doc=$(cd "$WORK" && ./scripts/kernel-doc -none -Wall $(cd "$OVERLAY" &&
	find . -name '*.[ch]' | sed 's|^\./||') 2>&1)
[ -z "$doc" ] || die "kernel-doc warnings:
$doc"
echo "  CHECK   kernel-doc -Wall: clean"

# The companion module is not part of the series but kernel code all the same.
(cd "$WORK" && ./scripts/checkpatch.pl --strict --quiet --no-summary -f \
	"$TOP"/module/*.[ch]) || die "module/: checkpatch.pl --strict is not clean"
echo "  CHECK   module/ checkpatch.pl --strict: clean"
