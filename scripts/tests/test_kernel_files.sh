#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/cache_ext/ against kernel/patches/: every file the series adds,
# in its final state, is in kernel/cache_ext/ with the same bytes, and
# nothing else is.  The series is applied from nothing (an empty tree, only
# the files it creates), so the test needs no kernel source.  Prints TAP.
#
#   scripts/tests/test_kernel_files.sh [PATCH_DIR FILES_DIR]

set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tests/tap.sh
. "$TOP/scripts/tests/tap.sh"
# shellcheck disable=SC2016 # expanded by check()
TAP_SHOW='"$WORK/out"'
tap_workdir

PATCHES=${1:-$TOP/kernel/patches}
FILES=${2:-$TOP/kernel/cache_ext}

# The paths the series creates: a "new file mode" line in a patch's diff.
added_files() {
	awk '/^diff --git a\// { path = substr($4, 3) }
	     /^new file mode / { print path }' "$@" | sort -u
}

# apply_added TREE PATCH...: the series from nothing, only what it creates.
apply_added() {
	local tree=$1 p f
	shift
	local include=()
	while read -r f; do
		include+=("--include=$f")
	done < <(added_files "$@")
	git init -q "$tree"
	for p in "$@"; do
		git -C "$tree" apply --allow-empty "${include[@]}" "$p" ||
			{ echo "$p does not apply from nothing" >&2; return 1; }
	done
	rm -rf "$tree/.git"
}

# same TREE DIR: the two hold the same files with the same bytes.
same() { diff -r "$1" "$2" > "$WORK/out" 2>&1; }

tap_plan 4

check "kernel/patches applies from nothing (the files it adds)" \
	eval 'apply_added "$WORK/applied" "$PATCHES"/*.patch > "$WORK/out" 2>&1'
check "the series adds files under mm/ and include/" \
	eval 'added_files "$PATCHES"/*.patch > "$WORK/out" &&
	      grep -q "^mm/" "$WORK/out" && grep -q "^include/" "$WORK/out"'
check "kernel/cache_ext holds what kernel/patches adds, and nothing else (run scripts/kernel.sh export)" \
	same "$WORK/applied" "$FILES"

# The comparison can fail: one changed byte in a copy is found.
cp -r "$FILES" "$WORK/changed"
f=$(find "$WORK/changed" -name '*.c' | head -n 1)
sed -i '1s/$/ /' "$f"
check "a changed copy of kernel/cache_ext is told apart" \
	eval '! diff -rq "$WORK/applied" "$WORK/changed" > /dev/null'

tap_done
