#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make patches`: the upstream series in build/series, and its proof.
#
# The series is the kernel stack (kernel/patches, the commits of branch
# cache-ext in build/linux) followed by the parts of this repository that go
# in-tree (kernel/tree/series: the companion module, tools/cache_ext, the
# kselftests, the documentation), each a commit of its own.  Then:
#   - it applies to the pristine base with git am;
#   - checkpatch.pl --strict and kernel-doc -Wall are clean;
#   - the kernel (vmlinux and modules) builds after EVERY patch, once with
#     CONFIG_CACHE_EXT=y (and the module =m once it exists) and once with
#     CONFIG_CACHE_EXT=n, and no build prints a warning.
# Any problem fails the script.
#
# The builds are incremental: one object tree per configuration
# (build/series-build/{y,n}), ccache, and a record of the source trees that
# built clean, so only new or changed patches are built again.  A patch that
# touches only Documentation/, tools/ or MAINTAINERS builds what its parent
# built and is not built again.  PATCHES_BUILD=0 skips the builds;
# PATCHES_CONFIGS="n" (or "y") builds one configuration only.

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
KSRC=$TOP/build/linux
OUT=$TOP/build/series
WORK=${PATCHES_WORK:-$TOP/build/series-work}
BUILDS=$TOP/build/series-build
TREE=$TOP/kernel/tree
CONFIGS=$TOP/kernel/configs

die() { echo "make-patches: $*" >&2; exit 1; }

# One run at a time: every run rebuilds the work tree and its series
# (two at once failed in each other's half-made tree).
mkdir -p "$(dirname "$WORK")"
exec 9> "$WORK.lock"
flock -n 9 || die "another make patches is running on ${WORK#"$TOP"/}; wait for it"

# checkpatch.pl runs scripts/spdxcheck.py with the python3 in PATH; use the
# one that has python3-ply and python3-git from make deps.
export PATH=/usr/lib/ccache:/usr/bin:$PATH
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
export KBUILD_BUILD_USER=cache_ext KBUILD_BUILD_HOST=qemu
export KBUILD_BUILD_TIMESTAMP="2024-11-17 00:00:00 UTC"
# Author and committer of the series: the identity of the patches.
export GIT_COMMITTER_NAME="cache_ext developers"
export GIT_COMMITTER_EMAIL="cache-ext@lists.invalid"

"$TOP/scripts/kernel.sh" prepare >/dev/null

# --- the series ---------------------------------------------------------------

git -C "$KSRC" worktree remove --force "$WORK" >/dev/null 2>&1 || rm -rf "$WORK"
git -C "$KSRC" worktree prune
git -C "$KSRC" worktree add -q --detach "$WORK" cache-ext
# The worktree stays: at the end it holds the applied series, which
# `make patches-kselftest` builds the kselftests in.

# Repository directory -> tree path, for the .rst rewrite.
dir_map=$(sed -n 's/^[[:space:]]\+\([^ !]*\) \([^ !]*\).*/\1 \2/p' "$TREE/series" |
	while read -r from to; do if [ -d "$TOP/$from" ]; then echo "$from=$to"; fi; done)

# to_tree FILE [SECTION...]: in a copied .rst file, drop the top-level
# sections named (this repository's own: the VM, its test runs) and
# rewrite repository paths to tree paths.
to_tree() {
	python3 - "$@" <<'PY'
import os, re, sys
path = sys.argv[1]
drop = set(x.strip() for x in sys.argv[2:] if x.strip())
lines = open(path).read().split('\n')
out, skipping = [], False
for i, line in enumerate(lines):
    under = lines[i + 1] if i + 1 < len(lines) else ''
    if re.fullmatch(r'=+', under) and len(under) >= len(line) > 0:
        skipping = line in drop
        drop.discard(line) if skipping else None
    if not skipping:
        out.append(line)
if drop:
    sys.exit('make-patches: %s has no section %s' % (path, ', '.join(sorted(drop))))
text = '\n'.join(out)
for pair in os.environ['DIR_MAP'].split():
    src, dst = pair.split('=')
    # A one-word directory (bpf, module) only where a path follows.
    after = r'(?=/|\b)' if '/' in src else r'(?=/)'
    text = re.sub(r'(?<![\w/.-])' + re.escape(src) + after, dst, text)
open(path, 'w').write(text)
PY
}
# ... and "rewrite FROM TO" lines: this repository's build outputs named in
# the documentation, at their places in the tree.
dir_map="$dir_map
$(sed -n 's/^rewrite \([^ ]*\) \([^ ]*\)$/\1=\2/p' "$TREE/series")"
export DIR_MAP=$dir_map

