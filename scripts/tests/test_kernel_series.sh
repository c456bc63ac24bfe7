#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel stack's workflow in scripts/kernel.sh, on a small git tree
# standing in for build/linux: prepare applies kernel/patches on branch
# cache-ext, export writes the branch back, and prepare refuses to throw
# away commits on cache-ext that were never exported.  Prints TAP.
#
#   scripts/tests/test_kernel_series.sh

set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tests/tap.sh
. "$TOP/scripts/tests/tap.sh"
# shellcheck disable=SC2016 # expanded by check()
TAP_SHOW='"$WORK/out"'
tap_workdir

T=$WORK/tree
KSRC=$T/build/linux
mkdir -p "$T/scripts" "$T/kernel/patches" "$KSRC"
cp "$TOP/scripts/kernel.sh" "$T/scripts/"

# The base: one commit, tagged as unpack_base() tags it.  It stands for
# the tarball's tree, so kernel/BASE names it and no tarball is needed.
git -C "$KSRC" init -q -b base
printf 'int x;\n' > "$KSRC/core.c"
git -C "$KSRC" add core.c
git -C "$KSRC" -c user.name=t -c user.email=t@t commit -q -m base
git -C "$KSRC" tag cache-ext-base
printf 'commit %s\nversion 6.12.117\n' "$(git -C "$KSRC" rev-parse HEAD)" \
	> "$T/kernel/BASE"

# kernel/patches: one commit on top of the base.
git -C "$KSRC" checkout -q -b work
printf 'int x;\nint y;\n' > "$KSRC/core.c"
git -C "$KSRC" -c user.name=t -c user.email=t@t commit -q -am "mm: add y"
git -C "$KSRC" format-patch -q -N --zero-commit --no-signature \
	-o "$T/kernel/patches" cache-ext-base..work
git -C "$KSRC" checkout -q base

ks() { "$T/scripts/kernel.sh" "$@" > "$WORK/out" 2>&1; }
on_branch() { [ "$(git -C "$KSRC" show cache-ext:core.c)" = "$(printf "$1")" ]; }
commits() { [ "$(git -C "$KSRC" rev-list --count cache-ext-base..cache-ext)" = "$1" ]; }
said() { grep -q "$1" "$WORK/out"; }

tap_plan 11

check "prepare applies kernel/patches on cache-ext" \
	eval 'ks prepare && commits 1 && on_branch "int x;\nint y;\n"'

# Work on the branch, as a developer does, and export it.  The stack
# now adds a file too (mm/new.c).
printf 'int x;\nint y;\nint z;\n' > "$KSRC/core.c"
mkdir -p "$KSRC/mm"
printf 'int n;\n' > "$KSRC/mm/new.c"
git -C "$KSRC" add mm/new.c
git -C "$KSRC" -c user.name=t -c user.email=t@t commit -q -am "mm: add z"
check "export writes one patch per commit" \
	eval 'ks export && [ "$(ls "$T/kernel/patches" | wc -l)" = 2 ]'
check "export writes the files the stack adds to kernel/cache_ext" \
	eval '[ "$(cat "$T/kernel/cache_ext/mm/new.c" 2>/dev/null)" = "int n;" ]'
check "kernel/cache_ext holds no file the stack only changes, and export's README" \
	eval '[ "$(cd "$T/kernel/cache_ext" && find . -type f ! -path ./README)" = ./mm/new.c ] &&
	      grep -q "^GENERATED" "$T/kernel/cache_ext/README"'
check "prepare after export keeps the branch as it is" \
	eval 'head=$(git -C "$KSRC" rev-parse cache-ext) && ks prepare &&
	      [ "$(git -C "$KSRC" rev-parse cache-ext)" = "$head" ]'

# A commit that is not exported, then kernel/patches changes (a pull).
printf 'int x;\nint y;\nint z;\nint w;\n' > "$KSRC/core.c"
git -C "$KSRC" -c user.name=t -c user.email=t@t commit -q -am "mm: add w"
sed -i "s/^Subject: \[PATCH\] mm: add z\$/\0, changed/" \
	"$T"/kernel/patches/0002-*.patch
check "prepare refuses to drop a commit that was not exported" \
	eval '! ks prepare'
check "the refusal says what to do" \
	eval "said \"has commits kernel/patches does not; run 'scripts/kernel.sh export'\""
check "the refused branch is left as it was" \
	eval 'commits 3 && on_branch "int x;\nint y;\nint z;\nint w;\n"'
check "CACHE_EXT_DISCARD=1 applies kernel/patches anyway" \
	eval 'CACHE_EXT_DISCARD=1 ks prepare && commits 2 &&
	      on_branch "int x;\nint y;\nint z;\n" &&
	      git -C "$KSRC" log -1 --format=%s cache-ext | grep -q "add z, changed"'

# Uncommitted work is not exported either.
echo 'int v;' >> "$KSRC/core.c"
check "export refuses uncommitted changes" \
	eval '! ks export && said "uncommitted changes"'
git -C "$KSRC" checkout -q -- core.c

# A patch that does not apply names itself.
sed -i 's/^+int y;$/+int y2;/; s/^ int x;$/ int nothere;/' "$T"/kernel/patches/0001-*.patch
check "prepare stops at a patch that does not apply" \
	eval '! ks prepare && said "a patch in kernel/patches does not apply"'

tap_done
