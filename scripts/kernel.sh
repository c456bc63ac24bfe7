#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare, configure and build the cache_ext test kernel.
#
#   scripts/kernel.sh prepare   unpack linux-source-6.12 into build/linux as a
#                               git tree at the recorded base (tag
#                               cache-ext-base) and apply kernel/patches with
#                               git am on branch cache-ext
#   scripts/kernel.sh config    tinyconfig + kernel/configs/cache_ext.config
#   scripts/kernel.sh build     bzImage and modules into build/kbuild
#   scripts/kernel.sh export    write branch cache-ext of build/linux back
#                               to kernel/patches, one file per commit, and
#                               the files it adds to kernel/cache_ext
#
# kernel/patches is the kernel side as a commit stack.  To change it, commit
# on branch cache-ext in build/linux (git commit --fixup, git rebase -i
# --autosquash cache-ext-base), then `scripts/kernel.sh export` and commit
# kernel/patches here.  prepare refuses to throw away commits on cache-ext
# that were not exported.
#
# With KERNEL_VARIANT=debug, config and build make the debug kernel of
# `make check-debug` instead: the same fragment plus configs/debug.config
# (KASAN, lockdep, list and work-item debugging), in build/kbuild-debug.
#
# Each step redoes only what changed: a new or edited patch resets the tree
# to the base and re-applies the series; the object tree in build/kbuild is
# kept, so make rebuilds only what the change touched (ccache absorbs the
# rest).

set -euo pipefail

# The whole script is one block, read before any of it runs: editing the
# file while a build uses it cannot change what that build does (bash
# reads a script as it goes; an edit during a cold build once ended it
# with a syntax error).
{
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$TOP/build
KSRC=$BUILD/linux
TARBALL=/usr/src/linux-source-6.12.tar.xz
BASE_FILE=$TOP/kernel/BASE
PATCHES=$TOP/kernel/patches
FILES=$TOP/kernel/cache_ext
FRAGMENTS=$TOP/kernel/configs/cache_ext.config
case "${KERNEL_VARIANT:-}" in
"")	KOUT=$BUILD/kbuild ;;
debug)	KOUT=$BUILD/kbuild-debug
	FRAGMENTS="$FRAGMENTS $TOP/kernel/configs/debug.config" ;;
*)	echo "kernel.sh: unknown KERNEL_VARIANT '$KERNEL_VARIANT' (debug or none)" >&2
	exit 2 ;;
esac

# Fixed identity and dates: the base commit and the applied series get the
# same hashes on every machine, and the kernel build is reproducible.
export GIT_AUTHOR_NAME="cache_ext build" GIT_AUTHOR_EMAIL="build@cache-ext.invalid"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
export KBUILD_BUILD_USER=cache_ext KBUILD_BUILD_HOST=qemu
export KBUILD_BUILD_TIMESTAMP="2024-11-17 00:00:00 UTC"
# ccache: hits across clones in different directories.
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1

die() { echo "kernel.sh: $*" >&2; exit 1; }
log() { echo "  KERNEL  $*"; }

expected_base() { sed -n 's/^commit //p' "$BASE_FILE"; }

stamp_of() { cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1; }

# Unpack the tarball into a git tree whose single commit is the base.
unpack_base() {
	[ -r "$TARBALL" ] || die "$TARBALL missing; run 'make deps'"
	log "unpacking $(basename "$TARBALL")"
	rm -rf "$KSRC" "$KSRC.tmp"
	mkdir -p "$KSRC.tmp"
	tar -C "$KSRC.tmp" --strip-components=1 -xf "$TARBALL"
	(
		cd "$KSRC.tmp"
		git init -q -b base
		git config core.autocrlf false
		git config gc.auto 0
		git add -f -A
		GIT_AUTHOR_DATE="2024-11-17T00:00:00Z" \
		GIT_COMMITTER_DATE="2024-11-17T00:00:00Z" \
			git commit -q -m "Linux $(make -s kernelversion) (linux-source-6.12)"
		git tag cache-ext-base
	)
	mv "$KSRC.tmp" "$KSRC"
}

# The recorded base is what the series was made and tested against.  A
# newer linux-source-6.12 (Debian replaced the tested one) is used, loudly:
# the series is tried on it, and a patch that does not apply stops the build.
check_base() {
	local have want got tested pkg
	have=$(git -C "$KSRC" rev-parse cache-ext-base)
	want=$(expected_base)
	[ "$have" != "$want" ] || return 0
	got=$(make -s -C "$KSRC" kernelversion)
	tested=$(sed -n 's/^version //p' "$BASE_FILE")
	pkg=$(sed -n 's/^package //p' "$BASE_FILE")
	case "$got" in
	6.12.*) ;;
	*) die "$TARBALL holds Linux $got; the series is for 6.12.y (tested: $tested)" ;;
	esac
	cat >&2 <<-EOF
	kernel.sh: WARNING: building on Linux $got, not on the tested $tested.
	kernel.sh: $TARBALL is not the tree kernel/BASE records ($pkg);
	kernel.sh: the series is applied to it anyway, and the build stops if a patch does not apply.
	kernel.sh: for the tested tree: apt-get install ${pkg% *}=${pkg#* } (then rm -rf build/linux)
	EOF
}