# kernel/tree/series: "patch NAME" applies kernel/tree/NAME (its message and
# the changes to files the tree already has), and each indented "FROM TO"
# line after it adds the repository's file or directory FROM at tree path
# TO to that commit.  Every file of kernel/tree is used once.
used=()
name=
flush() {
	[ -n "$name" ] || return 0
	git -C "$WORK" add -f -A
	git -C "$WORK" commit -q --amend --no-edit
	name=
}
while IFS= read -r line; do
	case "$line" in
	''|'#'*|rewrite\ *) continue ;;
	patch\ *)
		flush
		name=${line#patch }
		[ -f "$TREE/$name" ] || die "kernel/tree/series names $name, not in kernel/tree"
		# --empty=keep: a patch that only adds files has no diff here.
		git -C "$WORK" am -q --empty=keep "$TREE/$name" ||
			die "kernel/tree/$name does not apply after kernel/patches"
		used+=("$name") ;;
	[[:space:]]*)
		[ -n "$name" ] || die "kernel/tree/series: '$line' before any patch"
		IFS='!' read -r paths sections <<<"$line"
		read -r from to <<<"$paths"
		[ -e "$TOP/$from" ] || die "kernel/tree/series: $from does not exist"
		if [ -d "$TOP/$from" ]; then
			mkdir -p "$WORK/$to"
			# Only what git tracks: no build output, no editor files.
			git -C "$TOP" ls-files -z -- "$from" | while IFS= read -r -d '' f; do
				mkdir -p "$WORK/$to/$(dirname "${f#"$from"/}")"
				cp "$TOP/$f" "$WORK/$to/${f#"$from"/}"
			done
		else
			mkdir -p "$WORK/$(dirname "$to")"
			cp "$TOP/$from" "$WORK/$to"
			if [[ $to == *.rst ]]; then
				drop=()
				IFS='!' read -r -a drop <<<"$sections"
				to_tree "$WORK/$to" "${drop[@]}"
			fi
		fi ;;
	*) die "kernel/tree/series: cannot read '$line'" ;;
	esac
done < "$TREE/series"
flush
have=$(cd "$TREE" && ls -1 *.patch | sort)
[ "$(printf '%s\n' "${used[@]}" | sort)" = "$have" ] ||
	die "kernel/tree/series and the patches in kernel/tree disagree"

rm -rf "$OUT"
git -C "$WORK" format-patch -q --cover-letter --base=cache-ext-base \
	--subject-prefix="RFC PATCH v2" --zero-commit --no-signature \
	-o "$OUT" cache-ext-base..HEAD
