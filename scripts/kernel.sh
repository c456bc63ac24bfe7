#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare, configure and build the cache_ext test kernel.
#
#   scripts/kernel.sh prepare   unpack linux-source-6.12 into build/linux as a
#                               git tree at the recorded base, apply
#                               kernel/patches with git am, sync the
#                               kernel/cache_ext overlay
#   scripts/kernel.sh config    tinyconfig + kernel/configs/cache_ext.config
#   scripts/kernel.sh build     bzImage and modules into build/kbuild
#
# With KERNEL_VARIANT=debug, config and build make the debug kernel of
# `make check-debug` instead: the same fragment plus configs/debug.config
# (KASAN, lockdep, list and work-item debugging), in build/kbuild-debug.
#
# Each step redoes only what changed: a new or edited patch resets the tree
# to the base and re-applies the series; an edited overlay file is copied
# alone; the object tree in build/kbuild is kept, so make rebuilds only what
# the change touched (ccache absorbs the rest).

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$TOP/build
KSRC=$BUILD/linux
TARBALL=/usr/src/linux-source-6.12.tar.xz
BASE_FILE=$TOP/kernel/BASE
OVERLAY=$TOP/kernel/cache_ext
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

apply_patches() {
	local stamp
	stamp=$(stamp_of "$TOP"/kernel/patches/*.patch)
	if [ -f "$KSRC/.cache_ext_series" ] &&
	   [ "$(cat "$KSRC/.cache_ext_series")" = "$stamp" ]; then
		return
	fi
	log "applying kernel/patches"
	rm -f "$KSRC/.cache_ext_series"
	git -C "$KSRC" am --abort >/dev/null 2>&1 || true
	git -C "$KSRC" checkout -q -f -B cache-ext cache-ext-base
	git -C "$KSRC" clean -q -f -d -x
	rm -f "$KSRC/.cache_ext_overlay"
	if ls "$TOP"/kernel/patches/*.patch >/dev/null 2>&1; then
		git -C "$KSRC" am -q --whitespace=nowarn \
			"$TOP"/kernel/patches/*.patch ||
			die "a patch in kernel/patches does not apply to Linux $(make -s -C "$KSRC" kernelversion); see git -C $KSRC am --show-current-patch"
	fi
	echo "$stamp" > "$KSRC/.cache_ext_series"
}

# Copy overlay files whose content changed; delete the ones that went away.
sync_overlay() {
	local list=$KSRC/.cache_ext_overlay new f
	new=$(cd "$OVERLAY" && find . -type f | sed 's|^\./||' | sort)
	if [ -f "$list" ]; then
		comm -23 "$list" <(echo "$new") | while read -r f; do
			log "removing $f"
			rm -f "$KSRC/$f"
		done
	fi
	for f in $new; do
		if ! cmp -s "$OVERLAY/$f" "$KSRC/$f"; then
			if git -C "$KSRC" cat-file -e "cache-ext-base:$f" 2>/dev/null; then
				die "overlay file $f exists in the base tree; change it with a patch"
			fi
			mkdir -p "$(dirname "$KSRC/$f")"
			cp "$OVERLAY/$f" "$KSRC/$f"
		fi
	done
	echo "$new" > "$list"
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
	sync_overlay
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
	mkdir -p "$KOUT"
	make -s -C "$KSRC" O="$KOUT" tinyconfig >/dev/null
	# shellcheck disable=SC2086
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOUT" \
		"$KOUT/.config" $FRAGMENTS >/dev/null
	make -s -C "$KSRC" O="$KOUT" olddefconfig >/dev/null
	local sym val missing=0
	while IFS='=' read -r sym val; do
		if ! grep -qx "$sym=$val" "$KOUT/.config"; then
			echo "kernel.sh: $sym=$val did not survive olddefconfig" >&2
			missing=1
		fi
	done < <(cat $FRAGMENTS | grep -E '^CONFIG_[A-Z0-9_]+=')
	[ $missing -eq 0 ] || die "config fragment not satisfied (missing dependencies?)"
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
		n=$(( $(find "$KOUT" -name '*.o' -newer "$KOUT/.cache_ext_build_start" | wc -l) ))
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
	kill "$ticker" 2>/dev/null
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
*) echo "usage: $0 prepare|config|build" >&2; exit 2 ;;
esac
