#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/deps.sh against a fake dpkg and apt: which packages it installs,
# which kernel source version it picks, what it says.  Prints TAP.
#
#   scripts/tests/test_deps.sh

set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tests/tap.sh
. "$TOP/scripts/tests/tap.sh"
# shellcheck disable=SC2016 # expanded by check()
TAP_SHOW='"$FAKE/out" "$FAKE/calls"'
tap_workdir

# A tree with deps.sh and a kernel/BASE of its own, and fake tools first
# on PATH: dpkg-query answers from $WORK/installed ("pkg version" lines),
# apt-cache madison from $WORK/archive, apt-get logs its arguments.
mkdir -p "$WORK/tree/scripts" "$WORK/tree/kernel" "$WORK/bin"
cp "$TOP/scripts/deps.sh" "$WORK/tree/scripts/"
printf 'package linux-source-6.12 6.12.117-1~deb12u1\nversion 6.12.117\n' \
	> "$WORK/tree/kernel/BASE"

cat > "$WORK/bin/dpkg-query" <<'EOF'
#!/bin/sh
pkg=$(eval echo "\${$#}")
ver=$(awk -v p="$pkg" '$1 == p { print $2 }' "$FAKE/installed")
[ -n "$ver" ] || exit 1
echo "install ok installed $ver"
EOF
cat > "$WORK/bin/apt-cache" <<'EOF'
#!/bin/sh
awk -v p="$2" '$1 == p { print p " | " $2 " | http://deb.example/debian main" }' "$FAKE/archive"
EOF
cat > "$WORK/bin/apt-get" <<'EOF'
#!/bin/sh
echo "apt-get $*" >> "$FAKE/calls"
case "$1" in install) echo "Unpacking something"; echo "Setting up something" ;; esac
EOF
cat > "$WORK/bin/id" <<'EOF'
#!/bin/sh
echo "${FAKE_UID:-0}"
EOF
chmod +x "$WORK/bin/"*

# Every package deps.sh wants, installed, but for the kernel source.
all_but_source() {
	sed -n '/^PKGS="/,/^"/p' "$TOP/scripts/deps.sh" | tr -s ' \t' '\n' |
		grep -Ev '^(PKGS="|"|linux-source-6.12)?$' | sed 's/$/ 1.0/'
}

# run NAME INSTALLED_SOURCE ARCHIVE_VERSIONS [FAKE_UID]: a fresh fake
# machine, deps.sh run on it; its status, output and apt calls kept.
run() {
	export FAKE=$WORK/$1
	mkdir -p "$FAKE"
	all_but_source > "$FAKE/installed"
	[ -z "$2" ] || echo "linux-source-6.12 $2" >> "$FAKE/installed"
	: > "$FAKE/archive"
	for v in $3; do
		echo "linux-source-6.12 $v" >> "$FAKE/archive"
	done
	: > "$FAKE/calls"
	FAKE_UID=${4:-0} PATH="$WORK/bin:$PATH" sh "$WORK/tree/scripts/deps.sh" \
		> "$FAKE/out" 2>&1
	echo $? > "$FAKE/status"
}

status_is() { [ "$(cat "$FAKE/status")" = "$1" ]; }
calls_has() { grep -qF -- "$1" "$FAKE/calls"; }
no_calls() { [ ! -s "$FAKE/calls" ]; }
says() { grep -qF -- "$1" "$FAKE/out"; }

tap_plan 7

run current 6.12.117-1~deb12u1 "6.12.120-1~deb12u1 6.12.117-1~deb12u1"
check "everything installed at the tested version: nothing to do" \
	eval 'status_is 0 && no_calls'

run fresh "" "6.12.120-1~deb12u1 6.12.117-1~deb12u1"
check "fresh machine: the tested kernel source version is pinned" \
	eval 'status_is 0 && calls_has "linux-source-6.12=6.12.117-1~deb12u1" && says "installing 1 packages"'

run older 6.12.111-1~deb12u1 "6.12.117-1~deb12u1 6.12.111-1~deb12u1"
check "another source version installed: replaced by the tested one" \
	eval 'status_is 0 && calls_has "linux-source-6.12=6.12.117-1~deb12u1"'

run gone "" "6.12.125-1~deb12u1"
check "tested version gone from the archive: the newest, with a warning" \
	eval 'status_is 0 && calls_has "install -y --no-install-recommends --allow-downgrades linux-source-6.12" &&
	      ! calls_has "linux-source-6.12=" && says "WARNING: linux-source-6.12 6.12.117-1~deb12u1"'

run gone_have 6.12.125-1~deb12u1 "6.12.125-1~deb12u1"
check "tested version gone, another installed: kept, with a warning" \
	eval 'status_is 0 && ! calls_has "install" && says "WARNING"'

run user "" "6.12.117-1~deb12u1" 1000
check "not root: fails, naming what is missing and what to run" \
	eval 'status_is 1 && no_calls && says "missing packages: linux-source-6.12" && says "sudo make deps"'

run user_other 6.12.111-1~deb12u1 "6.12.117-1~deb12u1" 1000
check "not root, another source version: goes on, says so" \
	eval 'status_is 0 && no_calls && says "tested on 6.12.117-1~deb12u1"'

tap_done