n=$(ls "$OUT"/*.patch | grep -vc cover-letter)

# The cover letter: subject, text and recipients from kernel/cover-letter.txt.
python3 - "$OUT/0000-cover-letter.patch" "$TOP/kernel/cover-letter.txt" <<'PY'
import sys
cover, src = sys.argv[1], open(sys.argv[2]).read()
head, body = src.split('\n\n', 1)
fields = {}
for line in head.splitlines():
    key, _, value = line.partition(':')
    fields.setdefault(key.strip(), []).append(value.strip())
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', fields['Subject'][0])
s = s.replace('*** BLURB HERE ***', body.strip())
to = ''.join('To: %s\n' % v for v in fields.get('To', []))
cc = ''.join('Cc: %s\n' % v for v in fields.get('Cc', []))
s = s.replace('\nSubject:', '\n' + to + cc + 'Subject:', 1)
open(cover, 'w').write(s)
PY

# The generated series must apply to the pristine tree by itself.
git -C "$WORK" checkout -q --detach cache-ext-base
git -C "$WORK" am -q $(ls "$OUT"/*.patch | grep -v cover-letter) ||
	die "the generated series does not apply to the base"
echo "  SERIES  $n patches + cover letter in ${OUT#"$TOP"/}"

# checkpatch --strict on every patch.  The patches that only add user space
# and BPF programs under tools/ are checked without the rules that do not
# apply there: kernel-only APIs (ARRAY_SIZE, strscpy, __printf, BIT, ENOSYS
# for syscalls), BPF's "const volatile" knobs, libbpf's own macro forms that
# cachesim's headers must reproduce (COMPLEX_MACRO, MACRO_ARG_*), and
# misreadings of kselftest_harness code (SPACING on "FIXTURE_DATA(x) *self",
# CAMELCASE on its macros, STATIC_CONST_CHAR_ARRAY on execv() argument
# vectors).  Everything else holds for them as for the kernel.
TOOLS_IGNORE=VOLATILE,ARRAY_SIZE,STRCPY,PREFER_DEFINED_ATTRIBUTE_MACRO,BIT_MACRO,ENOSYS
TOOLS_IGNORE=$TOOLS_IGNORE,AVOID_EXTERNS,NEW_TYPEDEFS,CAMELCASE,SPACING,COMPLEX_MACRO
TOOLS_IGNORE=$TOOLS_IGNORE,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE,MACRO_ARG_UNUSED
TOOLS_IGNORE=$TOOLS_IGNORE,STATIC_CONST_CHAR_ARRAY,EMBEDDED_FUNCTION_NAME,SPLIT_STRING
TOOLS_IGNORE=$TOOLS_IGNORE,LONG_LINE_STRING,FUNCTION_ARGUMENTS
# checkpatch asks "does MAINTAINERS need updating?" of every patch that
# adds a file and leaves MAINTAINERS alone.  The answer is no if the
# cache_ext entry (added by the first cache_ext patch) covers every file the patch adds:
# the question is left out then, and only then.
covered() {
	local f
	for f in $(awk '/^diff --git /{f=substr($4, 3)} /^new file mode/{print f}' "$1"); do
		(cd "$WORK" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-rolestats -f "$f") | grep -q '^cache_ext developers' || return 1
	done
}
checkpatch_ok=1
for p in $(ls "$OUT"/*.patch | grep -v cover-letter); do
	ignore=
	if ! sed -n 's|^+++ b/||p' "$p" | grep -qvE '^(tools/|MAINTAINERS$)'; then
		ignore="--ignore $TOOLS_IGNORE"
		! grep -q '^+++ b/MAINTAINERS$' "$p" && covered "$p" &&
			ignore="$ignore,FILE_PATH_CHANGES"
	elif ! grep -q '^+++ b/MAINTAINERS$' "$p" && covered "$p"; then
		ignore="--ignore FILE_PATH_CHANGES"
	fi
	# shellcheck disable=SC2086
	(cd "$WORK" && ./scripts/checkpatch.pl --strict --quiet --no-summary $ignore "$p") ||
		checkpatch_ok=0
done
[ $checkpatch_ok -eq 1 ] || die "checkpatch.pl --strict is not clean"
echo "  CHECK   checkpatch.pl --strict: clean"

# Every new kernel file's kernel-doc must be complete and well formed.
new_kernel_files=$(git -C "$WORK" diff --name-only --diff-filter=A cache-ext-base HEAD |
	grep -E '^(include|mm)/.*\.[ch]$')
doc=$(cd "$WORK" && ./scripts/kernel-doc -none -Wall $new_kernel_files 2>&1)
[ -z "$doc" ] || die "kernel-doc warnings:
$doc"
echo "  CHECK   kernel-doc -Wall: clean"

[ "${PATCHES_BUILD:-1}" != 0 ] || { echo "  BUILD   skipped (PATCHES_BUILD=0)"; exit 0; }

# --- the kernel builds at every patch -------------------------------------------

commits=$(git -C "$WORK" rev-list --reverse cache-ext-base..HEAD)
config_stamp=$(cat "$CONFIGS"/cache_ext.config "$CONFIGS"/series-[yn].config | sha256sum | cut -c1-16)
mkdir -p "$BUILDS/ok"

# configure_for CFG: configure build/series-build/CFG for the commit checked
# out in $WORK.  Only when a Kconfig file changed: a rewritten .config
# would make kbuild rebuild everything.
configure_for() {
	local cfg=$1 obj=$BUILDS/$1 kconfig

	kconfig=$(git -C "$WORK" ls-files -s -- '*Kconfig*' | sha256sum | cut -c1-16)-$config_stamp
	if [ "$(cat "$obj/.cache_ext_kconfig" 2>/dev/null)" != "$kconfig" ]; then
		"$TOP/scripts/kernel.sh" tree-config "$WORK" "$obj" \
			"$CONFIGS/cache_ext.config" "$CONFIGS/series-$cfg.config"
		echo "$kconfig" > "$obj/.cache_ext_kconfig"
	fi
}

# build_at CFG I COMMIT: the kernel of COMMIT with configuration CFG.
build_at() {
	local cfg=$1 i=$2 commit=$3 obj=$BUILDS/$1 tree ok subject status=0
	tree=$(git -C "$WORK" rev-parse "$commit^{tree}")
	ok=$BUILDS/ok/$cfg-$config_stamp-$tree
	subject=$(git -C "$WORK" log -1 --format=%s "$commit")
	if [ -f "$ok" ]; then
		echo "  BUILD   $i/$n =$cfg: built clean before ($subject)"
		return
	fi
	if [ "$i" -gt 1 ] && ! git -C "$WORK" diff --name-only "$commit~" "$commit" |
			grep -qvE '^(Documentation/|tools/|MAINTAINERS$)'; then
		echo "  BUILD   $i/$n =$cfg: no file the kernel build reads ($subject)"
		touch "$ok"
		return
	fi
	echo "  BUILD   $i/$n =$cfg: $subject"
	git -C "$WORK" checkout -q --detach "$commit"
	configure_for "$cfg"
	make -C "$WORK" O="$obj" -j"$(($(nproc) + 1))" vmlinux modules \
		> "$obj/build.log" 2>&1 || status=$?
	if [ $status -ne 0 ]; then
		grep -E -B2 -A6 'error:|Error [0-9]' "$obj/build.log" | tail -n 40 >&2
		die "patch $i/$n ($subject) does not build with CONFIG_CACHE_EXT=$cfg; log: ${obj#"$TOP"/}/build.log"
	fi
	# warning: from the compilers, WARNING: from modpost, WARN: from
	# resolve_btfids (a kfunc or BTF id that names nothing).
	if grep -E -A3 'warning:|WARNING:|WARN:' "$obj/build.log" >&2; then
		die "patch $i/$n ($subject) builds with warnings with CONFIG_CACHE_EXT=$cfg; log: ${obj#"$TOP"/}/build.log"
	fi
	touch "$ok"
}

for cfg in ${PATCHES_CONFIGS:-y n}; do
	case $cfg in y|n) ;; *) die "PATCHES_CONFIGS: '$cfg' is not y or n" ;; esac
	i=0
	for commit in $commits; do
		i=$((i + 1))
		build_at "$cfg" "$i" "$commit"
	done
done
git -C "$WORK" checkout -q --detach "$(echo "$commits" | tail -n 1)"
# make patches-kselftest builds the whole series in build/series-build/y;
# the patches that built clean before left it configured for an earlier
# one (without CONFIG_CACHE_EXT_CTL, say).
case " ${PATCHES_CONFIGS:-y n} " in *" y "*) configure_for y ;; esac
echo "  CHECK   every patch builds with CONFIG_CACHE_EXT=$(echo ${PATCHES_CONFIGS:-y n} | sed 's/ / and =/'), no warning"