# The series as applied last: the hash of kernel/patches, and the commit
# of branch cache-ext that matches it (made by git am, or exported).
series_stamp() { stamp_of "$PATCHES"/*.patch; }
record_series() { echo "$(series_stamp) $(git -C "$KSRC" rev-parse cache-ext)" > "$KSRC/.cache_ext_series"; }

apply_patches() {
	local stamp applied head
	stamp=$(series_stamp)
	if [ -f "$KSRC/.cache_ext_series" ]; then
		read -r applied head < "$KSRC/.cache_ext_series" || true
		[ "$applied" != "$stamp" ] || return 0
		# Commits made on cache-ext since and not exported are work.
		if [ -n "${head:-}" ] &&
		   [ "$(git -C "$KSRC" rev-parse -q --verify cache-ext)" != "$head" ] &&
		   [ -z "${CACHE_EXT_DISCARD:-}" ]; then
			die "branch cache-ext of $KSRC has commits kernel/patches does not; run 'scripts/kernel.sh export' (or CACHE_EXT_DISCARD=1 to drop them)"
		fi
	fi
	log "applying kernel/patches"
	rm -f "$KSRC/.cache_ext_series"
	git -C "$KSRC" am --abort >/dev/null 2>&1 || true
	git -C "$KSRC" checkout -q -f -B cache-ext cache-ext-base
	git -C "$KSRC" clean -q -f -d -x
	if ls "$PATCHES"/*.patch >/dev/null 2>&1; then
		git -C "$KSRC" am -q --whitespace=nowarn --committer-date-is-author-date \
			"$PATCHES"/*.patch ||
			die "a patch in kernel/patches does not apply to Linux $(make -s -C "$KSRC" kernelversion); see git -C $KSRC am --show-current-patch"
	fi
	record_series
}

# Branch cache-ext back to kernel/patches: the stack as it is committed.
do_export() {
	local n
	[ -d "$KSRC/.git" ] || die "no $KSRC; run 'scripts/kernel.sh prepare' first"
	[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ] ||
		die "$KSRC has uncommitted changes; commit them on cache-ext first"
	rm -f "$PATCHES"/*.patch
	git -C "$KSRC" format-patch -q -N --zero-commit --no-signature \
		-o "$PATCHES" cache-ext-base..cache-ext
	n=$(ls "$PATCHES"/*.patch | wc -l)
	record_series
	export_files
	log "$n patches in kernel/patches, the files they add in kernel/cache_ext"
}

# kernel/cache_ext/: the final state of every file the stack adds, at its
# path in the kernel tree, so that it can be read, grepped and reviewed as
# files.  Generated here only; scripts/tests/test_kernel_files.sh checks
# that it is what kernel/patches applied from nothing gives.
export_files() {
	local f tmp=$FILES.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	git -C "$KSRC" diff --name-only --diff-filter=A cache-ext-base cache-ext |
	while read -r f; do
		mkdir -p "$tmp/$(dirname "$f")"
		git -C "$KSRC" show "cache-ext:$f" > "$tmp/$f"
	done
	generated_note > "$tmp/README"
	rm -rf "$FILES"
	mv "$tmp" "$FILES"
}

# kernel/cache_ext/README: what the directory is and how it is made.
generated_note() {
	cat <<-'EOF'
	GENERATED by `scripts/kernel.sh export`: do not edit.

	Every file that the kernel series (kernel/patches) adds, in its state
	after the last patch, at its path in the kernel tree, so that it can be
	read, grepped and reviewed as files.  Edits here are lost and are caught
	by scripts/tests/test_kernel_files.sh (part of `make check`).

	To change the kernel side: commit on branch cache-ext of build/linux
	(`git commit --fixup SHA`, then `git rebase -i --autosquash` onto the
	commit to change), run `scripts/kernel.sh export`, and commit
	kernel/patches and this directory together.
	EOF
}

# Size and time of the tarball: a package upgrade replaces it.
tarball_id() { stat -c '%s %Y' "$TARBALL" 2>/dev/null; }

do_prepare() {
	if [ ! -d "$KSRC/.git" ] || ! git -C "$KSRC" rev-parse -q --verify cache-ext-base >/dev/null ||
	   { [ -f "$KSRC/.cache_ext_tarball" ] &&
	     [ "$(cat "$KSRC/.cache_ext_tarball")" != "$(tarball_id)" ]; }; then
		unpack_base
	fi
	check_base
	apply_patches
	[ -f "$KSRC/.cache_ext_tarball" ] || tarball_id > "$KSRC/.cache_ext_tarball"
}

# configure SRC OUT FRAGMENT...: tinyconfig + the fragments, for source tree
# SRC in object tree OUT.  A symbol of a fragment that olddefconfig dropped
# fails, unless its Kconfig entry does not exist in SRC (the upstream
# series is configured at every patch, before some options exist).
configure() {
	local src=$1 out=$2 sym val missing=0
	shift 2
	mkdir -p "$out"
	make -s -C "$src" O="$out" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@" >/dev/null
	make -s -C "$src" O="$out" olddefconfig >/dev/null
	# The last fragment that sets a symbol wins, as in merge_config.sh.
	local -A want=()
	while IFS='=' read -r sym val; do
		want[$sym]=$val
	done < <(cat "$@" | sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1=n/p; /^CONFIG_[A-Z0-9_]*=/p')
	for sym in "${!want[@]}"; do
		val=${want[$sym]}
		grep -qx "$sym=$val" "$out/.config" && continue
		[ "$val" = n ] && ! grep -q "^$sym=" "$out/.config" && continue
		if [ -n "${CACHE_EXT_TREE_CONFIG:-}" ] &&
		   ! git -C "$src" grep -q -E "^(menu)?config ${sym#CONFIG_}$" -- '*Kconfig*'; then
			continue
		fi
		echo "kernel.sh: $sym=$val did not survive olddefconfig" >&2
		missing=1
	done
	[ $missing -eq 0 ] || die "config fragment not satisfied (missing dependencies?)"
}

do_config() {
	local stamp
	do_prepare
	# shellcheck disable=SC2086
	stamp=$(stamp_of $FRAGMENTS "$KSRC/.cache_ext_series")
	if [ -f "$KOUT/.config" ] && [ -f "$KOUT/.cache_ext_config" ] &&
	   [ "$(cat "$KOUT/.cache_ext_config")" = "$stamp" ]; then
		return
	fi
	log "configuring (tinyconfig +$(for f in $FRAGMENTS; do printf ' %s' "$(basename "$f")"; done))"
	# shellcheck disable=SC2086
	configure "$KSRC" "$KOUT" $FRAGMENTS
	echo "$stamp" > "$KOUT/.cache_ext_config"
}

# Objects in a complete build/kbuild (find -name '*.o', measured): the
# denominator of a cold build's progress.
OBJECTS_FULL=1580

# One line every 30 s while make runs: objects built, and for a cold build
# the share done and a time estimate from the rate so far.
progress() {
	local start=$1 cold=$2 base=$3 now n pct left
	while sleep 30; do
		now=$(date +%s)
		# The build deletes objects while find walks the tree (the
		# link's vmlinux.o): a vanished file is no error here.
		n=$(( $({ find "$KOUT" -name '*.o' -newer "$KOUT/.cache_ext_build_start" 2>/dev/null || true; } | wc -l) ))
		if [ "$cold" -eq 1 ] && [ "$n" -gt 0 ]; then
			pct=$(( (base + n) * 100 / OBJECTS_FULL ))
			[ $pct -le 99 ] || pct=99
			left=$(( (now - start) * (OBJECTS_FULL - base - n) / n / 60 + 1 ))
			log "$pct% ($((base + n)) of ~$OBJECTS_FULL objects), $(( (now - start) / 60 )) min so far, about $left min left"
		else
			log "$n objects rebuilt, $(( (now - start) / 60 )) min so far"
		fi
	done
}

do_build() {
	local start cold=0 base ticker status=0
	do_config
	[ -f "$KOUT/vmlinux" ] || cold=1
	log "building bzImage and modules in ${KOUT#"$TOP"/} (log: ${KOUT#"$TOP"/}/build.log)"
	[ $cold -eq 0 ] || log "a cold build takes 10-30 minutes on 2 cores; progress every 30 s"
	start=$(date +%s)
	base=$(find "$KOUT" -name '*.o' | wc -l)
	touch "$KOUT/.cache_ext_build_start"
	progress "$start" "$cold" "$base" &
	ticker=$!
	PATH=/usr/lib/ccache:$PATH make -C "$KSRC" O="$KOUT" \
		-j"$(($(nproc) + 1))" bzImage modules > "$KOUT/build.log" 2>&1 ||
		status=$?
	# The ticker may have ended on its own; that fails no build.
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	# Warnings are the developer's business: show them, whatever happened.
	grep -E -A3 'warning:' "$KOUT/build.log" >&2 || true
	if [ $status -ne 0 ]; then
		grep -E -B2 -A6 'error:|Error [0-9]' "$KOUT/build.log" | tail -n 40 >&2
		die "the kernel build failed; full log: $KOUT/build.log"
	fi
	[ $cold -eq 0 ] || log "built in $(( ($(date +%s) - start) / 60 )) min"
}

case "${1:-}" in
prepare) do_prepare ;;
config) do_config ;;
build) do_build ;;
export) do_export ;;
tree-config)
	# tree-config SRC OUT FRAGMENT...: make-patches.sh, at each patch.
	[ $# -ge 4 ] || die "usage: $0 tree-config SRC OUT FRAGMENT..."
	shift
	CACHE_EXT_TREE_CONFIG=1 configure "$@" ;;
*) echo "usage: $0 prepare|config|build|export|tree-config" >&2; exit 2 ;;
esac
exit
}
